/**
 * The one rule by which the browser-mode page knows the host refused its access token: HTTP 401
 * from the host itself (electron/headless/server.ts answers every /api request without the
 * right X-DETS-Token header so). The core's own answers travel as envelopes with status 200,
 * so an UNAUTHORIZED error inside one (the sandbox refusing a bank's token) is not this.
 */
import { isErrorCode } from '../../electron/contract';

const FALLBACK = 'the console host refused the access token (HTTP 401)';

/**
 * The host's reason when `status` says the access token was refused, else null.
 *
 * @example
 * accessRefusal(401, '{"ok":false,"error":{"code":"UNAUTHORIZED","message":"missing …"}}'); // 'missing …'
 * accessRefusal(200, '{"ok":true,"value":1}'); // null
 */
export function accessRefusal(status: number, bodyText: string): string | null {
  if (status !== 401) return null;
  try {
    const body = JSON.parse(bodyText) as { error?: { code?: unknown; message?: unknown } };
    const message = body.error?.message;
    if (isErrorCode(body.error?.code) && typeof message === 'string' && message !== '') return message;
  } catch {
    // Not the host's envelope (a proxy's page): the status alone says it.
  }
  return FALLBACK;
}
