/**
 * One bounded load run against one target with autocannon, programmatic: bounded by count
 * (`amount`) and by a hard time cap (autocannon ignores `duration` when `amount` is set, so the
 * cap stops it from outside). Every request is built by the target (to rotate tokens), every
 * response body can be checked, every latency is kept for exact pooled percentiles.
 */
import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { summarizeLatencies, type RoundStats } from './stats';

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Handed back to the target's onResponse with this request's answer (e.g. a transaction_id). */
  tag?: string;
}

export interface LoadTarget {
  /** Short, stable id used in results.json, e.g. "sandbox", "crypto-floor". */
  id: string;
  /** What a reader sees in the table. */
  title: string;
  /** Base URL on 127.0.0.1. */
  url: string;
  /** Called once per request sent. */
  nextRequest: () => RequestSpec;
  /** Called with every response body; false counts a mismatch (which breaks the bench). */
  verifyBody?: (body: string) => boolean;
  /** Called with every response's status and the tag of the request it answers. */
  onResponse?: (status: number, tag: string | undefined) => void;
}

export interface LoadOptions {
  connections: number;
  /** Requests to send in total (at least `connections`). */
  amount: number;
  /** Hard cap: the run is stopped after this long even if `amount` is not reached. */
  maxSeconds: number;
  /** Per-request timeout, seconds (a timeout is an error). Default 10. */
  requestTimeoutSeconds?: number;
  /**
   * Fixed rate instead of as fast as possible: autocannon's `overallRate`, requests per second
   * over all connections (each connection sends its share of a second's budget, then waits for
   * the next second).
   */
  overallRate?: number;
}

export interface LoadResult extends RoundStats {
  /** Every response's latency, ms, in arrival order. */
  latencies: number[];
  /** Status code → count, e.g. {"200": 5000}. */
  statusCodes: Record<string, number>;
}

const LOOPBACK = /^http:\/\/127\.0\.0\.1:\d+$/;

/** A run's result from its counts and latencies (throughput and the latency summary derived). */
export function loadResult(r: Omit<LoadResult, 'responses' | 'rps' | 'latencyMs'>): LoadResult {
  return {
    ...r,
    responses: r.latencies.length,
    rps: r.elapsedMs > 0 ? (r.latencies.length * 1000) / r.elapsedMs : 0,
    latencyMs: summarizeLatencies(r.latencies),
  };
}

/** Runs the load and resolves with its counts, throughput and latencies. */
export function runLoad(target: LoadTarget, opts: LoadOptions): Promise<LoadResult> {
  if (!LOOPBACK.test(target.url))
    throw new Error(`${target.id}: the bench only loads 127.0.0.1, got ${target.url}`);
  const amount = Math.max(opts.amount, opts.connections);
  const latencies: number[] = [];
  let lastResponseAt = 0;
  let capped = false;
  const started = performance.now();

  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        connections: opts.connections,
        amount,
        timeout: opts.requestTimeoutSeconds ?? 10,
        // autocannon looks at its stop flag once per sample interval; 1 s (its default) would
        // leave every round idle for up to a second after its last response.
        sampleInt: 50,
        requests: [
          {
            setupRequest: (req, context) => {
              const spec = target.nextRequest();
              // One request in flight per connection (no pipelining): the context carries the
              // tag of the request its next response answers.
              context.tag = spec.tag;
              return {
                ...req,
                method: spec.method,
                path: spec.path,
                headers: { ...spec.headers },
                body: spec.body ?? '',
              };
            },
            ...(target.onResponse
              ? {
                  onResponse: (status: number, _body: string, context: Record<string, unknown>) =>
                    target.onResponse!(status, typeof context.tag === 'string' ? context.tag : undefined),
                }
              : {}),
          },
        ],
        ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
        ...(target.verifyBody ? { verifyBody: target.verifyBody } : {}),
        skipAggregateResult: true,
      },
      (err, result) => {
        clearTimeout(cap);
        if (err) return reject(err);
        const elapsedMs = (lastResponseAt || performance.now()) - started;
        const statusCodes = Object.fromEntries(
          Object.entries(result.statusCodeStats).map(([code, v]) => [code, v.count]),
        );
        const ok2xx = Object.entries(statusCodes).reduce(
          (n, [code, c]) => (code.startsWith('2') ? n + c : n),
          0,
        );
        resolve(
          loadResult({
            latencies,
            statusCodes,
            ok2xx,
            non2xx: result.non2xx,
            errors: result.errors,
            timeouts: result.timeouts,
            mismatches: result.mismatches,
            elapsedMs,
            capped,
          }),
        );
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTimeMs) => {
      latencies.push(responseTimeMs);
      lastResponseAt = performance.now();
    });
    const cap = setTimeout(() => {
      capped = true;
      instance.stop();
    }, opts.maxSeconds * 1000);
  });
}
