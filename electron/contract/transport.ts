/**
 * Names both ends of each transport agree on. The browser-mode wire protocol:
 *
 * - The page is opened at `http://127.0.0.1:<ui-port>/?token=<token>`. The headless host checks
 *   the token, sets it as an HttpOnly SameSite=Strict cookie named for the port (so the page's own assets
 *   load, and every later tab on this origin works without the token in its URL) and
 *   serves the renderer. The renderer keeps the token (sessionStorage) and drops it from the URL.
 * - A call: `POST /api/call/<method>` with the JSON argument as body (empty body = no argument)
 *   and the token in the `X-DETS-Token` header. The answer is always a JSON envelope
 *   `{ok:true,value} | {ok:false,error:{code,message}}` with status 200, except that a request
 *   refused before reaching the core (no/wrong token 401, foreign Host/Origin 403, unknown path
 *   404, body too large 413) gets that status and `{ok:false,error:{code,message}}`.
 * - Live events: `GET /api/events?token=<token>` as Server-Sent Events; each message has
 *   `event: <event name>` (e.g. `app.noticed`) and `data: <JSON payload>`.
 *
 * - A one-time download the core prepared (e.g. customers with their secret keys):
 *   `GET /api/download/<ticket>`, served once as an attachment, token or cookie required.
 *
 * In the desktop app, preload exposes the facade as `window.detsConsole`.
 */
export const TRANSPORT = {
  callPathPrefix: '/api/call/',
  eventsPath: '/api/events',
  downloadPathPrefix: '/api/download/',
  tokenHeader: 'X-DETS-Token',
  tokenQuery: 'token',
  tokenCookie: 'dets_console_token',
  preloadGlobal: 'detsConsole',
} as const;
