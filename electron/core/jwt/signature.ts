/**
 * Verifying a compact JWS's signature, restricted to the one alg the caller has already judged
 * allowed (policy.ts), so the token cannot pick another. Returns a verdict instead of throwing.
 *
 * The verify itself is node:crypto's one-shot `crypto.verify` on a KeyObject cached per key by
 * the key set (key-source.ts), so a callback's verdict costs one RSA verification: inline while
 * the event loop is quiet, in libuv's thread pool while it is busy (see loopBusy). Keys reach
 * here only through a key set, which has already applied the RSA key rules (rsa.ts).
 *
 * Threat model: the signature's length is the token's to choose. RFC 8017 §8.1.2 step 1 (PSS)
 * and §8.2.2 step 1 (PKCS#1 v1.5) require it to be exactly k octets, the modulus's length, and
 * the verdict must not depend on the library: OpenSSL refuses a short RS* signature but accepts
 * a PS* one with its leading zero octet stripped (issue 24, found by an independent oracle). So
 * the length is judged here, once, before any library sees the signature.
 */
import { constants, verify as cryptoVerify, type KeyObject, type VerifyKeyObjectInput } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { AllowedAlg } from './policy';

export type SignatureVerdict =
  | { ok: true }
  | {
      ok: false;
      code: 'SIGNATURE_INVALID' | 'SIGNATURE_EMPTY' | 'SIGNATURE_LENGTH' | 'VERIFY_ERROR';
      message: string;
    };

const HASH: Record<AllowedAlg, string> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  PS256: 'sha256',
  PS384: 'sha384',
  PS512: 'sha512',
};
/** RFC 7518 §3.5: the PSS salt is as long as the hash. */
const PSS_SALT: Partial<Record<AllowedAlg, number>> = { PS256: 32, PS384: 48, PS512: 64 };

/**
 * Whether the event loop has been busy lately (utilization over the last ~100 ms above half).
 * A quiet loop verifies inline: lowest latency, and nothing queues behind the file system in
 * libuv's thread pool. A busy one hands the RSA work to the thread pool, beside the loop.
 */
let busy = false;
let gauge: NodeJS.Timeout | null = null;
/**
 * Whether libuv's pool can run beside the loop at all: with one CPU to run on (a machine with
 * one core, or a process pinned to one, e.g. `taskset -c`), a hand-off only adds a thread
 * switch and a promise to the same core's work, so the verify stays inline.
 */
const POOL_BESIDE_LOOP = availableParallelism() > 1;
function loopBusy(): boolean {
  if (!POOL_BESIDE_LOOP) return false;
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

/** The signing input and signature of a compact JWS, split once. */
export interface SignedParts {
  data: Buffer;
  signature: Buffer;
}

/** Splits `token` into its signing input and signature bytes; null when the signature segment is empty. */
export function signedParts(token: string): SignedParts | null {
  const lastDot = token.lastIndexOf('.');
  if (lastDot < 0 || lastDot === token.length - 1) return null;
  return {
    data: Buffer.from(token.slice(0, lastDot), 'utf8'),
    signature: Buffer.from(token.slice(lastDot + 1), 'base64url'),
  };
}

function keyInput(key: KeyObject, alg: AllowedAlg): VerifyKeyObjectInput {
  const pss = PSS_SALT[alg];
  return pss === undefined
    ? { key, padding: constants.RSA_PKCS1_PADDING }
    : { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: pss };
}

const verifyError = (label: string, err: unknown): SignatureVerdict => ({
  ok: false,
  code: 'VERIFY_ERROR',
  message: `could not verify with ${label}: ${err instanceof Error ? err.message : String(err)}`,
});

/** The modulus length k in octets, per key (asymmetricKeyDetails builds an object on each read). */
const modulusOctets = new WeakMap<KeyObject, number>();
function octetsOf(key: KeyObject): number {
  let k = modulusOctets.get(key);
  if (k === undefined) {
    k = Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
    modulusOctets.set(key, k);
  }
  return k;
}

/**
 * Why a signature of `length` octets cannot be a signature of a key whose modulus has `k` octets
 * (RFC 8017 §8.1.2 / §8.2.2 step 1), or null when the length is right.
 */
export function signatureLengthProblem(length: number, k: number, label: string): string | null {
  if (length === k) return null;
  const zero =
    length === k - 1
      ? ' (a signature whose leading zero octet was stripped is one octet short: the signer must left-pad it to k octets, RFC 8017 §5.2.1 I2OSP)'
      : '';
  return `the signature is ${length} octets, but ${label} has a ${k}-octet modulus: RFC 8017 (§8.1.2 for PS*, §8.2.2 for RS*) requires exactly ${k}${zero}`;
}

const judged = (good: boolean, label: string): SignatureVerdict =>
  good
    ? { ok: true }
    : {
        ok: false,
        code: 'SIGNATURE_INVALID',
        message: `does not verify with ${label}: signed by another key, or altered after signing?`,
      };

/**
 * Checks the signature in `parts` with `key` for `alg`. `label` names the key in messages
 * ("key kid=abc").
 *
 * @example
 * const parts = signedParts(token);
 * const v = parts ? await verifySignature(parts, key, 'RS256', 'key kid=abc') : null;
 */
export function verifySignature(
  parts: SignedParts,
  key: KeyObject,
  alg: AllowedAlg,
  label: string,
): SignatureVerdict | Promise<SignatureVerdict> {
  const length = signatureLengthProblem(parts.signature.length, octetsOf(key), label);
  if (length !== null) return { ok: false, code: 'SIGNATURE_LENGTH', message: length };
  const input = keyInput(key, alg);
  if (!loopBusy()) {
    try {
      return judged(cryptoVerify(HASH[alg], parts.data, input, parts.signature), label);
    } catch (err) {
      return verifyError(label, err);
    }
  }
  return new Promise((resolve) => {
    try {
      cryptoVerify(HASH[alg], parts.data, input, parts.signature, (err, good) =>
        resolve(err ? verifyError(label, err) : judged(good, label)),
      );
    } catch (err) {
      resolve(verifyError(label, err));
    }
  });
}
