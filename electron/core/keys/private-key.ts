/**
 * Private RSA signing keys as a person brings them: PEM PKCS#8 ("BEGIN PRIVATE KEY"), PEM
 * PKCS#1 ("BEGIN RSA PRIVATE KEY"), or a private JWK. Each is read with node:crypto, checked
 * (RSA, the RSA key rules of electron/core/jwt/rsa.ts, the private part matches the public
 * part) and normalized to PKCS#8 DER, the one form the key store seals.
 *
 * Threat model: the text is a secret. It is never echoed: error messages name what was found
 * (a public key, an EC key, an encrypted PEM, a certificate…) and what to do, never a byte of
 * the input; node's and JSON.parse's own messages, which can quote the input, are not passed on.
 * The DER this returns is the caller's to seal and then zero.
 */
import {
  createPrivateKey,
  createPublicKey,
  sign as rsaSign,
  verify as rsaVerify,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { ConsoleError } from '../../contract/errors';
import { jwkMemberProblem, rsaKeyObjectProblem } from '../jwt';

export type PrivateKeySource = 'pkcs8' | 'pkcs1' | 'jwk';

export interface RsaPublicParts {
  kty: 'RSA';
  n: string;
  e: string;
}

export interface ReadPrivateKey {
  source: PrivateKeySource;
  /** PKCS#8 DER of the private key: seal it, then zero it. */
  pkcs8: Uint8Array;
  /** The public part, base64url (RFC 7518 §6.3.1). */
  publicParts: RsaPublicParts;
  bits: number;
  /** A JWK's own kid and alg, when it carries them (PEM carries neither). */
  kid?: string;
  alg?: string;
}

const HOW_TO =
  'expected a private RSA key as PEM PKCS#8 ("-----BEGIN PRIVATE KEY-----"), PEM PKCS#1 ("-----BEGIN RSA PRIVATE KEY-----") or a private JWK ({"kty":"RSA","n":…,"e":…,"d":…})';

const invalid = (message: string) => new ConsoleError('KEY_INVALID', message);

/**
 * Reads a private RSA key from PEM or JWK text. Throws KEY_INVALID naming what was found.
 *
 * @example
 * const key = readPrivateKey(fs.readFileSync('bank-key.pem', 'utf8'));
 * key.source; // 'pkcs1'
 * key.bits;   // 2048
 */
export function readPrivateKey(text: string): ReadPrivateKey {
  const trimmed = text.trim();
  if (trimmed === '') throw invalid(`the key text is empty: ${HOW_TO}`);
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) return fromJwkText(trimmed);
  if (trimmed.includes('-----BEGIN')) return fromPem(trimmed);
  if (/^(ssh-(rsa|dss|ed25519)|ecdsa-sha2-)/.test(trimmed)) {
    throw invalid(`this is an OpenSSH public key line: importing needs the private key; ${HOW_TO}`);
  }
  if (/^[A-Za-z0-9+/=\s]+$/.test(trimmed)) {
    throw invalid(`this is bare base64 without PEM armour: ${HOW_TO}`);
  }
  throw invalid(`neither PEM nor JSON: ${HOW_TO}`);
}

// ------------------------------------------------------------------------------------- PEM

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END ([A-Z0-9 ]+)-----/g;

function fromPem(text: string): ReadPrivateKey {
  const blocks = [...text.matchAll(BLOCK)].map((m) => ({
    label: m[1] as string,
    body: m[2] as string,
    end: m[3] as string,
    pem: m[0],
  }));
  if (blocks.length === 0) {
    throw invalid('incomplete PEM: a "-----BEGIN …-----" line without its matching "-----END …-----" line');
  }
  const usable = blocks.filter((b) => b.label === 'PRIVATE KEY' || b.label === 'RSA PRIVATE KEY');
  if (usable.length > 1) {
    throw invalid(`${usable.length} private keys in one PEM text: import them one at a time`);
  }
  const block = usable[0];
  if (!block) throw invalid(describeUnusablePem(blocks.map((b) => b.label)));
  if (block.end !== block.label) {
    throw invalid(`PEM block "BEGIN ${block.label}" ends with "END ${block.end}"`);
  }
  if (/Proc-Type:\s*4,\s*ENCRYPTED/i.test(block.body)) {
    throw invalid(
      'this is an encrypted private key (PEM "RSA PRIVATE KEY" with Proc-Type ENCRYPTED): decrypt it on ' +
        'the way in, e.g. `openssl pkey -in key.pem | dets-console keys import -`',
    );
  }
  const source: PrivateKeySource = block.label === 'PRIVATE KEY' ? 'pkcs8' : 'pkcs1';
  const what = source === 'pkcs8' ? 'PEM "PRIVATE KEY" (PKCS#8)' : 'PEM "RSA PRIVATE KEY" (PKCS#1)';
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: block.pem, format: 'pem' });
  } catch {
    throw invalid(`${what} could not be read: its body is not a valid key (damaged, truncated or edited?)`);
  }
  return fromKeyObject(key, source, what);
}

function describeUnusablePem(labels: string[]): string {
  const quoted = labels.map((l) => `"${l}"`).join(', ');
  if (labels.includes('ENCRYPTED PRIVATE KEY')) {
    return (
      'this is an encrypted private key (PEM "ENCRYPTED PRIVATE KEY"): decrypt it on the way in, e.g. ' +
      '`openssl pkey -in key.pem | dets-console keys import -`'
    );
  }
  if (labels.includes('EC PRIVATE KEY')) {
    return 'this is an EC private key (PEM "EC PRIVATE KEY"): the console signs with RSA keys only (RS256, RS384, RS512, PS256)';
  }
  if (labels.includes('DSA PRIVATE KEY')) {
    return 'this is a DSA private key (PEM "DSA PRIVATE KEY"): the console signs with RSA keys only (RS256, RS384, RS512, PS256)';
  }
  if (labels.includes('OPENSSH PRIVATE KEY')) {
    return (
      'this is an OpenSSH private key (PEM "OPENSSH PRIVATE KEY"), which is not read: convert a copy to PKCS#8 ' +
      '(`ssh-keygen -p -m PKCS8 -f copy-of-key`) and import that'
    );
  }
  if (labels.includes('PUBLIC KEY') || labels.includes('RSA PUBLIC KEY')) {
    return `this is a public key (PEM ${quoted}): importing needs the private key (the public part is derived from it)`;
  }
  if (labels.includes('CERTIFICATE')) {
    return `this is a certificate (PEM ${quoted}): it holds only a public key; importing needs the private key`;
  }
  return `PEM ${quoted} is not a private key: expected "PRIVATE KEY" (PKCS#8) or "RSA PRIVATE KEY" (PKCS#1)`;
}

// ------------------------------------------------------------------------------------- JWK

const CRT_MEMBERS = ['p', 'q', 'dp', 'dq', 'qi'] as const;

function fromJwkText(text: string): ReadPrivateKey {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the input: it is a secret, so it is not passed on.
    throw invalid(`the text starts like JSON but is not valid JSON: ${HOW_TO}`);
  }
  if (Array.isArray(value)) throw invalid(`this is a JSON array: ${HOW_TO}`);
  if (value === null || typeof value !== 'object') throw invalid(`not a JSON object: ${HOW_TO}`);
  let jwk = value as Record<string, unknown>;
  if (Array.isArray(jwk.keys)) {
    if (jwk.keys.length !== 1) {
      throw invalid(`this is a JWK set with ${jwk.keys.length} keys: import one private JWK at a time`);
    }
    const only: unknown = jwk.keys[0];
    if (only === null || typeof only !== 'object' || Array.isArray(only)) {
      throw invalid('this is a JWK set whose key is not a JSON object');
    }
    jwk = only as Record<string, unknown>;
  }
  if (jwk.kty === undefined) throw invalid(`a JSON object without "kty": ${HOW_TO}`);
  if (jwk.kty !== 'RSA') {
    const kty = typeof jwk.kty === 'string' ? `"${jwk.kty}"` : 'of the wrong type';
    throw invalid(`this is a JWK with kty ${kty}: the console signs with RSA keys only (kty "RSA")`);
  }
  if (jwk.d === undefined) {
    throw invalid(
      'this is a public JWK (no "d"): importing needs the private key (the public part is derived from it)',
    );
  }
  for (const member of ['n', 'e', 'd'] as const) {
    if (typeof jwk[member] !== 'string') throw invalid(`the private JWK's "${member}" is not a string`);
  }
  const missing = CRT_MEMBERS.filter((m) => typeof jwk[m] !== 'string');
  if (missing.length > 0) {
    throw invalid(
      `the private JWK lacks ${missing.map((m) => `"${m}"`).join(', ')}: export the full private JWK (with the ` +
        'CRT members p, q, dp, dq, qi) or the key as PEM',
    );
  }
  // Node's decoder would read standard base64 here without a word: one rule for every JWK.
  const members = jwkMemberProblem(jwk);
  if (members !== null) throw invalid(`the private JWK's ${members}`);
  if (jwk.use !== undefined && jwk.use !== 'sig') {
    throw invalid(`the JWK says use ${JSON.stringify(jwk.use)}: a signing key has use "sig"`);
  }
  if (jwk.kid !== undefined && typeof jwk.kid !== 'string') throw invalid('the JWK\'s "kid" is not a string');
  if (jwk.alg !== undefined && typeof jwk.alg !== 'string') throw invalid('the JWK\'s "alg" is not a string');
  let key: KeyObject;
  try {
    const members: JsonWebKey = { kty: 'RSA' };
    for (const m of ['n', 'e', 'd', ...CRT_MEMBERS] as const) members[m] = jwk[m] as string;
    key = createPrivateKey({ key: members, format: 'jwk' });
  } catch {
    throw invalid("the private JWK's members do not form an RSA private key (not base64url, or damaged?)");
  }
  const read = fromKeyObject(key, 'jwk', 'the private JWK');
  return {
    ...read,
    ...(typeof jwk.kid === 'string' ? { kid: jwk.kid } : {}),
    ...(typeof jwk.alg === 'string' ? { alg: jwk.alg } : {}),
  };
}

// ------------------------------------------------------------------------------ KeyObject

function fromKeyObject(key: KeyObject, source: PrivateKeySource, what: string): ReadPrivateKey {
  const type = key.asymmetricKeyType;
  if (type === 'rsa-pss') {
    throw invalid(
      `${what} is an RSA-PSS-restricted key (OID id-RSASSA-PSS), which is not read: export it as a plain RSA key (rsaEncryption)`,
    );
  }
  if (type !== 'rsa') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const name =
      type === 'ec'
        ? `an EC key${curve ? ` (${curve})` : ''}`
        : `a${/^[aeiou]/i.test(String(type)) ? 'n' : ''} ${String(type)} key`;
    throw invalid(`${what} holds ${name}: the console signs with RSA keys only (RS256, RS384, RS512, PS256)`);
  }
  // DESIGN.md "Bank endpoints": a key the service would refuse (e = 3, 1024 bits) is refused
  // here, before anything is sealed or stored.
  const problem = rsaKeyObjectProblem(key);
  if (problem !== null) throw invalid(`${what} breaks the RSA key rules: ${problem}`);
  // (The rules include what this runtime can verify with: a key over 16384 bits, or one with
  // a wide exponent over 3072 bits, is refused there, never called damaged below.)
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  const publicKey = createPublicKey(key);
  // A private JWK or PEM whose parts disagree would sign tokens nothing verifies: check once.
  const probe = Buffer.from('dets-console key check');
  if (!rsaVerify('sha256', probe, publicKey, rsaSign('sha256', probe, key))) {
    throw invalid(`${what} does not match its own public part (n, e): the key is damaged`);
  }
  const pub = publicKey.export({ format: 'jwk' });
  const pkcs8: Uint8Array = key.export({ type: 'pkcs8', format: 'der' });
  return { source, pkcs8, publicParts: { kty: 'RSA', n: String(pub.n), e: String(pub.e) }, bits };
}
