/**
 * The one client per JWKS URL a person gives (jwks-client.ts), shared per fetch implementation.
 */
import { JwksClient } from './jwks-client';

/** Clients shared per fetch implementation and URL (at most {@link SHARED_CLIENTS_MAX} URLs each). */
const shared = new WeakMap<typeof fetch, Map<string, JwksClient>>();
const SHARED_CLIENTS_MAX = 32;

/**
 * The one client for a JWKS URL that a person gives (the inspector's page and `--jwks-url`, the
 * service client's in-place check of a session_token, hence the walkthrough): every use of one
 * URL shares its cache and its one-fetch-a-second bound, the same as the bank endpoints'.
 *
 * @example
 * const { set, detail } = await sharedJwksClient(url, fetch).keySetFor(kid, Date.now() + 5000);
 */
export function sharedJwksClient(url: string, fetchImpl: typeof fetch): JwksClient {
  let perFetch = shared.get(fetchImpl);
  if (!perFetch) shared.set(fetchImpl, (perFetch = new Map()));
  let client = perFetch.get(url);
  if (client) {
    // Most recently used last, so the oldest is the first to go.
    perFetch.delete(url);
    perFetch.set(url, client);
    return client;
  }
  client = new JwksClient({ url: () => url, fetch: fetchImpl, now: Date.now, onChange: () => undefined });
  perFetch.set(url, client);
  if (perFetch.size > SHARED_CLIENTS_MAX) {
    const [oldest] = perFetch.keys();
    if (oldest !== undefined) {
      perFetch.get(oldest)?.stop();
      perFetch.delete(oldest);
    }
  }
  return client;
}
