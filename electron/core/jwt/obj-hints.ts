/**
 * What `obj` usually looks like (DESIGN.md "What the service's public documentation adds": obj
 * names the customer acted on, an IBAN or a phone number). The spec (2.4) only says "a string",
 * so these are hints for the composer, never refusals: a bank may well use another identifier.
 */

/**
 * IBAN lengths by country (ISO 13616 / SWIFT IBAN registry). A country not listed here is
 * checked by the general rule only (15 to 34 characters, checksum).
 */
const IBAN_LENGTHS: Record<string, number> = Object.fromEntries(
  [
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DK18 DO28 EE20',
    'EG29 ES24 FI18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30',
    'KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 MC27 MD24 ME22 MK19 MR27 MT31 MU30 NL18 NO15 PK24 PL28',
    'PS29 PT25 QA29 RO24 RS22 SA24 SC31 SE24 SI19 SK24 SM27 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24',
    'XK20',
  ]
    .join(' ')
    .split(' ')
    .map((entry) => [entry.slice(0, 2), Number(entry.slice(2))]),
);

/** An IBAN's electronic form: spaces removed, upper case. */
export function compactIban(value: string): string {
  return value.replace(/ /g, '').toUpperCase();
}

/** Country code, check digits, then 11 to 30 letters or digits (spaces allowed between groups). */
export function looksLikeIban(value: string): boolean {
  return /^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(compactIban(value));
}

/** ISO 7064 MOD 97-10 over the rearranged IBAN (country and check digits moved to the end). */
function ibanRemainder(iban: string): number {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const digits = code >= 65 ? String(code - 55) : ch; // A = 10 … Z = 35
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder;
}

/**
 * True for an IBAN with a valid ISO 13616 checksum (mod 97 = 1) and, where the country is
 * known, the country's length. Spaces between groups are allowed.
 *
 * @example
 * isValidIban('DE89 3704 0044 0532 0130 00'); // true
 * isValidIban('DE89370400440532013001');      // false: checksum fails
 */
export function isValidIban(value: string): boolean {
  const iban = compactIban(value);
  if (!looksLikeIban(iban)) return false;
  const length = IBAN_LENGTHS[iban.slice(0, 2)];
  if (length !== undefined && iban.length !== length) return false;
  return ibanRemainder(iban) === 1;
}

/**
 * True for an E.164 phone number: "+", then 8 to 15 digits, the first not 0, nothing else.
 *
 * @example
 * isE164('+4915112345678');   // true
 * isE164('+49 151 12345678'); // false: no spaces in E.164
 */
export function isE164(value: string): boolean {
  return /^\+[1-9][0-9]{7,14}$/.test(value);
}

const FORMATS =
  'an IBAN with a valid ISO 13616 checksum (e.g. DE89 3704 0044 0532 0130 00) or a phone number in ' +
  'E.164 form (+, then 8 to 15 digits, e.g. +4915112345678)';

/**
 * Hints about `obj` for the composer: [] when it is a valid IBAN or an E.164 phone number,
 * otherwise one sentence saying what is off. The service's spec does not fix obj's format, so
 * the caller signs anyway.
 *
 * @example
 * objHints('DE89370400440532013001'); // ['obj looks like an IBAN but its checksum fails …']
 */
export function objHints(obj: string): string[] {
  if (isValidIban(obj) || isE164(obj)) return [];
  if (looksLikeIban(obj)) {
    const iban = compactIban(obj);
    const country = iban.slice(0, 2);
    const length = IBAN_LENGTHS[country];
    if (length !== undefined && iban.length !== length) {
      return [
        `obj looks like an IBAN but has ${iban.length} characters where ${country} IBANs have ${length}: the bank ` +
          'will probably not find this customer',
      ];
    }
    return [
      `obj looks like an IBAN but its checksum fails (ISO 13616 mod 97 gives ${ibanRemainder(iban)}, not 1): ` +
        'a typo? the bank will probably not find this customer',
    ];
  }
  const digits = obj.replace(/[\s().-]/g, '');
  if (/^\+?[0-9]{6,}$/.test(digits) && digits !== obj) {
    const fix = digits.startsWith('+')
      ? `write it as ${digits}`
      : 'write it with its country code, as +, then 8 to 15 digits';
    return [`obj looks like a phone number but is not in E.164 form: ${fix} (no spaces or punctuation)`];
  }
  if (/^[0-9]{8,15}$/.test(obj)) {
    return [
      `obj looks like a phone number without its "+" and country code: E.164 is +, then 8 to 15 digits`,
    ];
  }
  return [
    `obj is neither ${FORMATS}; the service accepts any string, but banks usually identify customers this way`,
  ];
}
