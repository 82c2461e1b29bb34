/**
 * Keys held elsewhere (DESIGN.md "Keys held elsewhere", issue 29): a public key (PEM or JWK,
 * under the RSA key rules) and the signing command of the HSM, KMS or Vault that holds the
 * private part. Nothing secret is stored: the profile keeps the public JWK and the command's
 * template, and a template holding a secret is refused (external-command.ts). Before the key
 * is stored, the command signs a test input and the signature must verify, so a wrong key id,
 * a wrong mechanism or a missing credential shows up now, not at the first rotation.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import type { AddExternalKeyInput, KeyInfo } from '../../contract/schemas/keys';
import { fieldProblem } from '../common';
import {
  jwkMemberProblem,
  privateMembers,
  readPemPublicKey,
  rsaKeyObjectProblem,
  publicRsaJwk,
} from '../jwt';
import { parseSignCommand } from './external-command';
import { signExternally } from './external-signer';
import { givenKeyBase, importedAlgAndKid } from './key-create';
import { checkExpiresAhead, checkKidFree, specJwk } from './key-rules';
import type { KeyStoreState } from './key-store-state';
import { addKey } from './key-writes';
import type { RsaPublicParts } from './private-key';

/** A public key a person gave: its parts, size and (a JWK's) own kid and alg. */
export interface ReadPublicKey {
  publicParts: RsaPublicParts;
  bits: number;
  kid?: string;
  alg?: string;
}

const FIELD = 'public_key';
const HOW_TO =
  'give the public key as PEM ("-----BEGIN PUBLIC KEY-----", "RSA PUBLIC KEY" or a certificate) or as a ' +
  'public JWK ({"kty":"RSA","n":…,"e":…}), e.g. `pkcs11-tool --read-object --type pubkey --id 01 -o key.der` ' +
  'then `openssl pkey -pubin -inform DER -in key.der`';

function fromKeyObject(key: KeyObject): ReadPublicKey {
  const problem = rsaKeyObjectProblem(key);
  if (problem !== null) throw fieldProblem(FIELD, problem);
  return {
    publicParts: { kty: 'RSA', ...publicRsaJwk(key) },
    bits: key.asymmetricKeyDetails?.modulusLength ?? 0,
  };
}

function fromJwk(value: unknown): ReadPublicKey {
  let jwk = value as Record<string, unknown>;
  if (jwk && typeof jwk === 'object' && Array.isArray(jwk.keys)) {
    if (jwk.keys.length !== 1) {
      throw fieldProblem(FIELD, `the JWKS holds ${jwk.keys.length} keys: give the one key held elsewhere`);
    }
    jwk = jwk.keys[0] as Record<string, unknown>;
  }
  if (!jwk || typeof jwk !== 'object' || Array.isArray(jwk))
    throw fieldProblem(FIELD, `not a JWK: ${HOW_TO}`);
  const secret = privateMembers(jwk);
  if (secret !== null) {
    throw fieldProblem(
      FIELD,
      `this JWK holds private members (${secret}): a key held elsewhere keeps its private part there, so it ` +
        'is refused and not stored; give the public JWK only',
    );
  }
  if (jwk.kty !== 'RSA')
    throw fieldProblem(FIELD, `the JWK's kty is ${JSON.stringify(jwk.kty)}; RSA keys only`);
  const members = jwkMemberProblem(jwk);
  if (members !== null) throw fieldProblem(FIELD, members);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: { kty: 'RSA', n: String(jwk.n), e: String(jwk.e) }, format: 'jwk' });
  } catch {
    throw fieldProblem(FIELD, 'the JWK is not a usable RSA public key (n and e must both be present)');
  }
  return {
    ...fromKeyObject(key),
    ...(typeof jwk.kid === 'string' ? { kid: jwk.kid } : {}),
    ...(typeof jwk.alg === 'string' ? { alg: jwk.alg } : {}),
  };
}

/**
 * Reads a public RSA key from PEM or JWK text, under the RSA key rules (DESIGN.md "Bank
 * endpoints"). Refusals are BAD_ARGUMENT on `public_key`; a private key is refused by name.
 *
 * @example
 * readPublicKey(fs.readFileSync('hsm-key.pem', 'utf8')); // {publicParts: {kty, n, e}, bits: 2048}
 */
export function readPublicKey(text: string): ReadPublicKey {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch (err) {
      throw fieldProblem(FIELD, `not valid JSON: ${(err as Error).message}`);
    }
    return fromJwk(value);
  }
  if (!trimmed.includes('-----BEGIN')) throw fieldProblem(FIELD, `neither PEM nor JSON: ${HOW_TO}`);
  let pem: string;
  try {
    pem = readPemPublicKey(trimmed).pem;
  } catch (err) {
    throw fieldProblem(FIELD, err instanceof ConsoleError ? err.message : String(err));
  }
  try {
    return fromKeyObject(createPublicKey(pem));
  } catch (err) {
    if (err instanceof ConsoleError) throw err;
    throw fieldProblem(FIELD, 'the PEM could not be read as a public key (damaged or truncated?)');
  }
}

/**
 * Adds a key held elsewhere once its command has signed a test input that verifies. Nothing is
 * stored when any check fails.
 *
 * @example
 * await addExternalKey(state, { public_key: pem, kid: 'hsm-2026', sign_command: 'pkcs11-tool … -i {in} -o {out}' });
 */
export async function addExternalKey(
  state: KeyStoreState,
  input: z.output<typeof AddExternalKeyInput>,
): Promise<KeyInfo> {
  checkExpiresAhead(input.expires, state.now());
  const words = parseSignCommand(input.sign_command);
  const read = readPublicKey(input.public_key);
  const { alg, kid } = importedAlgAndKid(read, input);
  if (kid === undefined) {
    throw fieldProblem('kid', 'a PEM public key carries no kid: give the kid the service knows this key by');
  }
  checkKidFree(await state.file.read(), kid);
  const public_jwk = specJwk(read.publicParts, kid, alg);
  const probe = Buffer.from(
    `dets-console signing check for ${kid} at ${new Date(state.now()).toISOString()}`,
  );
  await signExternally({ kid, alg, public_jwk, sign_command: words }, probe, {
    env: state.env,
    timeoutMs: state.signTimeoutMs,
  });
  return addKey(state, { ...givenKeyBase(input, kid, alg, read), sign_command: words });
}
