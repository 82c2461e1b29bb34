import { describe, expect, it } from 'vitest';
import { ConsoleError } from '../../../../electron/contract';
import { fieldOfError } from '../../../../renderer/shared/field-errors';

const FIELDS = ['jwk', 'jwk_guid', 'counterparty_guid', 'bank_auth_url'] as const;

describe('fieldOfError', () => {
  it('takes the field from the validation issues, and drops the method and field prefix', () => {
    const err = new ConsoleError('BAD_ARGUMENT', 'sandbox.onboard: bank_auth_url: must be an http(s) URL', {
      issues: [{ path: ['bank_auth_url'], message: 'must be an http(s) URL' }],
    });
    expect(fieldOfError(err, FIELDS)).toEqual({ field: 'bank_auth_url', message: 'must be an http(s) URL' });
  });

  it("takes the field the core names in details, and the core's 'invalid onboarding:' prefix stays", () => {
    const err = new ConsoleError(
      'BAD_ARGUMENT',
      'jwk: kid is missing; the service chooses the key by its kid',
      {
        field: 'jwk',
      },
    );
    expect(fieldOfError(err, FIELDS)).toEqual({
      field: 'jwk',
      message: 'kid is missing; the service chooses the key by its kid',
    });
    const nested = new ConsoleError('BAD_ARGUMENT', 'invalid onboarding: jwk_guid: must be a GUID', {
      field: 'jwk_guid',
    });
    expect(fieldOfError(nested, FIELDS).field).toBe('jwk_guid');
  });

  it('finds the field a message names, whole words only (jwk_guid is not jwk)', () => {
    expect(fieldOfError(new ConsoleError('BAD_ARGUMENT', 'jwk_guid: already registered'), FIELDS)).toEqual({
      field: 'jwk_guid',
      message: 'already registered',
    });
    expect(fieldOfError(new ConsoleError('BAD_ARGUMENT', 'jwk.n: not base64url'), FIELDS)).toEqual({
      field: 'jwk',
      message: 'n: not base64url',
    });
    expect(
      fieldOfError(new ConsoleError('BAD_ARGUMENT', 'the jwk has private members (d)'), FIELDS).field,
    ).toBe('jwk');
  });

  it('leaves other errors to the form as a whole', () => {
    expect(fieldOfError(new ConsoleError('CONFLICT', 'jwk_guid exists'), FIELDS)).toEqual({
      field: null,
      message: 'jwk_guid exists',
    });
    expect(fieldOfError(new Error('network down'), FIELDS).field).toBeNull();
    expect(fieldOfError(new ConsoleError('BAD_ARGUMENT', 'something else'), FIELDS).field).toBeNull();
  });
});
