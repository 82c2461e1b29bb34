/**
 * A fixed-rate load run with evenly paced requests: request i is due at start + i / rate and is
 * sent when it is due: within a millisecond of it the generator polls (`setImmediate`), so a
 * request is not held up to a timer tick (a 1 ms timer alone added about 1 ms to every p50 and
 * p99, the floors' included: docs/benchmarks.md). The bench keeps this process off the servers'
 * core while it polls (steps.ts `keepOffCpu`). autocannon's
 * `overallRate` instead lets each connection send its share of a second at the start of that
 * second, so its latencies measure the bursts it makes, not the server (docs/benchmarks.md).
 *
 * Latency is measured from the moment a request is due, not from when it was handed to a
 * socket: a request that waits for a free connection or for a late timer counts that wait
 * (no coordinated omission). Bounded by count (`amount`) and by a hard time cap.
 */
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { loadResult, type LoadResult, type LoadTarget } from './load';

export interface PacedOptions {
  /** Requests per second over all connections. */
  rate: number;
  /** Requests to send in total. */
  amount: number;
  /** At most this many requests in flight (keep-alive connections). */
  connections: number;
  /** Hard cap: the run stops after this long even if `amount` is not reached. */
  maxSeconds: number;
  /** Per-request timeout, seconds (a timeout is an error). Default 10. */
  requestTimeoutSeconds?: number;
}

const LOOPBACK = /^http:\/\/127\.0\.0\.1:(\d+)$/;

/** Runs the paced load and resolves with its counts, throughput and latencies. */
export function runPaced(target: LoadTarget, opts: PacedOptions): Promise<LoadResult> {
  const m = LOOPBACK.exec(target.url);
  if (!m) throw new Error(`${target.id}: the bench only loads 127.0.0.1, got ${target.url}`);
  if (!(opts.rate > 0)) throw new Error(`${target.id}: rate must be positive, got ${opts.rate}`);
  const port = Number(m[1]);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.connections });
  const timeoutMs = (opts.requestTimeoutSeconds ?? 10) * 1000;
  const intervalMs = 1000 / opts.rate;
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  let ok2xx = 0;
  let non2xx = 0;
  let errors = 0;
  let timeouts = 0;
  let mismatches = 0;
  let sent = 0;
  let settled = 0;
  let capped = false;
  let lastResponseAt = 0;

  return new Promise((resolve) => {
    const started = performance.now();
    let done = false;

    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(tick);
      clearImmediate(poll);
      clearTimeout(cap);
      agent.destroy();
      const elapsedMs = (lastResponseAt || performance.now()) - started;
      resolve(
        loadResult({
          latencies,
          statusCodes,
          ok2xx,
          non2xx,
          errors,
          timeouts,
          mismatches,
          elapsedMs,
          capped,
        }),
      );
    };

    const settle = () => {
      settled++;
      if (settled >= opts.amount) finish();
    };

    const send = (dueAt: number) => {
      const spec = target.nextRequest();
      const req = request(
        {
          host: '127.0.0.1',
          port,
          agent,
          method: spec.method,
          path: spec.path,
          headers: {
            ...spec.headers,
            ...(spec.body !== undefined ? { 'Content-Length': Buffer.byteLength(spec.body) } : {}),
          },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const now = performance.now();
            if (done) return;
            lastResponseAt = now;
            latencies.push(now - dueAt);
            const status = res.statusCode ?? 0;
            statusCodes[status] = (statusCodes[status] ?? 0) + 1;
            if (status >= 200 && status < 300) ok2xx++;
            else non2xx++;
            if (target.verifyBody && !target.verifyBody(Buffer.concat(chunks).toString('utf8'))) mismatches++;
            target.onResponse?.(status, spec.tag);
            settle();
          });
          res.on('error', () => {
            if (done) return;
            errors++;
            settle();
          });
        },
      );
      req.on('timeout', () => {
        timeouts++;
        req.destroy(new Error('timeout'));
      });
      req.on('error', () => {
        if (done) return;
        errors++;
        settle();
      });
      req.end(spec.body);
    };

    let tick: NodeJS.Timeout | undefined;
    let poll: NodeJS.Immediate | undefined;
    const pump = () => {
      const now = performance.now();
      while (sent < opts.amount && started + sent * intervalMs <= now) {
        send(started + sent * intervalMs);
        sent++;
      }
      if (sent >= opts.amount) return;
      // The next request is sent when it is due, not up to a timer tick later: within a
      // millisecond of it, the loop polls (setImmediate: sockets are still served between two
      // polls); further off, a timer wakes it a millisecond early.
      const dueIn = started + sent * intervalMs - performance.now();
      if (dueIn > 2) tick = setTimeout(pump, dueIn - 1);
      else poll = setImmediate(pump);
    };
    const cap = setTimeout(() => {
      capped = true;
      finish();
    }, opts.maxSeconds * 1000);
    pump();
  });
}
