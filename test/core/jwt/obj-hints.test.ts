import { describe, expect, it } from 'vitest';
import { isE164, isValidIban, looksLikeIban, objHints } from '../../../electron/core/jwt/obj-hints';

describe('isValidIban', () => {
  it.each([
    'DE89370400440532013000',
    'DE89 3704 0044 0532 0130 00',
    'GB82WEST12345698765432',
    'FR1420041010050500013M02606',
    'NL91ABNA0417164300',
    'NO9386011117947',
    'DE02120300000000202051',
    'de89370400440532013000',
  ])('accepts %s', (iban) => expect(isValidIban(iban)).toBe(true));

  it.each([
    ['a wrong check digit', 'DE89370400440532013001'],
    ['two swapped digits', 'DE89370400440532031000'],
    ['a wrong length for the country', 'DE8937040044053201300'],
    ['letters where none belong', 'DE89-3704-0044-0532-0130-00'],
    ['too short to be an IBAN', 'DE8937'],
    ['a phone number', '+4915112345678'],
  ])('refuses %s', (_what, iban) => expect(isValidIban(iban)).toBe(false));
});

describe('isE164', () => {
  it.each(['+4915112345678', '+12025550123', '+33612345678', '+12345678', '+123456789012345'])(
    'accepts %s',
    (p) => expect(isE164(p)).toBe(true),
  );
  it.each([
    '4915112345678',
    '+49 151 12345678',
    '+1234567',
    '+1234567890123456',
    '+0123456789',
    '+49-151-1234567',
  ])('refuses %s', (p) => expect(isE164(p)).toBe(false));
});

describe('objHints', () => {
  it('has nothing to say about a valid IBAN or an E.164 phone number', () => {
    expect(objHints('DE89 3704 0044 0532 0130 00')).toEqual([]);
    expect(objHints('+4915112345678')).toEqual([]);
  });

  it('says an IBAN-looking obj fails its checksum', () => {
    const [hint] = objHints('DE89370400440532013001');
    expect(looksLikeIban('DE89370400440532013001')).toBe(true);
    expect(hint).toMatch(/looks like an IBAN but its checksum fails/);
  });

  it('says an IBAN has the wrong length for its country', () => {
    expect(objHints('DE8937040044053201300')[0]).toMatch(/21 characters where DE IBANs have 22/);
  });

  it('says how to write a phone number in E.164', () => {
    expect(objHints('+49 151 1234-5678')[0]).toMatch(/not in E.164 form: write it as \+4915112345678/);
    expect(objHints('015112345678')[0]).toMatch(/without its "\+" and country code/);
  });

  it('explains both formats for anything else', () => {
    const [hint] = objHints('customer-42');
    expect(hint).toMatch(/neither an IBAN with a valid ISO 13616 checksum/);
    expect(hint).toMatch(/E\.164/);
  });
});
