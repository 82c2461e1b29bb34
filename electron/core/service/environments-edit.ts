/**
 * The rules of env.save (DESIGN.md "onboarding"): the sandbox's own URL and JWKS cannot be set,
 * names are unique (the sandbox's included, ignoring case), base_url is the service's root
 * (spec 4, 9: the console appends /api/v1/… itself), a new environment needs a name and a
 * base_url. Functions that change the state read from the file; the store writes it.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import type { SaveEnvironmentInput } from '../../contract/schemas/service';
import { NO_SSH_SETTINGS } from '../../contract/schemas/tunnel';
import { badArgument } from '../common';
import { SANDBOX_ENVIRONMENT_ID, type StoredFile, type StoredReal } from './environments-file';
import { retiredAfter, type KeyProfile } from './key-environments';
import { environmentNotFound, SANDBOX_NAME, stripTrailingSlashes } from './environments-view';

type SaveInput = z.output<typeof SaveEnvironmentInput>;

/**
 * base_url without trailing slashes; BAD_ARGUMENT when it ends in /api/v1.
 *
 * @example
 * checkBaseUrl('https://dets.example/'); // 'https://dets.example'
 * checkBaseUrl('https://dets.example/api/v1'); // throws BAD_ARGUMENT {field: 'base_url'}
 */
export function checkBaseUrl(raw: string): string {
  const url = stripTrailingSlashes(raw);
  if (/\/api\/v1$/i.test(url)) {
    throw badArgument(
      `base_url ${raw} ends in /api/v1: base_url is the service's root and the console appends ` +
        `/api/v1/… itself (spec 4, 9); drop the /api/v1`,
      'base_url',
    );
  }
  return url;
}

/** CONFLICT on the name field when another environment (or the sandbox) has `name`, ignoring case. */
export function checkNameFree(state: StoredFile, name: string, exceptId: string | undefined): void {
  const wanted = name.trim().toLowerCase();
  const clash =
    wanted === SANDBOX_NAME.toLowerCase()
      ? SANDBOX_NAME
      : state.environments.find((e) => e.id !== exceptId && e.name.trim().toLowerCase() === wanted)?.name;
  if (clash !== undefined) {
    throw new ConsoleError(
      'CONFLICT',
      `an environment is already named ${JSON.stringify(clash)}: names must be unique`,
      {
        field: 'name',
      },
    );
  }
}

/**
 * The per-profile fields the input sets (counterparty_guid, active_kid, default obj/sub); a new
 * active_kid retires the one it replaces in this environment only (key-environments.ts).
 */
function profileOf(input: SaveInput, current: KeyProfile) {
  return {
    ...(input.counterparty_guid !== undefined ? { counterparty_guid: input.counterparty_guid } : {}),
    ...(input.active_kid !== undefined
      ? { active_kid: input.active_kid, retired_kids: retiredAfter(current, input.active_kid) }
      : {}),
    ...(input.default_obj !== undefined ? { default_obj: input.default_obj } : {}),
    ...(input.default_sub !== undefined ? { default_sub: input.default_sub } : {}),
  };
}

function saveSandbox(state: StoredFile, input: SaveInput): string {
  const fixed = (['name', 'base_url', 'service_jwks_url', 'public_url'] as const).filter(
    (f) => input[f] !== undefined,
  );
  if (fixed[0] !== undefined) {
    throw badArgument(
      `the sandbox environment's ${fixed.join(', ')} cannot be set: its base_url is the sandbox ` +
        `listener's own URL and its JWKS the sandbox's; only counterparty_guid, active_kid, ` +
        `default_obj and default_sub are editable`,
      fixed[0],
    );
  }
  state.sandbox = { ...state.sandbox, ...profileOf(input, state.sandbox) };
  return SANDBOX_ENVIRONMENT_ID;
}

function updateReal(state: StoredFile, id: string, input: SaveInput): string {
  const index = state.environments.findIndex((e) => e.id === id);
  if (index < 0) throw environmentNotFound(id);
  const current = state.environments[index] as StoredReal;
  if (input.name !== undefined) checkNameFree(state, input.name, current.id);
  state.environments[index] = {
    ...current,
    ...profileOf(input, current),
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.base_url !== undefined ? { base_url: checkBaseUrl(input.base_url) } : {}),
    ...(input.service_jwks_url !== undefined ? { service_jwks_url: input.service_jwks_url } : {}),
    ...(input.public_url !== undefined ? { public_url: input.public_url } : {}),
  };
  return current.id;
}

function addReal(state: StoredFile, input: SaveInput): string {
  if (input.name === undefined) {
    throw badArgument('a new environment needs a name (e.g. "Staging")', 'name');
  }
  if (input.base_url === undefined) {
    throw badArgument(
      "a new environment needs base_url, the service's {base_url} (e.g. https://dets.staging.example)",
      'base_url',
    );
  }
  checkNameFree(state, input.name, undefined);
  const env: StoredReal = {
    id: randomUUID(),
    name: input.name.trim(),
    base_url: checkBaseUrl(input.base_url),
    counterparty_guid: null,
    active_kid: null,
    default_obj: null,
    default_sub: null,
    service_jwks_url: input.service_jwks_url ?? null,
    public_url: input.public_url ?? null,
    retired_kids: [],
    ssh_tunnel: { ...NO_SSH_SETTINGS, options: [] },
    created_at: new Date().toISOString(),
    ...profileOf(input, { active_kid: null, retired_kids: [] }),
  };
  state.environments.push(env);
  return env.id;
}

/**
 * Applies env.save to the state read from the file: the sandbox's profile, an existing
 * environment (by id), or a new one. Returns the saved environment's id.
 *
 * @example
 * const id = applySave(state, { name: 'Staging', base_url: 'https://dets.staging.example' });
 */
export function applySave(state: StoredFile, input: SaveInput): string {
  if (input.id === SANDBOX_ENVIRONMENT_ID) return saveSandbox(state, input);
  if (input.id !== undefined) return updateReal(state, input.id, input);
  return addReal(state, input);
}
