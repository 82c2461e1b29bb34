// The part of autocannon 9's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface RequestParams {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Called for every request built; return the request to send. */
      setupRequest?: (
        req: RequestParams,
        context: Record<string, unknown>,
      ) => RequestParams | null | undefined;
      /** Called with every response to this request, before the connection's next request is built. */
      onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
    }
    interface Options {
      url: string;
      connections?: number;
      /** Stop after this many requests (duration is then ignored). */
      amount?: number;
      duration?: number;
      /** Requests per second over all connections (rate-limited run). */
      overallRate?: number;
      /** Per-request timeout, seconds. */
      timeout?: number;
      /** How often the stop flag is looked at (and stats sampled), ms. */
      sampleInt?: number;
      method?: string;
      headers?: Record<string, string>;
      requests?: RequestParams[];
      /** Every response body; false counts a mismatch. */
      verifyBody?: (body: string) => boolean;
      skipAggregateResult?: boolean;
    }
    interface Result {
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      resets: number;
      '2xx': number;
      totalCompletedRequests: number;
      statusCodeStats: Record<string, { count: number }>;
      /** Seconds, rounded to 10 ms. */
      duration: number;
    }
    interface Instance extends EventEmitter {
      stop(): void;
      on(
        event: 'response',
        listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void,
      ): this;
      on(event: 'reqError', listener: (error: Error) => void): this;
      on(event: string, listener: (...args: unknown[]) => void): this;
    }
  }

  function autocannon(
    opts: autocannon.Options,
    cb: (err: Error | null, result: autocannon.Result) => void,
  ): autocannon.Instance;
  export = autocannon;
}
