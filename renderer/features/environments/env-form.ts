import { schemas, type MethodInput } from '../../../electron/contract';
import type { Environment } from '../../../electron/contract/schemas/service';
import { derivedJwksUrl as jwksUrlOfBase } from '../../../electron/contract/schemas/service-paths';
import { problemsOf } from '../../shared/field-errors';

export const ENV_FIELDS = [
  'name',
  'base_url',
  'counterparty_guid',
  'active_kid',
  'default_obj',
  'default_sub',
  'service_jwks_url',
] as const;
export type EnvField = (typeof ENV_FIELDS)[number];
export type EnvDraft = Record<EnvField, string>;

/** The sandbox's URL and JWKS are its listener's; a profile sets only these on it. */
export const SANDBOX_FIELDS: readonly EnvField[] = [
  'counterparty_guid',
  'active_kid',
  'default_obj',
  'default_sub',
];
const REQUIRED: readonly EnvField[] = ['name', 'base_url'];

export const EMPTY_ENV_DRAFT: EnvDraft = {
  name: '',
  base_url: '',
  counterparty_guid: '',
  active_kid: '',
  default_obj: '',
  default_sub: '',
  service_jwks_url: '',
};

export function draftOf(env: Environment): EnvDraft {
  return {
    name: env.name,
    base_url: env.base_url ?? '',
    counterparty_guid: env.counterparty_guid ?? '',
    active_kid: env.active_kid ?? '',
    default_obj: env.default_obj ?? '',
    default_sub: env.default_sub ?? '',
    service_jwks_url: env.service_jwks_url ?? '',
  };
}

export function editableFields(env: Environment | null): readonly EnvField[] {
  return env?.kind === 'sandbox' ? SANDBOX_FIELDS : ENV_FIELDS;
}

/**
 * The argument of env.save. Creating: every field typed. Editing: the changed fields only, an
 * emptied optional field as null (cleared); the sandbox takes only its per-profile fields.
 */
export function saveInput(draft: EnvDraft, env: Environment | null): MethodInput<'env.save'> {
  const input: Record<string, string | null> = {};
  const fields = editableFields(env);
  const saved = env ? draftOf(env) : EMPTY_ENV_DRAFT;
  for (const f of fields) {
    const v = draft[f].trim();
    if (env === null) {
      if (v !== '') input[f] = v;
    } else if (v !== saved[f]) {
      input[f] = v === '' && !REQUIRED.includes(f) ? null : v;
    }
  }
  return (env ? { id: env.id, ...input } : input) as MethodInput<'env.save'>;
}

/** Problems while typing, by field; the required ones only once the form was sent. */
export function envProblems(
  draft: EnvDraft,
  env: Environment | null,
  attempted: boolean,
): Partial<Record<EnvField, string>> {
  const problems = problemsOf<EnvField>(schemas.SaveEnvironmentInput, saveInput(draft, env));
  for (const f of REQUIRED) {
    if (!editableFields(env).includes(f)) continue;
    if (draft[f].trim() === '') {
      if (attempted || env !== null) problems[f] = `${f === 'name' ? 'a name' : 'the base URL'} is required`;
      else delete problems[f];
    }
  }
  return problems;
}

/** The service's JWKS URL (spec 4.1 #3) derived from a base URL, as the core derives it. */
export function derivedJwksUrl(baseUrl: string): string | null {
  const base = baseUrl.trim();
  if (base === '') return null;
  return jwksUrlOfBase(base);
}
