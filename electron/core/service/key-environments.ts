/**
 * A key's status per environment (issue 26 item 1; DESIGN.md "Environments": "A key's status
 * (active, next, retired) belongs to an environment: one key may be active in one and unused in
 * another"). One rule, one place: the Keys page, `keys list --json` and every signing form read
 * the statuses this module derives from the environments file, never the key store's single
 * profile-wide status, which a walkthrough in another environment may have changed.
 *
 * In an environment, a key is `active` when it is the environment's active_kid and `retired`
 * when it was the active_kid before and was replaced there (env.save keeps the list); a key in
 * neither is unused there and has no status in it.
 */
import { statusIn } from '../../contract/key-status';
import type { KeyEnvironmentStatus, KeyInfo } from '../../contract/schemas/keys';
import type { Environment } from '../../contract/schemas/service';

export { preferredKid, statusIn } from '../../contract/key-status';

/** The per-environment part of an environment's stored profile. */
export interface KeyProfile {
  active_kid: string | null;
  retired_kids: string[];
}

/**
 * The retired list after the active key becomes `next`: the key it replaces joins the list, the
 * key that becomes active leaves it (it is active again).
 *
 * @example
 * retiredAfter({ active_kid: 'a', retired_kids: [] }, 'b'); // ['a']
 */
export function retiredAfter(profile: KeyProfile, next: string | null): string[] {
  const retired = profile.retired_kids.filter((kid) => kid !== next);
  const replaced = profile.active_kid;
  if (replaced !== null && replaced !== next && !retired.includes(replaced)) retired.push(replaced);
  return retired;
}

/**
 * Each key with its status in every environment that uses it (`environments`, in the
 * environments' order, the sandbox first).
 *
 * @example
 * withEnvironments(await keys.list(), (await envs.list()).environments)[0].environments;
 * // [{ environment: 'sandbox', name: 'Sandbox', status: 'active' }]
 */
export function withEnvironments(keys: KeyInfo[], environments: Environment[]): KeyInfo[] {
  return keys.map((key) => {
    const list: KeyEnvironmentStatus[] = [];
    for (const env of environments) {
      const status = statusIn(env, key.kid);
      if (status) list.push({ environment: env.id, name: env.name, status });
    }
    return { ...key, environments: list };
  });
}

/** One row of `keys list --json` (DESIGN.md "Command line", with issue 26's `environment`). */
export interface KeyListRow {
  kid: string;
  alg: string;
  status: KeyInfo['status'];
  expires: string | null;
  /** The environment the status belongs to (its id, "sandbox" for the built-in one), or null. */
  environment: string | null;
}

/**
 * The rows of `keys list --json`: one per environment a key has a status in (its status there),
 * and one with the profile-wide status and `environment: null` for a key no environment uses.
 * The members DESIGN fixes ({kid, alg, status, expires}) keep their meaning for a reader that
 * looks a kid up: its first row is its status in the first environment that uses it, the
 * sandbox first.
 *
 * @example
 * keyListRows(withEnvironments(keys, envs)); // [{kid, alg, status: 'active', expires, environment: 'sandbox'}, …]
 */
export function keyListRows(keys: KeyInfo[]): KeyListRow[] {
  const row = (k: KeyInfo, status: KeyInfo['status'], environment: string | null): KeyListRow => ({
    kid: k.kid,
    alg: k.alg,
    status,
    expires: k.expires,
    environment,
  });
  return keys.flatMap((k) => {
    const envs = k.environments ?? [];
    if (envs.length === 0) return [row(k, k.status, null)];
    return envs.map((e) => row(k, e.status, e.environment));
  });
}
