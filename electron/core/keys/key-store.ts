/**
 * The bank's signing keys (DESIGN.md "keys"): generate (jose), import (PEM PKCS#8, PKCS#1,
 * private JWK), export the public part exactly as spec 2.1 lists it, and sign compact JWS.
 *
 * Threat model: a private key here lets anyone act as the bank towards the service. So:
 * - it is sealed by the vault (AES-256-GCM under the keychain's vault key, aad
 *   `signing-key:<kid>` so a blob cannot be swapped onto another kid) before anything is
 *   written, and keys.json holds only the sealed blob;
 * - it is opened only inside sign(), imported as a non-extractable WebCrypto key for that one
 *   signature, and the opened bytes are zeroed at once;
 * - it is never returned (KeyInfo and exports carry the public JWK and fingerprint only), never
 *   logged, and never put in an error message, in clear.
 *
 * Status rules (explicit, no hidden rotation): the first key becomes `active`; later keys are
 * `next` unless asked otherwise. Making a key active (on generate, import or update) turns the
 * key that was active into `retired`, so at most one key is active. Retired keys still sign
 * (a rotation needs the old key briefly); expired keys do not.
 *
 * keys.json is re-read before every operation, so the CLI and a running `serve` see each
 * other's changes; changes within one process are serialized. Two processes changing keys in
 * the same instant can still race (the later write wins); the file itself is never torn.
 */
import { createPublicKey, KeyObject, randomUUID, webcrypto } from 'node:crypto';
import { calculateJwkThumbprint, generateKeyPair, SignJWT } from 'jose';
import type { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import {
  Kid,
  type ExportedKey,
  type GenerateKeyInput,
  type ImportKeyInput,
  type KeyInfo,
  type SigningAlg,
  type SpecJwk,
  type UpdateKeyInput,
  SigningAlg as SigningAlgSchema,
} from '../../contract/schemas/keys';
import { fieldProblem, firstIssueMessage, serializer } from '../common';
import { daysUntil, isExpired } from './expiry';
import { KeyFile, type StoredKey } from './key-file';
import { readPrivateKey, type RsaPublicParts } from './private-key';
import type { KeyStore, KeyStoreOptions } from './types';
import type { SecretSealer } from '../vault';
import { publicRsaJwk, rsaRuleProblem } from '../jwt';

/** Binds a sealed private key to its kid: a blob moved onto another kid does not open. */
export const aadFor = (kid: string) => `signing-key:${kid}`;

const DEFAULT_ALG: SigningAlg = 'RS256';
const DEFAULT_BITS = 2048;
/** jose's generateKeyPair always uses e = 65537 (F4). */
const GENERATED_EXPONENT = 0x10001n;

/** WebCrypto import parameters per JWS alg (RFC 7518 §3.3, §3.5). */
const WEBCRYPTO_ALG: Record<SigningAlg, webcrypto.RsaHashedImportParams> = {
  RS256: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  RS384: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384' },
  RS512: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512' },
  PS256: { name: 'RSA-PSS', hash: 'SHA-256' },
};

const quote = (s: string) => JSON.stringify(s);

/** The spec's JWK (2.1): exactly alg, e, kid, kty, n, use, in that order. */
export function specJwk(parts: RsaPublicParts, kid: string, alg: SigningAlg): SpecJwk {
  return { alg, e: parts.e, kid, kty: 'RSA', n: parts.n, use: 'sig' };
}

/** A kid made safe for a file name. */
function fileStem(kid: string): string {
  return kid.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'key';
}

interface NewKey {
  kid: string;
  alg: SigningAlg;
  bits: number;
  label: string;
  counterparty_guid: string | null;
  expires: string | null;
  status: StoredKey['status'] | undefined;
  public_jwk: SpecJwk;
  sealed_private_key: string;
}

/**
 * Opens the key store of a profile. Nothing is read until first use.
 *
 * @example
 * const keys = createKeyStore({ dataDir, vault, events });
 * const info = await keys.generate({ alg: 'RS256', bits: 2048 });
 * const token = await keys.sign(info.kid, { flow: 'sign-in', obj, sub, iat, exp });
 */
export function createKeyStore(options: KeyStoreOptions): KeyStore {
  const { vault, events } = options;
  const now = options.now ?? Date.now;
  const file = new KeyFile(options.dataDir);
  const exclusive = serializer();
  const thumbprints = new Map<string, string>();

  async function fingerprint(jwk: SpecJwk): Promise<string> {
    const cached = thumbprints.get(jwk.n);
    if (cached) return cached;
    const value = await calculateJwkThumbprint({ kty: 'RSA', e: jwk.e, n: jwk.n }, 'sha256');
    thumbprints.set(jwk.n, value);
    return value;
  }

  async function info(k: StoredKey): Promise<KeyInfo> {
    return {
      kid: k.kid,
      alg: k.alg,
      bits: k.bits,
      label: k.label,
      counterparty_guid: k.counterparty_guid,
      status: k.status,
      created_at: k.created_at,
      expires: k.expires,
      expires_in_days: k.expires === null ? null : daysUntil(k.expires, now()),
      fingerprint: await fingerprint(k.public_jwk),
      public_jwk: { ...k.public_jwk },
    };
  }

  const infos = (keys: StoredKey[]) => Promise.all(keys.map(info));

  function find(keys: StoredKey[], kid: string): StoredKey {
    const key = keys.find((k) => k.kid === kid);
    if (!key) {
      const known =
        keys.length > 0 ? `known kids: ${keys.map((k) => quote(k.kid)).join(', ')}` : 'there are no keys yet';
      throw new ConsoleError('NOT_FOUND', `no signing key with kid ${quote(kid)} (${known})`, { kid });
    }
    return key;
  }

  function checkExpiresAhead(expires: string | null | undefined): void {
    if (expires && isExpired(expires, now())) {
      throw fieldProblem(
        'expires',
        `${expires} is in the past: give the last day the key may sign, today or later`,
      );
    }
  }

  function checkKidFree(keys: StoredKey[], kid: string): void {
    // Callers inside the core (rotation) skip the contract's validation: check the kid here too.
    const valid = Kid.safeParse(kid);
    if (!valid.success) throw fieldProblem('kid', firstIssueMessage(valid.error, 'not a valid kid'));
    if (keys.some((k) => k.kid === kid)) {
      throw new ConsoleError('CONFLICT', `a key with kid ${quote(kid)} already exists: choose another kid`, {
        kid,
      });
    }
  }

  /** Makes `kid` the only active key: the one active before becomes retired. */
  function activate(keys: StoredKey[], kid: string): StoredKey[] {
    return keys.map((k) =>
      k.kid === kid ? { ...k, status: 'active' } : k.status === 'active' ? { ...k, status: 'retired' } : k,
    );
  }

  async function commit(keys: StoredKey[]): Promise<void> {
    await file.write(keys);
    events.emit('keys.changed', await infos(keys));
  }

  async function add(key: NewKey): Promise<KeyInfo> {
    return exclusive(async () => {
      const keys = await file.read();
      checkKidFree(keys, key.kid);
      const thumb = await fingerprint(key.public_jwk);
      for (const k of keys) {
        if ((await fingerprint(k.public_jwk)) === thumb) {
          throw new ConsoleError(
            'CONFLICT',
            `this key is already stored, with kid ${quote(k.kid)} (same public key, fingerprint ${thumb})`,
            { kid: k.kid },
          );
        }
      }
      const status = key.status ?? (keys.some((k) => k.status === 'active') ? 'next' : 'active');
      const stored: StoredKey = {
        kid: key.kid,
        alg: key.alg,
        bits: key.bits,
        label: key.label,
        counterparty_guid: key.counterparty_guid,
        status,
        created_at: new Date(now()).toISOString(),
        expires: key.expires,
        public_jwk: key.public_jwk,
        sealed_private_key: key.sealed_private_key,
      };
      let next = [...keys, stored];
      if (status === 'active') next = activate(next, stored.kid);
      await commit(next);
      return info(find(next, stored.kid));
    });
  }

  /** Seals PKCS#8 DER for `kid` and zeroes the clear bytes, whatever happens. */
  async function seal(sealer: SecretSealer, kid: string, pkcs8: Uint8Array): Promise<string> {
    try {
      return await sealer.seal(pkcs8, aadFor(kid));
    } finally {
      pkcs8.fill(0);
    }
  }

  return {
    async list() {
      return infos(await file.read());
    },

    async get(kid) {
      return info(find(await file.read(), kid));
    },

    async generate(input: z.output<typeof GenerateKeyInput>) {
      const alg = input.alg ?? DEFAULT_ALG;
      const bits = input.bits ?? DEFAULT_BITS;
      const kid = input.kid ?? randomUUID();
      // Core callers (rotation, walkthrough) skip the contract's schema: the key rules hold anyway.
      const problem = rsaRuleProblem(bits, GENERATED_EXPONENT);
      if (problem !== null) throw fieldProblem('bits', problem);
      checkExpiresAhead(input.expires);
      checkKidFree(await file.read(), kid); // before seconds of key generation; again when adding
      const sealer = await vault.sealer(); // a locked or missing vault fails before any work
      const pair = await generateKeyPair(alg, { modulusLength: bits, extractable: true });
      const pkcs8 = new Uint8Array(await webcrypto.subtle.exportKey('pkcs8', pair.privateKey));
      const sealed = await seal(sealer, kid, pkcs8);
      const pub = publicRsaJwk(KeyObject.from(pair.publicKey as webcrypto.CryptoKey));
      return add({
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
    },

    async import(input: z.output<typeof ImportKeyInput>) {
      checkExpiresAhead(input.expires);
      const read = readPrivateKey(input.text);
      try {
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
        kid ??= randomUUID();
        checkKidFree(await file.read(), kid);
        const sealer = await vault.sealer();
        const sealed = await seal(sealer, kid, read.pkcs8);
        return await add({
          kid,
          alg,
          bits: read.bits,
          label: input.label ?? '',
          counterparty_guid: null,
          expires: input.expires ?? null,
          status: input.status,
          public_jwk: specJwk(read.publicParts, kid, alg),
          sealed_private_key: sealed,
        });
      } finally {
        read.pkcs8.fill(0);
      }
    },

    async export(input) {
      const key = find(await file.read(), input.kid);
      const stem = fileStem(key.kid);
      const jwk = specJwk({ kty: 'RSA', n: key.public_jwk.n, e: key.public_jwk.e }, key.kid, key.alg);
      let out: z.output<typeof ExportedKey>;
      switch (input.format) {
        case 'jwk':
          out = {
            text: `${JSON.stringify(jwk, null, 2)}\n`,
            filename: `${stem}.jwk.json`,
            mime: 'application/jwk+json',
          };
          break;
        case 'jwks':
          out = {
            text: `${JSON.stringify({ keys: [jwk] }, null, 2)}\n`,
            filename: `${stem}.jwks.json`,
            mime: 'application/jwk-set+json',
          };
          break;
        case 'pem': {
          const pem = createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' }).export({
            type: 'spki',
            format: 'pem',
          });
          out = { text: String(pem), filename: `${stem}.pub.pem`, mime: 'application/x-pem-file' };
          break;
        }
      }
      return out;
    },

    async update(input: z.output<typeof UpdateKeyInput>) {
      return exclusive(async () => {
        const keys = await file.read();
        const key = find(keys, input.kid);
        if (input.expires !== undefined) checkExpiresAhead(input.expires);
        const changed: StoredKey = {
          ...key,
          ...(input.label !== undefined ? { label: input.label } : {}),
          ...(input.expires !== undefined ? { expires: input.expires } : {}),
          ...(input.counterparty_guid !== undefined ? { counterparty_guid: input.counterparty_guid } : {}),
        };
        if (input.status === 'active' && isExpired(changed.expires, now())) {
          throw new ConsoleError(
            'KEY_INVALID',
            `key ${quote(key.kid)} expired on ${String(changed.expires)}: it cannot become the active key`,
          );
        }
        if (input.status !== undefined && input.status !== 'active') changed.status = input.status;
        let next = keys.map((k) => (k.kid === key.kid ? changed : k));
        if (input.status === 'active') next = activate(next, key.kid);
        await commit(next);
        return info(find(next, key.kid));
      });
    },

    async delete(input) {
      if (input.confirm !== true) throw fieldProblem('confirm', 'confirm must be true');
      await exclusive(async () => {
        const keys = await file.read();
        find(keys, input.kid);
        await commit(keys.filter((k) => k.kid !== input.kid));
      });
    },

    async sign(kid, payload) {
      const key = find(await file.read(), kid);
      if (isExpired(key.expires, now())) {
        throw new ConsoleError(
          'KEY_INVALID',
          `key ${quote(kid)} expired on ${String(key.expires)}: it no longer signs; generate or activate another key`,
          { kid },
        );
      }
      const sealer = await vault.sealer();
      let pkcs8: Uint8Array;
      try {
        pkcs8 = await sealer.open(key.sealed_private_key, aadFor(kid));
      } catch (err) {
        if (err instanceof ConsoleError) throw err;
        // The sealer's own text says why (another vault, a damaged blob); it never holds the key.
        throw new ConsoleError(
          'KEY_INVALID',
          `the private key of ${quote(kid)} could not be opened with this profile's vault (sealed by another ` +
            `vault, or damaged): ${err instanceof Error ? err.message : String(err)}`,
          { kid },
        );
      }
      let privateKey: webcrypto.CryptoKey;
      try {
        privateKey = await webcrypto.subtle.importKey('pkcs8', pkcs8, WEBCRYPTO_ALG[key.alg], false, [
          'sign',
        ]);
      } catch {
        throw new ConsoleError(
          'KEY_INVALID',
          `the private key of ${quote(kid)} opened but is not a usable RSA key`,
          {
            kid,
          },
        );
      } finally {
        pkcs8.fill(0);
      }
      return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid, typ: 'JWT' }).sign(privateKey);
    },
  };
}
