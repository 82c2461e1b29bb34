/**
 * The CLI process's stdout and stderr as commands write them, so a reader that goes away ends
 * the output quietly instead of crashing the process with an EPIPE stack trace
 * (`dets-console events | head -1`).
 *
 * What `git log | head -1` does is die by SIGPIPE: no message. Node ignores SIGPIPE, so a write
 * to a closed pipe fails with EPIPE instead, as an 'error' event that nobody handled. Here the
 * failed stream is marked closed, later writes are dropped, and the command, told through
 * CliIo.stdoutClosed, stops producing output and ends with its own exit status (0 for a listing:
 * the reader chose to stop, nothing failed; a `jwt inspect` keeps its verdict). Exiting 0 rather
 * than as killed by SIGPIPE (141 in a shell) also keeps `set -o pipefail` scripts that cut the
 * output short working. Any other write error (a full disk under `events > file`) is not quiet:
 * it is reported in one line and the exit status is 1, so no output is lost unsaid.
 */

/** One of the process's output streams, guarded. */
export interface GuardedOutput {
  write(text: string): void;
  /** True once nothing more can be written (EPIPE, or another write error). */
  closed(): boolean;
  /** The error that closed it, unless it was the reader going away (EPIPE). */
  failure(): NodeJS.ErrnoException | null;
}

/** Codes that mean the reader went away rather than the write failing. */
const READER_GONE = new Set(['EPIPE', 'ECONNRESET', 'ERR_STREAM_DESTROYED']);

/**
 * Wraps a writable stream (process.stdout, process.stderr) so its write errors close it instead
 * of throwing.
 *
 * @example
 * const out = guardOutput(process.stdout);
 * out.write('line\n');
 * if (out.closed()) return; // the reader has gone
 */
export function guardOutput(stream: NodeJS.WritableStream & { errored?: Error | null }): GuardedOutput {
  let closed = false;
  let failure: NodeJS.ErrnoException | null = null;
  const close = (err: unknown) => {
    closed = true;
    const e = err as NodeJS.ErrnoException;
    if (!READER_GONE.has(e?.code ?? '') && failure === null) failure = e;
  };
  stream.on('error', close);
  return {
    write(text) {
      if (closed) return;
      try {
        stream.write(text);
      } catch (err) {
        // A file's stream writes synchronously and throws (ENOSPC under `events > file`).
        close(err);
        return;
      }
      // A pipe's write fails synchronously; the 'error' event follows on a later tick, but
      // the stream records the error at once, so a long listing stops at the next line.
      if (stream.errored) close(stream.errored);
    },
    closed: () => closed,
    failure: () => failure,
  };
}
