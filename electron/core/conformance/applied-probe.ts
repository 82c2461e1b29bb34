/**
 * The self-check's "applied exactly once" probe (DESIGN.md "Conformance of a bank's notification
 * endpoints", `--notify-probe`): `GET /<transaction_id>` answers `{"count": N}`, how many times
 * the private bank copy applied that transaction. The console's bank applies a notification by
 * storing it as `accepted`; a repeat (the same id in any letter case, spec 2.7) is stored as
 * `repeat` and applies nothing, so N is the count of accepted notifications carrying the id.
 *
 * Threat model: loopback only, for the length of one self-check; it reads the private copy's own
 * store and answers a count, nothing else.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startServer } from '../http';
import type { EventStore } from '../store';

/** Longer than any transaction_id the store keeps a column for: not a question to answer. */
const MAX_ID = 100;

export interface AppliedProbe {
  /** The probe's base URL: the runner GETs `{url}/{transaction_id}`. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the probe over `store` on an ephemeral 127.0.0.1 port.
 *
 * @example
 * const probe = await startAppliedProbe(copy.store);
 * await runNotifyCases({ notifyUrl: copy.url, prefix: copy.notifyPrefix, probeUrl: probe.url, giveUpMs: 5000 });
 */
export async function startAppliedProbe(store: EventStore): Promise<AppliedProbe> {
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    let id: string;
    try {
      id = decodeURIComponent((req.url ?? '/').split('?', 1)[0]!.slice(1));
    } catch {
      sendJson(res, 400, {
        error: 'bad_request',
        detail: 'the path is not a percent-encoded transaction_id',
      });
      return;
    }
    if (req.method !== 'GET') {
      sendJson(res, 405, { error: 'method_not_allowed', detail: 'GET only' }, { Allow: 'GET' });
      return;
    }
    if (id === '' || id.length > MAX_ID || id.includes('/')) {
      sendJson(res, 400, { error: 'bad_request', detail: 'GET /<transaction_id>' });
      return;
    }
    store.query({ kind: 'notification', outcome: 'accepted', transaction_id: id, limit: 1 }).then(
      (found) => sendJson(res, 200, { count: found.total }),
      (err: unknown) =>
        sendJson(res, 500, { error: 'internal', detail: err instanceof Error ? err.message : String(err) }),
    );
  };
  const server = await startServer(handle, { host: '127.0.0.1', port: 0 });
  return { url: server.url, close: () => server.close() };
}
