/**
 * The reach fact of a real environment (step 5): the public URL in force, the URLs to register,
 * the last probe from outside of that URL, and forward mode.
 */
import type { WalkthroughReach } from '../../../contract/schemas/walkthrough';
import type { CoreDeps } from '../../core-types';
import { PROBE_PATH, registerUrls } from '../../tunnel';
import { messageOf } from '../message';

/**
 * A real environment's road in (issue 14 item 5): the public URL in force and the last probe of
 * it are the tunnel service's (one rule: tunnel/service.ts), forward mode is the bank's. Without
 * a public URL the listener's own URL is what there is, with the reason it will not do.
 */
export async function gatherReach(
  deps: CoreDeps,
  listenerUrl: string | null,
  notifyPrefix: string,
): Promise<WalkthroughReach> {
  const forwardUrl = await deps
    .bank()
    .then(async (b) => (await b.status()).forward.url)
    .catch(() => null);
  let status: Awaited<ReturnType<CoreDeps['tunnel']['status']>>;
  try {
    status = await deps.tunnel.status();
  } catch (err) {
    return {
      public_url: null,
      public_url_source: null,
      ...(listenerUrl
        ? registerUrls(listenerUrl, notifyPrefix)
        : { bank_auth_url: null, notification_urls: [] }),
      warning: `the public URL cannot be read: ${messageOf(err)}`,
      probe: null,
      forward_url: forwardUrl,
    };
  }
  const url = status.public_url;
  const probe = status.probe;
  // Only a probe of the URL in force counts: a tunnel re-made on another port must be tested again.
  const current =
    probe && (url ? probe.url?.startsWith(`${url}${PROBE_PATH}`) === true : probe.outcome === 'no_public_url')
      ? probe
      : null;
  let warning: string | null = null;
  if (!url && listenerUrl) {
    warning = status.listener.loopback_only
      ? `There is no public URL: ${listenerUrl} is this machine's loopback address, which the service cannot reach from its network. Start a tunnel (Bank page, or serve --tunnel) or enter the URL of your own front; register the listener's URL only if the service runs on this machine.`
      : `There is no public URL: the service must reach this machine directly at ${status.listener.reachable_on.join(', ')}. Register a URL on one of those addresses that the service's network can reach, or start a tunnel.`;
  }
  const shown = url ?? listenerUrl;
  return {
    public_url: url,
    public_url_source: status.public_url_source,
    ...(shown ? registerUrls(shown, notifyPrefix) : { bank_auth_url: null, notification_urls: [] }),
    warning,
    probe: current,
    forward_url: forwardUrl,
  };
}
