/**
 * Names both ends of each transport agree on. The browser-mode wire protocol:
 *
 * - The page is opened at `http://127.0.0.1:<ui-port>/?token=<token>`. The page and its assets
 *   are public code and load without any credential; the renderer takes the token from its own
 *   URL, keeps it in localStorage (scoped to this origin, port included, so every later tab on
 *   it works without the link) and drops it from the address bar. The host never sets a
 *   cookie and never reads one: a browser sends 127.0.0.1 cookies to every port (DESIGN.md
 *   "Architecture").
 * - Everything under `/api` needs the token in the `X-DETS-Token` header, and only there (not in
 *   a cookie, not in the query).
 * - A call: `POST /api/call/<method>` with the JSON argument as body (empty body = no argument).
 *   The answer is always a JSON envelope `{ok:true,value} | {ok:false,error:{code,message}}`
 *   with status 200, except that a request refused before reaching the core (no/wrong token
 *   401, foreign Host/Origin 403, unknown path 404, body too large 413) gets that status and
 *   `{ok:false,error:{code,message}}`.
 * - Live events: `GET /api/events` as Server-Sent Events (read with fetch, since EventSource
 *   cannot send a header); each message has `event: <event name>` (e.g. `app.noticed`) and
 *   `data: <JSON payload>`.
 * - A one-time download the core prepared (e.g. customers with their secret keys):
 *   `GET /api/download/<ticket>`, served once as an attachment.
 *
 * In the desktop app, preload exposes the facade as `window.detsConsole`.
 */
export const TRANSPORT = {
  apiRoot: '/api',
  callPathPrefix: '/api/call/',
  eventsPath: '/api/events',
  downloadPathPrefix: '/api/download/',
  tokenHeader: 'X-DETS-Token',
  tokenQuery: 'token',
  preloadGlobal: 'detsConsole',
} as const;
