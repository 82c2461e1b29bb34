/**
 * Every environment's service JWKS, as the bank endpoints judge callbacks against them (issue 26
 * item 1; DESIGN.md "Environments": a callback is judged against the service of the environment
 * it belongs to, recognised by the kid its token names, never against whichever environment the
 * header shows). The order is the environments' own (the sandbox first), not the header's, so a
 * switch of the header changes no verdict; the header's environment is only flagged `active`
 * (the Bank page shows its JWKS).
 */
import type { Environments } from '../../contract/schemas/service';
import type { JwksSource } from '../jwt';

/**
 * One source per environment with a JWKS URL; the sandbox's is its listener's (`sandboxJwksUrl`)
 * when the environment list has none for it yet.
 *
 * @example
 * environmentJwksSources(await envs.list(), 'http://127.0.0.1:7302/api/v1/.well-known/jwks.json');
 */
export function environmentJwksSources(list: Environments, sandboxJwksUrl: string | null): JwksSource[] {
  const sources: JwksSource[] = [];
  for (const env of list.environments) {
    const url = env.effective_jwks_url ?? (env.kind === 'sandbox' ? sandboxJwksUrl : null);
    if (url === null) continue;
    sources.push({ environment: env.id, name: env.name, url, active: env.id === list.active_id });
  }
  return sources;
}
