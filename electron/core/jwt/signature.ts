/**
 * Verifying a compact JWS's signature with one key, restricted to the one alg the caller has
 * already judged allowed (policy.ts), so the token cannot pick another. Returns a verdict
 * instead of throwing.
 *
 * The verify itself is node:crypto's one-shot `crypto.verify` on a KeyObject (cheaper than
 * WebCrypto's `subtle.verify`, whose promise-wrapped job costs more than the RSA itself): inline
 * while the event loop is quiet, in libuv's thread pool while it is busy (see loopBusy). The
 * bank's callbacks verify on every request (issue 5's bench). The KeyObject is derived once per
 * key (WeakMap) and checked the way jose checks it: an RSA key, at least 2048 bits.
 */
import { KeyObject, constants, verify as cryptoVerify, type VerifyKeyObjectInput } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { CryptoKey } from 'jose';
import type { AllowedAlg } from './policy';

export type SignatureVerdict =
  | { ok: true }
  | {
      ok: false;
      code: 'SIGNATURE_INVALID' | 'SIGNATURE_EMPTY' | 'KEY_TOO_SMALL' | 'VERIFY_ERROR';
      message: string;
    };

const MIN_RSA_BITS = 2048;
const HASH: Record<AllowedAlg, string> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  PS256: 'sha256',
  PS384: 'sha384',
  PS512: 'sha512',
};
const PSS_SALT: Partial<Record<AllowedAlg, number>> = { PS256: 32, PS384: 48, PS512: 64 };

/**
 * Whether the event loop has been busy lately (utilization over the last ~100 ms above half).
 * A quiet loop verifies inline: lowest latency, and nothing queues behind the file system's
 * fsyncs in libuv's thread pool. A busy one hands the RSA work to the thread pool, where it runs
 * beside the loop on another core.
 */
let busy = false;
let gauge: NodeJS.Timeout | null = null;
function loopBusy(): boolean {
  if (gauge === null) {
    let last = performance.eventLoopUtilization();
    gauge = setInterval(() => {
      const now = performance.eventLoopUtilization();
      busy = performance.eventLoopUtilization(now, last).utilization > 0.5;
      last = now;
    }, 100);
    gauge.unref();
  }
  return busy;
}

const keyObjects = new WeakMap<CryptoKey, KeyObject | string>();

/** The key as a verifying KeyObject, or why it cannot verify. */
function keyObjectFor(key: CryptoKey, alg: AllowedAlg): KeyObject | string {
  let k = keyObjects.get(key);
  if (k === undefined) {
    try {
      const obj = KeyObject.from(key as unknown as Parameters<typeof KeyObject.from>[0]);
      k = obj.type !== 'public' && obj.type !== 'private' ? 'it is not an RSA key' : obj;
    } catch (err) {
      k = err instanceof Error ? err.message : String(err);
    }
    keyObjects.set(key, k);
  }
  if (typeof k === 'string') return k;
  if (k.asymmetricKeyType !== 'rsa' && k.asymmetricKeyType !== 'rsa-pss') {
    return `${alg} needs an RSA key, this one is ${k.asymmetricKeyType ?? 'not asymmetric'}`;
  }
  return k;
}

/**
 * Checks the signature of `token` with `key` for `alg`. `label` names the key in messages
 * ("key kid=abc").
 *
 * @example
 * const v = await verifySignature(token, key, 'RS256', 'key kid=abc');
 * if (!v.ok) reply401(v.message);
 */
export function verifySignature(
  token: string,
  key: CryptoKey,
  alg: AllowedAlg,
  label: string,
): Promise<SignatureVerdict> {
  const prepared = prepare(token, key, alg, label);
  if ('ok' in prepared) return Promise.resolve(prepared);
  if (!loopBusy()) {
    try {
      const good = cryptoVerify(prepared.hash, prepared.data, prepared.key, prepared.signature);
      return Promise.resolve(judged(good, label));
    } catch (err) {
      return Promise.resolve(verifyError(label, err));
    }
  }
  return new Promise((resolve) => {
    try {
      cryptoVerify(prepared.hash, prepared.data, prepared.key, prepared.signature, (err, good) =>
        resolve(err ? verifyError(label, err) : judged(good, label)),
      );
    } catch (err) {
      resolve(verifyError(label, err));
    }
  });
}

interface Prepared {
  hash: string;
  data: Buffer;
  key: VerifyKeyObjectInput;
  signature: Buffer;
}

const verifyError = (label: string, err: unknown): SignatureVerdict => ({
  ok: false,
  code: 'VERIFY_ERROR',
  message: `could not verify with ${label}: ${err instanceof Error ? err.message : String(err)}`,
});

const judged = (good: boolean, label: string): SignatureVerdict =>
  good
    ? { ok: true }
    : {
        ok: false,
        code: 'SIGNATURE_INVALID',
        message: `does not verify with ${label}: signed by another key, or altered after signing?`,
      };

/** Everything crypto.verify needs, or the verdict when the token or key cannot be verified. */
function prepare(token: string, key: CryptoKey, alg: AllowedAlg, label: string): Prepared | SignatureVerdict {
  const lastDot = token.lastIndexOf('.');
  if (token.endsWith('.') || lastDot < 0) {
    return {
      ok: false,
      code: 'SIGNATURE_EMPTY',
      message: `the signature segment is empty: the token is not signed`,
    };
  }
  const k = keyObjectFor(key, alg);
  if (typeof k === 'string') return verifyError(label, k);
  const bits = k.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS) {
    return {
      ok: false,
      code: 'KEY_TOO_SMALL',
      message: `${label}: ${alg} requires key modulusLength to be ${MIN_RSA_BITS} bits or larger (it has ${bits})`,
    };
  }
  const pss = PSS_SALT[alg];
  return {
    hash: HASH[alg],
    data: Buffer.from(token.slice(0, lastDot), 'utf8'),
    key:
      pss === undefined
        ? { key: k, padding: constants.RSA_PKCS1_PADDING }
        : { key: k, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: pss },
    signature: Buffer.from(token.slice(lastDot + 1), 'base64url'),
  };
}

/** verifySignature, synchronously (on the calling thread). */
export function verifySignatureSync(
  token: string,
  key: CryptoKey,
  alg: AllowedAlg,
  label: string,
): SignatureVerdict {
  const prepared = prepare(token, key, alg, label);
  if ('ok' in prepared) return prepared;
  try {
    return judged(cryptoVerify(prepared.hash, prepared.data, prepared.key, prepared.signature), label);
  } catch (err) {
    return verifyError(label, err);
  }
}
