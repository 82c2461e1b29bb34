import http from 'node:http';
import { TRANSPORT } from '../../../electron/contract';
import { uiToken } from '../helpers';

/**
 * Follows a page's live event stream (the local UI of `serve` or `attach`, its per-launch token
 * from the URL) and hands each `event`'s payload to `onPayload`. The caller destroys the request.
 */
export function watchPageEvents(
  ui: string,
  event: string,
  onPayload: (payload: unknown) => void,
): http.ClientRequest {
  const pattern = new RegExp(`event: ${event.replace(/\./g, '\\.')}\\ndata: (.*)\\n`, 'g');
  const req = http.get(
    new URL(TRANSPORT.eventsPath, ui),
    { headers: { [TRANSPORT.tokenHeader]: uiToken(ui) } },
    (res) => {
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        for (const m of d.matchAll(pattern)) onPayload(JSON.parse(m[1]!));
      });
    },
  );
  req.on('error', () => undefined);
  return req;
}
