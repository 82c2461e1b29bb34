/**
 * PEM text a person pastes: finds the public key in it (SPKI "PUBLIC KEY", PKCS#1 "RSA PUBLIC
 * KEY", or an X.509 "CERTIFICATE") and refuses private keys by name. Key import itself is
 * jose's (importSPKI / importX509); PKCS#1, which jose does not read, is rewrapped as SPKI here
 * (the same RSA key, only the outer ASN.1 differs) and then imported as SPKI.
 */
import { ConsoleError } from '../../contract/errors';

export type PemKind = 'spki' | 'pkcs1' | 'x509';

export interface PemPublicKey {
  kind: PemKind;
  /** The PEM label, e.g. "RSA PUBLIC KEY". */
  label: string;
  /** PEM text jose can import: SPKI for `spki` and `pkcs1`, the certificate for `x509`. */
  pem: string;
  /** Other PEM blocks found and ignored (e.g. the rest of a certificate chain). */
  ignored: number;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END ([A-Z0-9 ]+)-----/g;

/** True when the text looks like PEM at all (so a caller can pick the PEM reader). */
export function looksLikePem(text: string): boolean {
  return text.trimStart().startsWith('-----BEGIN');
}

/**
 * Reads the first public key in PEM text. Throws a ConsoleError (KEY_INVALID) naming the
 * problem: a private key (never used; the public part is what is needed), no PEM block, an
 * unknown block type, or a body that is not base64.
 *
 * @example
 * const k = readPemPublicKey(text); // { kind: 'pkcs1', pem: '-----BEGIN PUBLIC KEY-----…' }
 * const key = await importSPKI(k.pem, 'RS256');
 */
export function readPemPublicKey(text: string): PemPublicKey {
  const blocks = [...text.matchAll(BLOCK)].map((m) => ({
    label: m[1] as string,
    end: m[3] as string,
    body: m[2] as string,
  }));
  if (blocks.length === 0) {
    throw new ConsoleError(
      'KEY_INVALID',
      'no complete PEM block: expected "-----BEGIN PUBLIC KEY-----" … "-----END PUBLIC KEY-----"',
    );
  }
  const privateBlock = blocks.find((b) => b.label.includes('PRIVATE KEY'));
  if (privateBlock) {
    throw new ConsoleError(
      'KEY_INVALID',
      `this is a private key (PEM "${privateBlock.label}"): it is refused, never used; paste the public part ` +
        `(e.g. \`openssl pkey -in key.pem -pubout\`)`,
    );
  }
  const index = blocks.findIndex(
    (b) => b.label === 'PUBLIC KEY' || b.label === 'RSA PUBLIC KEY' || b.label === 'CERTIFICATE',
  );
  const block = blocks[index];
  if (!block) {
    const labels = blocks.map((b) => `"${b.label}"`).join(', ');
    throw new ConsoleError(
      'KEY_INVALID',
      `PEM ${labels} is not a public key: expected "PUBLIC KEY", "RSA PUBLIC KEY" or "CERTIFICATE"`,
    );
  }
  if (block.end !== block.label) {
    throw new ConsoleError('KEY_INVALID', `PEM block "BEGIN ${block.label}" ends with "END ${block.end}"`);
  }
  const body = block.body.replace(/\s+/g, '');
  const bad = /[^A-Za-z0-9+/=]/.exec(body);
  if (body === '' || bad || body.length % 4 !== 0) {
    const why =
      body === ''
        ? 'it is empty'
        : bad
          ? `'${bad[0]}' is not a base64 character`
          : 'its length is not a multiple of 4';
    throw new ConsoleError('KEY_INVALID', `PEM "${block.label}" body is not base64: ${why}`);
  }
  const ignored = blocks.length - 1;
  switch (block.label) {
    case 'PUBLIC KEY':
      return { kind: 'spki', label: block.label, pem: toPem('PUBLIC KEY', body), ignored };
    case 'CERTIFICATE':
      return { kind: 'x509', label: block.label, pem: toPem('CERTIFICATE', body), ignored };
    default: {
      const der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
      if (der[0] !== 0x30) {
        throw new ConsoleError(
          'KEY_INVALID',
          'PEM "RSA PUBLIC KEY" does not hold an ASN.1 SEQUENCE (PKCS#1 RSAPublicKey)',
        );
      }
      return {
        kind: 'pkcs1',
        label: block.label,
        pem: toPem('PUBLIC KEY', toBase64(pkcs1ToSpki(der))),
        ignored,
      };
    }
  }
}

/** rsaEncryption AlgorithmIdentifier: SEQUENCE { OID 1.2.840.113549.1.1.1, NULL }. */
const RSA_ALGORITHM_ID = [
  0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
];

/**
 * Wraps a PKCS#1 RSAPublicKey in SubjectPublicKeyInfo (RFC 5280 §4.1):
 * SEQUENCE { rsaEncryption, BIT STRING { 0 unused bits, RSAPublicKey } }.
 */
export function pkcs1ToSpki(pkcs1: Uint8Array): Uint8Array {
  const bitString = [0x03, ...derLength(pkcs1.length + 1), 0x00, ...pkcs1];
  const content = [...RSA_ALGORITHM_ID, ...bitString];
  return Uint8Array.from([0x30, ...derLength(content.length), ...content]);
}

function derLength(n: number): number[] {
  if (n < 0x80) return [n];
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function toPem(label: string, base64: string): string {
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
