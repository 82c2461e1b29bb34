/**
 * New keys: generated (jose, e = 65537) or imported (PEM PKCS#8, PKCS#1, private JWK). The
 * private part is sealed by the vault before anything is written, and its clear bytes are
 * zeroed whatever happens (key-store.ts's threat model).
 */
import { KeyObject, randomUUID, webcrypto } from 'node:crypto';
import { generateKeyPair } from 'jose';
import type { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import {
  Kid,
  SigningAlg as SigningAlgSchema,
  type GenerateKeyInput,
  type ImportKeyInput,
  type KeyInfo,
  type SigningAlg,
} from '../../contract/schemas/keys';
import { fieldProblem } from '../common';
import { publicRsaJwk, rsaRuleProblem } from '../jwt';
import { checkExpiresAhead, checkKidFree, quote, specJwk } from './key-rules';
import type { KeyStoreState } from './key-store-state';
import { addKey, sealPrivateKey, type NewKeyBase } from './key-writes';
import { readPrivateKey, type ReadPrivateKey, type RsaPublicParts } from './private-key';

const DEFAULT_ALG: SigningAlg = 'RS256';
const DEFAULT_BITS = 2048;
/** jose's generateKeyPair always uses e = 65537 (F4). */
const GENERATED_EXPONENT = 0x10001n;

/**
 * Generates a key pair and adds it. Core callers (rotation, walkthrough) skip the contract's
 * schema: the key rules are checked here anyway, before seconds of key generation.
 *
 * @example
 * await generateKey(state, { alg: 'RS256', bits: 2048, status: 'next' });
 */
export async function generateKey(
  state: KeyStoreState,
  input: z.output<typeof GenerateKeyInput>,
): Promise<KeyInfo> {
  const alg = input.alg ?? DEFAULT_ALG;
  const bits = input.bits ?? DEFAULT_BITS;
  const kid = input.kid ?? randomUUID();
  const problem = rsaRuleProblem(bits, GENERATED_EXPONENT);
  if (problem !== null) throw fieldProblem('bits', problem);
  checkExpiresAhead(input.expires, state.now());
  checkKidFree(await state.file.read(), kid); // before seconds of key generation; again when adding
  const sealer = await state.vault.sealer(); // a locked or missing vault fails before any work
  const pair = await generateKeyPair(alg, { modulusLength: bits, extractable: true });
  const pkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', pair.privateKey));
  const sealed = await sealPrivateKey(sealer, kid, pkcs8);
  const pub = publicRsaJwk(KeyObject.from(pair.publicKey as webcrypto.CryptoKey));
  return addKey(state, {
    kid,
    alg,
    bits,
    label: input.label ?? '',
    counterparty_guid: input.counterparty_guid ?? null,
    expires: input.expires ?? null,
    status: input.status,
    public_jwk: specJwk({ kty: 'RSA', ...pub }, kid, alg),
    sealed_private_key: sealed,
  });
}

/**
 * The alg and kid of an imported key: a JWK's own alg must be one the console signs with and
 * agree with the one asked for; its kid is taken when none is given and it is a valid kid.
 *
 * @example
 * importedAlgAndKid({ alg: 'RS384', kid: 'k1' }, {}); // {alg: 'RS384', kid: 'k1'}
 */
export function importedAlgAndKid(
  read: Pick<ReadPrivateKey, 'alg' | 'kid'>,
  input: Pick<z.output<typeof ImportKeyInput>, 'alg' | 'kid'>,
): { alg: SigningAlg; kid: string | undefined } {
  let alg: SigningAlg = input.alg ?? DEFAULT_ALG;
  if (read.alg !== undefined) {
    const own = SigningAlgSchema.safeParse(read.alg);
    if (!own.success) {
      throw new ConsoleError(
        'KEY_INVALID',
        `the JWK says alg ${quote(read.alg)}: the console signs with RS256, RS384, RS512 or PS256`,
      );
    }
    if (input.alg !== undefined && input.alg !== own.data) {
      throw new ConsoleError(
        'KEY_INVALID',
        `the JWK says alg ${own.data} but ${input.alg} was asked for: drop one of them`,
      );
    }
    alg = own.data;
  }
  let kid = input.kid;
  if (kid === undefined && read.kid !== undefined) {
    if (!Kid.safeParse(read.kid).success) {
      throw new ConsoleError(
        'KEY_INVALID',
        "the JWK's kid is not printable ASCII without spaces (1-200 characters): give a kid of your own",
      );
    }
    kid = read.kid;
  }
  return { alg, kid };
}

/**
 * What a key the user gave (imported, or held elsewhere) is stored with, beside its private
 * part or signing command: its kid and alg, size, the user's label, expiry and status, and the
 * spec's public JWK.
 */
export function givenKeyBase(
  input: { label?: string | undefined; expires?: string | undefined; status?: KeyInfo['status'] | undefined },
  kid: string,
  alg: SigningAlg,
  read: { bits: number; publicParts: RsaPublicParts },
): NewKeyBase {
  return {
    kid,
    alg,
    bits: read.bits,
    label: input.label ?? '',
    counterparty_guid: null,
    expires: input.expires ?? null,
    status: input.status,
    public_jwk: specJwk(read.publicParts, kid, alg),
  };
}

/** Reads a private key the user gave, seals it and adds it; the clear bytes are zeroed. */
export async function importKey(
  state: KeyStoreState,
  input: z.output<typeof ImportKeyInput>,
): Promise<KeyInfo> {
  checkExpiresAhead(input.expires, state.now());
  const read = readPrivateKey(input.text);
  try {
    const named = importedAlgAndKid(read, input);
    const { alg } = named;
    const kid = named.kid ?? randomUUID();
    checkKidFree(await state.file.read(), kid);
    const sealer = await state.vault.sealer();
    const sealed = await sealPrivateKey(sealer, kid, read.pkcs8);
    return await addKey(state, { ...givenKeyBase(input, kid, alg, read), sealed_private_key: sealed });
  } finally {
    read.pkcs8.fill(0);
  }
}
