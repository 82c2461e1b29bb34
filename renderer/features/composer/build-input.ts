import { schemas, type MethodInput } from '../../../electron/contract';
import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import type { Environment } from '../../../electron/contract/schemas/service';
import { problemsOf } from '../../shared/field-errors';
import { defaultKid } from '../../data/keys';
import type { ComposerDraft } from './composer-store';

export type ComposerField = 'kid' | 'obj' | 'sub' | 'iat' | 'ttl';

export interface ComposerValues {
  kid: string;
  obj: string;
  sub: string;
  iat: string;
  ttl: string;
}

/** What the form shows: the engineer's values, else the active environment's defaults. */
export function effectiveValues(
  draft: ComposerDraft,
  keys: KeyInfo[],
  env: Environment | null,
): ComposerValues {
  return {
    kid: draft.kid ?? defaultKid(keys, env),
    obj: draft.obj ?? env?.default_obj ?? '',
    sub: draft.sub ?? env?.default_sub ?? '',
    iat: draft.iat,
    ttl: draft.ttl,
  };
}

const INT = /^-?\d+$/;

/** The argument of jwt.sign, and the problems that keep it from being sent (by field). */
export function buildSignInput(v: ComposerValues): {
  input: MethodInput<'jwt.sign'>;
  problems: Partial<Record<ComposerField, string>>;
} {
  const input: MethodInput<'jwt.sign'> = { kid: v.kid, obj: v.obj.trim(), sub: v.sub.trim() };
  const problems: Partial<Record<ComposerField, string>> = {};
  const ttl = v.ttl.trim();
  if (ttl === '') problems.ttl = 'ttl is required (seconds; exp = iat + ttl)';
  else if (!INT.test(ttl)) problems.ttl = 'whole seconds, e.g. 300';
  else input.ttl = Number(ttl);
  const iat = v.iat.trim();
  if (iat !== '') {
    if (!INT.test(iat)) problems.iat = 'Unix seconds, e.g. 1735732800, or empty for now';
    else input.iat = Number(iat);
  }
  const schema = problemsOf<ComposerField>(schemas.SignJwtInput, input);
  for (const [f, message] of Object.entries(schema) as Array<[ComposerField, string]>)
    problems[f] ??= message;
  if (v.kid === '') problems.kid = 'choose the key that signs';
  return { input, problems };
}
