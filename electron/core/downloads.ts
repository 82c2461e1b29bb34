/**
 * One-time downloads: a file the core prepares for the user (customers WITH their secret keys)
 * that the host hands to the browser's own save flow, so its content never travels in a
 * ConsoleApi answer that the page reads (issue 13 item 7: "writes the file without the key
 * passing through a list view").
 *
 * Threat model. The file holds secrets, so a ticket is 32 random bytes (unguessable), is served
 * once and then forgotten, and expires after {@link DOWNLOAD_TTL_MS} whether used or not. The
 * content lives in this process's memory only, never on disk. The host that serves a ticket
 * still demands its own access token (headless: the X-DETS-Token header, never a cookie, with
 * Host and Origin checks), so a leaked ticket alone is worth nothing to another local process.
 */
import { randomBytes } from 'node:crypto';
import { TRANSPORT } from '../contract/transport';

/** How long a prepared download waits to be fetched. */
export const DOWNLOAD_TTL_MS = 60_000;
/** At most this many downloads wait at once; the oldest is dropped first. */
const MAX_PENDING = 8;

export interface PreparedDownload {
  content: string;
  filename: string;
  mime: string;
}

export interface Downloads {
  /** Keeps `file` for one fetch; returns its ticket and when it expires (ISO 8601). */
  offer(file: PreparedDownload): { ticket: string; expires_at: string };
  /** The file for `ticket`, removed as it is taken; undefined when unknown, taken or expired. */
  take(ticket: string): PreparedDownload | undefined;
}

/**
 * @example
 * const downloads = createDownloads();
 * const { ticket } = downloads.offer({ content: '[…]', filename: 'users.json', mime: 'application/json' });
 * downloads.take(ticket); // the file, once
 * downloads.take(ticket); // undefined
 */
export function createDownloads(now: () => number = Date.now): Downloads {
  const pending = new Map<string, PreparedDownload & { expires: number }>();
  const sweep = () => {
    const t = now();
    for (const [ticket, d] of pending) if (d.expires <= t) pending.delete(ticket);
  };
  return {
    offer(file) {
      sweep();
      while (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value as string);
      const ticket = randomBytes(32).toString('base64url');
      const expires = now() + DOWNLOAD_TTL_MS;
      pending.set(ticket, { ...file, expires });
      return { ticket, expires_at: new Date(expires).toISOString() };
    },
    take(ticket) {
      sweep();
      const found = pending.get(ticket);
      if (!found) return undefined;
      pending.delete(ticket);
      return { content: found.content, filename: found.filename, mime: found.mime };
    },
  };
}

/** The ticket of a download path (`/api/download/<ticket>`), or null when `path` is not one. */
export function downloadTicket(path: string): string | null {
  return path.startsWith(TRANSPORT.downloadPathPrefix)
    ? path.slice(TRANSPORT.downloadPathPrefix.length)
    : null;
}

/** What a host answers for a ticket: the file once, as an attachment never cached, or why not. */
export type DownloadAnswer =
  { status: 200; headers: Record<string, string>; body: Buffer } | { status: 404; message: string };

/**
 * The one rule both hosts serve a ticket by (headless `GET /api/download/<ticket>`, desktop
 * `app://console/api/download/<ticket>`): the ticket is taken here, so call it only for a GET
 * (a HEAD or a preflight must not spend it). The host adds its own security headers.
 *
 * @example
 * const answer = downloadAnswer(core.downloads, downloadTicket(path)!);
 * if (answer.status === 404) sendError(res, 404, 'NOT_FOUND', answer.message);
 */
export function downloadAnswer(
  downloads: Pick<Downloads, 'take'> | undefined,
  ticket: string,
): DownloadAnswer {
  const file = downloads?.take(ticket);
  if (!file) {
    return { status: 404, message: 'this download was already taken or has expired: export again' };
  }
  const body = Buffer.from(file.content, 'utf8');
  return {
    status: 200,
    body,
    headers: {
      'Content-Type': `${file.mime}; charset=utf-8`,
      'Content-Length': String(body.length),
      'Content-Disposition': `attachment; filename="${file.filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
      'Cache-Control': 'no-store',
    },
  };
}
