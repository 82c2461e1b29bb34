/**
 * Which key signs and the claims of the console's own JWTs (signing.ts), rules that were
 * reachable only through the service client's closure.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleError } from '../../../electron/contract/errors';
import type { Environment } from '../../../electron/contract/schemas/service';
import { activeKid, MANAGEMENT_SUB, managementClaims } from '../../../electron/core/service/signing';

const env = (over: Partial<Environment>): Environment => ({
  id: 'e1',
  name: 'Staging',
  kind: 'real',
  base_url: 'https://dets.staging.example',
  counterparty_guid: null,
  active_kid: null,
  default_obj: null,
  default_sub: null,
  service_jwks_url: null,
  effective_jwks_url: 'https://dets.staging.example/api/v1/.well-known/jwks.json',
  public_url: null,
  ...over,
});

describe('managementClaims', () => {
  it("takes the environment's defaults, else the counterparty and the console's own sub", () => {
    expect(managementClaims(env({ default_obj: 'DE02', default_sub: 'ops' }))).toEqual({
      obj: 'DE02',
      sub: 'ops',
    });
    expect(managementClaims(env({ counterparty_guid: 'g-1' }))).toEqual({ obj: 'g-1', sub: MANAGEMENT_SUB });
    expect(managementClaims(env({}))).toEqual({ obj: MANAGEMENT_SUB, sub: MANAGEMENT_SUB });
  });
});

describe('activeKid', () => {
  it('prefers the kid given, then the active_kid, and names the field when there is neither', () => {
    expect(activeKid(env({ active_kid: 'a' }), 'given', 'kid')).toBe('given');
    expect(activeKid(env({ active_kid: 'a' }), undefined, 'kid')).toBe('a');
    try {
      activeKid(env({}), undefined, 'signing_kid');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConsoleError);
      expect(err).toMatchObject({ code: 'BAD_ARGUMENT', details: { field: 'signing_kid' } });
      expect((err as Error).message).toContain('environment "Staging" has no active_kid');
    }
  });
});
