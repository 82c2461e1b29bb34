import { describe, expect, it } from 'vitest';
import { ConsoleError, toErrorData } from '../../../../electron/contract';
import { fieldOfError } from '../../../../renderer/shared/field-errors';

const FIELDS = ['jwk', 'jwk_guid', 'counterparty_guid', 'bank_auth_url'] as const;

describe('fieldOfError', () => {
  it('takes the field from details.field, and drops the method and field prefix', () => {
    const err = new ConsoleError('BAD_ARGUMENT', 'sandbox.onboard: bank_auth_url: must be an http(s) URL', {
      field: 'bank_auth_url',
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

  it('puts a nested field under its top-level field, keeping the member in the message', () => {
    const err = new ConsoleError('BAD_ARGUMENT', 'jwk.n: not base64url', { field: 'jwk.n' });
    expect(fieldOfError(err, FIELDS)).toEqual({ field: 'jwk', message: 'n: not base64url' });
  });

  it('follows details, not the words of the message (issue 25 item 4)', () => {
    // The message names jwk_guid; the core says the fault is in the JWK: the JWK it is.
    const err = new ConsoleError(
      'BAD_ARGUMENT',
      'the jwk_guid cannot be used with this jwk (private members)',
      {
        field: 'jwk',
      },
    );
    expect(fieldOfError(err, FIELDS).field).toBe('jwk');
    // A field of another form's input belongs to this form as a whole, whatever the message says.
    const other = new ConsoleError('BAD_ARGUMENT', 'bank_auth_url: see the settings', { field: 'settings' });
    expect(fieldOfError(other, FIELDS)).toEqual({ field: null, message: 'bank_auth_url: see the settings' });
  });

  it('reads the field of an error that travelled as data (IPC, HTTP)', () => {
    const sent = new ConsoleError('BAD_ARGUMENT', 'sandbox.onboard: counterparty_guid: must be a GUID', {
      field: 'counterparty_guid',
    });
    const received = ConsoleError.fromData(JSON.parse(JSON.stringify(toErrorData(sent))));
    expect(fieldOfError(received, FIELDS)).toEqual({ field: 'counterparty_guid', message: 'must be a GUID' });
  });

  it('leaves other errors to the form as a whole', () => {
    expect(fieldOfError(new ConsoleError('CONFLICT', 'jwk_guid exists'), FIELDS)).toEqual({
      field: null,
      message: 'jwk_guid exists',
    });
    expect(fieldOfError(new Error('network down'), FIELDS).field).toBeNull();
    // Details with a field on another code name no field of the form.
    const conflict = new ConsoleError('CONFLICT', 'jwk_guid: exists', { field: 'jwk_guid' });
    expect(fieldOfError(conflict, FIELDS).field).toBeNull();
  });
});
