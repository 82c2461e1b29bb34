/**
 * What callers see of the stored environments: the sandbox follows its listener's live URL,
 * a real environment's JWKS URL is its own or the one derived from base_url (spec 2.2).
 */
import { ConsoleError } from '../../contract/errors';
import type { Environment, Environments } from '../../contract/schemas/service';
import { derivedJwksUrl } from '../common';
import { SANDBOX_ENVIRONMENT_ID, type StoredFile, type StoredReal } from './environments-file';

export const SANDBOX_NAME = 'Sandbox';

/** The sandbox listener's URL while it runs, else null (read on every call: it can start later). */
export type SandboxUrl = () => string | null;

/** A URL without its trailing slashes. */
export function stripTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}

function sandboxView(state: StoredFile, sandboxUrl: SandboxUrl): Environment {
  const url = sandboxUrl();
  const base = url ? stripTrailingSlashes(url) : null;
  // The ssh tunnel's settings are the tunnel status's to show (tunnel.status `ssh`).
  const { ssh_tunnel: _ssh, ...profile } = state.sandbox;
  return {
    id: SANDBOX_ENVIRONMENT_ID,
    name: SANDBOX_NAME,
    kind: 'sandbox',
    base_url: base,
    ...profile,
    service_jwks_url: null,
    effective_jwks_url: base ? derivedJwksUrl(base) : null,
    created_at: null,
  };
}

function realView(env: StoredReal): Environment {
  return {
    id: env.id,
    name: env.name,
    kind: 'real',
    base_url: env.base_url,
    counterparty_guid: env.counterparty_guid,
    active_kid: env.active_kid,
    default_obj: env.default_obj,
    default_sub: env.default_sub,
    service_jwks_url: env.service_jwks_url,
    effective_jwks_url: env.service_jwks_url ?? derivedJwksUrl(env.base_url),
    public_url: env.public_url,
    retired_kids: env.retired_kids,
    created_at: env.created_at,
  };
}

/**
 * Every environment, the sandbox first, and which is active.
 *
 * @example
 * environmentsView(state, () => null).environments[0]; // {id: 'sandbox', base_url: null, …}
 */
export function environmentsView(state: StoredFile, sandboxUrl: SandboxUrl): Environments {
  return {
    active_id: state.active_id,
    environments: [sandboxView(state, sandboxUrl), ...state.environments.map(realView)],
  };
}

/** NOT_FOUND on the id field: no environment has `id`. */
export function environmentNotFound(id: string): ConsoleError {
  return new ConsoleError(
    'NOT_FOUND',
    `no environment with id ${JSON.stringify(id)}: env.list shows the ids (the sandbox is "sandbox")`,
    { field: 'id' },
  );
}

/** The environment `id`; NOT_FOUND on the id field. */
export function findEnvironment(state: StoredFile, id: string, sandboxUrl: SandboxUrl): Environment {
  if (id === SANDBOX_ENVIRONMENT_ID) return sandboxView(state, sandboxUrl);
  const env = state.environments.find((e) => e.id === id);
  if (!env) throw environmentNotFound(id);
  return realView(env);
}
