/**
 * The public URL of the bank endpoints (issue 14) and where it comes from, first found wins:
 * 1. `serve --public-url` (this run; e.g. the TLS front on an ssh host),
 * 2. the running tunnel's URL,
 * 3. the active environment's `public_url`, when environments carry one,
 * 4. the profile's, saved on the Bank page (`<data-dir>/public-url.json`).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConsoleError } from '../../contract';
import { NotifyRoute } from '../../contract/schemas/bank';
import { PublicUrl, type TunnelInfo, type TunnelStatus } from '../../contract/schemas/tunnel';
import { writeFileAtomic } from '../common';

const FILE = 'public-url.json';

/** A public URL and which of the four sources it came from (null: none). */
export interface PublicUrlInForce {
  url: string | null;
  source: TunnelStatus['public_url_source'];
}

/**
 * The profile's saved public URL (`<data-dir>/public-url.json`).
 *
 * @example
 * const saved = new SavedPublicUrl(dataDir);
 * await saved.write('https://bank.example'); // validated by the contract's PublicUrl
 * await saved.read(); // 'https://bank.example'
 */
export class SavedPublicUrl {
  readonly file: string;

  constructor(dataDir: string) {
    this.file = path.join(dataDir, FILE);
  }

  /** The saved URL, null when none; STATE_DAMAGED naming the file when it cannot be used. */
  async read(): Promise<string | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new ConsoleError('STATE_DAMAGED', `${this.file} cannot be read: ${(err as Error).message}`);
    }
    try {
      const doc = JSON.parse(text) as { public_url?: unknown };
      return doc.public_url === null ? null : PublicUrl.parse(doc.public_url);
    } catch {
      throw new ConsoleError(
        'STATE_DAMAGED',
        `${this.file} does not hold {"public_url": "<http(s) URL>"}: fix or delete it, or save the public URL again on the Bank page`,
      );
    }
  }

  /** Saves `url` (null clears it), replacing the file atomically. */
  async write(url: string | null): Promise<void> {
    const value = url === null ? null : PublicUrl.parse(url);
    await writeFileAtomic(this.file, `${JSON.stringify({ public_url: value }, null, 2)}\n`);
  }
}

/** Where the public URL can come from, besides the tunnel. */
export interface PublicUrlSources {
  flag: string | null | undefined;
  environment: (() => Promise<string | null>) | undefined;
  saved: SavedPublicUrl;
}

/**
 * The public URL in force, given one snapshot of the tunnel (so a status never disagrees with
 * itself). A source that fails to answer is skipped.
 *
 * @example
 * await publicUrlInForce(sources, tunnel.info()); // {url: 'https://x.trycloudflare.com', source: 'tunnel'}
 */
export async function publicUrlInForce(
  sources: PublicUrlSources,
  tunnel: TunnelInfo | undefined,
): Promise<PublicUrlInForce> {
  if (sources.flag) return { url: sources.flag, source: 'flag' };
  if (tunnel?.state === 'up' && tunnel.url) return { url: tunnel.url, source: 'tunnel' };
  const env = await sources.environment?.().catch(() => null);
  if (env) return { url: env, source: 'environment' };
  const saved = await sources.saved.read().catch(() => null);
  if (saved) return { url: saved, source: 'profile' };
  return { url: null, source: null };
}

/**
 * What the bank gives the service for a bank URL: bank_auth_url (spec 4.2) and the notification
 * URLs under the bank's prefix (spec 4.3). One rule for the Bank page and the walkthrough.
 *
 * @example
 * registerUrls('https://bank.example', '/api/svc/notify').notification_urls[0]; // 'https://bank.example/api/svc/notify/…'
 */
export function registerUrls(
  url: string,
  prefix: string,
): { bank_auth_url: string; notification_urls: string[] } {
  return {
    bank_auth_url: url,
    notification_urls: NotifyRoute.options.map((name) => `${url}${prefix}/${name}`),
  };
}
