/**
 * An HTTP-level refusal with a status and a machine-readable code, raised by the generic
 * helpers in this folder (body too large, wrong content type, malformed JSON) before any route
 * logic runs. Servers turn it into their own error body.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    /** snake_case, e.g. `payload_too_large`. */
    readonly code: string,
    message: string,
    /** Response headers the refusal needs (e.g. `Allow` on a 405, `Connection: close` on a 413). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
