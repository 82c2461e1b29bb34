/**
 * The key store's rules on the stored list (key-rules.ts) and the alg/kid an import takes
 * (key-create.ts), which were reachable only through the key store's closure.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleError } from '../../../electron/contract/errors';
import { importedAlgAndKid } from '../../../electron/core/keys/key-create';
import type { StoredKey } from '../../../electron/core/keys/key-file';
import {
  activateOnly,
  checkExpiresAhead,
  checkKidFree,
  fileStem,
  findKey,
} from '../../../electron/core/keys/key-rules';

const stored = (kid: string, status: StoredKey['status']): StoredKey => ({
  kid,
  alg: 'RS256',
  bits: 2048,
  label: '',
  counterparty_guid: null,
  status,
  created_at: '2026-01-01T00:00:00.000Z',
  expires: null,
  public_jwk: { alg: 'RS256', e: 'AQAB', kid, kty: 'RSA', n: `n-${kid}`, use: 'sig' },
  sealed_private_key: 'sealed',
});

function codeOf(fn: () => unknown): { code: string; field?: unknown } | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (!(err instanceof ConsoleError)) throw err;
    return { code: err.code, field: (err.details as { field?: unknown } | undefined)?.field };
  }
}

describe('key rules', () => {
  const keys = [stored('a', 'active'), stored('b', 'next'), stored('c', 'retired')];

  it('activateOnly leaves exactly one active key, retiring the one before', () => {
    const next = activateOnly(keys, 'b');
    expect(next.map((k) => [k.kid, k.status])).toEqual([
      ['a', 'retired'],
      ['b', 'active'],
      ['c', 'retired'],
    ]);
    expect(keys[0]?.status).toBe('active'); // the input is not changed
  });

  it('findKey names the known kids; checkKidFree refuses a taken or invalid kid', () => {
    expect(findKey(keys, 'c').kid).toBe('c');
    expect(() => findKey(keys, 'zz')).toThrow('known kids: "a", "b", "c"');
    expect(() => findKey([], 'zz')).toThrow('there are no keys yet');
    expect(codeOf(() => checkKidFree(keys, 'a'))).toMatchObject({ code: 'CONFLICT' });
    expect(codeOf(() => checkKidFree(keys, 'has space'))).toEqual({ code: 'BAD_ARGUMENT', field: 'kid' });
    expect(codeOf(() => checkKidFree(keys, 'free'))).toBeNull();
  });

  it('checkExpiresAhead refuses a day already past, on the expires field', () => {
    const now = Date.parse('2026-06-15T12:00:00Z');
    expect(codeOf(() => checkExpiresAhead('2026-06-14', now))).toEqual({
      code: 'BAD_ARGUMENT',
      field: 'expires',
    });
    expect(codeOf(() => checkExpiresAhead('2026-06-15', now))).toBeNull();
    expect(codeOf(() => checkExpiresAhead(null, now))).toBeNull();
  });

  it('fileStem keeps a kid inside the export folder', () => {
    expect(fileStem('../../etc/passwd')).not.toContain('/');
    expect(fileStem('..')).not.toMatch(/^\./);
    expect(fileStem('')).toBe('key');
  });
});

describe('importedAlgAndKid', () => {
  it("takes the JWK's own alg and kid, and refuses what disagrees or is not usable", () => {
    expect(importedAlgAndKid({}, {})).toEqual({ alg: 'RS256', kid: undefined });
    expect(importedAlgAndKid({ alg: 'PS256', kid: 'k1' }, {})).toEqual({ alg: 'PS256', kid: 'k1' });
    expect(importedAlgAndKid({ kid: 'k1' }, { kid: 'mine' })).toEqual({ alg: 'RS256', kid: 'mine' });
    expect(codeOf(() => importedAlgAndKid({ alg: 'ES256' }, {}))).toMatchObject({ code: 'KEY_INVALID' });
    expect(codeOf(() => importedAlgAndKid({ alg: 'RS384' }, { alg: 'RS256' }))).toMatchObject({
      code: 'KEY_INVALID',
    });
    expect(codeOf(() => importedAlgAndKid({ kid: 'with space' }, {}))).toMatchObject({ code: 'KEY_INVALID' });
  });
});
