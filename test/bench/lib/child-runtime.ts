/**
 * The child side of children.ts, for the bench's own server entries (test/bench/servers/*):
 * announce the ready line, and stop cleanly on SIGTERM/SIGINT, when the parent's stdin pipe
 * closes (the bench died) or after a self-imposed maximum lifetime, whichever comes first.
 */
import type { Server } from 'node:http';

/** Prints the one ready line the bench waits for. */
export function announce(fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ready: true, ...fields })}\n`);
}

/**
 * Runs `close` once on the first stop cause, then exits 0 (process.exit writes a --cpu-prof
 * profile). BENCH_CHILD_MAX_SECONDS (default 900) bounds the child's life.
 */
export function stopOn(close: () => Promise<void>): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), 5_000).unref();
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`close failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  if (process.env.BENCH_PARENT_STDIN === '1') {
    process.stdin.on('end', stop);
    process.stdin.on('close', stop);
    answerCpuQueries();
    process.stdin.resume();
  }
  const maxSeconds = Number(process.env.BENCH_CHILD_MAX_SECONDS ?? 900);
  setTimeout(stop, (Number.isFinite(maxSeconds) && maxSeconds > 0 ? maxSeconds : 900) * 1000).unref();
}

/**
 * The parent asks a child for its CPU time by writing `cpu` on a line of the child's stdin; the
 * child answers one stdout line `{"cpu":{"user":µs,"system":µs}}` (process.cpuUsage(): every
 * thread of the process, libuv's thread pool included). The bench reads it before and after a
 * round, so CPU per request is the delta ÷ the round's responses, whatever the load generator
 * costs. Answered between rounds, when the child is idle, so the query costs the round nothing.
 */
function answerCpuQueries(): void {
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (line === 'cpu') process.stdout.write(`${JSON.stringify({ cpu: process.cpuUsage() })}\n`);
    }
  });
}

/** Closes a node:http server, dropping its keep-alive connections. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}

/** Listens on 127.0.0.1, port 0 (any free port), and resolves to the base URL. */
export function listenLoopback(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      if (addr === null || typeof addr === 'string') return reject(new Error('no TCP address'));
      resolve(`http://127.0.0.1:${addr.port}`);
    });
  });
}
