/**
 * The sandbox's own signing keys: the service's key in spec 2.4 / 4.1 #3, which signs the
 * session_token and the X-Session-ID, and whose public part the JWKS publishes.
 *
 * Threat model: the private key signs tokens every bank under test trusts, so it is never
 * written in plaintext. With a SecretSealer (the vault) its PKCS#8 form is stored sealed, bound
 * to its purpose (`sandbox-key:<kid>`), and reloaded on restart; without one it lives in memory
 * only and a restart makes a new key (the caller says so: DESIGN.md "Secrets", no silent
 * plaintext fallback). A key that cannot be reopened (no vault now, another vault) is not an
 * error: it is retired like a rotated key, so tokens it signed still verify during the grace
 * period, and a new key signs.
 *
 * Rotation: the new key is active at once; the old one stays published with status `grace`
 * until `retires_at`, then is dropped (lazily, when the keys are next read).
 *
 * Signing is on the authenticate endpoint's hot path, so it uses node:crypto's asynchronous
 * `sign` (RSA in libuv's thread pool, a few microseconds on the event loop) rather than
 * WebCrypto, whose per-call argument normalization costs ~0.1 ms of event-loop time per
 * signature (measured on Node 20); the JWS itself is three base64url segments (RFC 7515).
 * Verifying bank tokens stays with jose (bank-jwt.ts).
 */
import { createPrivateKey, generateKeyPair, randomUUID, sign as rsaSign, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { PublicJwk, SandboxKey } from '../../contract/schemas/sandbox';
import { publicRsaJwk, SERVICE_ALG } from '../jwt';
import type { StoredSandboxKey } from './state-schema';
import type { SecretSealer } from '../vault';

/** RSA modulus of the sandbox's keys, in bits. */
export const SANDBOX_KEY_BITS = 2048;

/** A published key as the spec's JWK set lists it: alg, e, kid, kty, n, use (spec 2.1, 2.2). */
export interface PublishedJwk {
  alg: string;
  e: string;
  kid: string;
  kty: string;
  n: string;
  use: string;
}

interface LiveKey {
  kid: string;
  createdAt: string;
  status: 'active' | 'grace';
  retiresAt: string | null;
  jwk: PublishedJwk;
  /** Only the active key has one. */
  privateKey: KeyObject | null;
  /** base64url of the protected header {alg, kid, typ}, the same for every token. */
  header: string;
  sealed: string | null;
}

/** A key as SandboxStatus shows it; the state file adds the sealed private part to this. */
function publicView(k: LiveKey): SandboxKey {
  return {
    kid: k.kid,
    created_at: k.createdAt,
    status: k.status,
    retires_at: k.retiresAt,
    jwk: { ...k.jwk },
  };
}

const aadFor = (kid: string) => `sandbox-key:${kid}`;
const iso = (ms: number) => new Date(ms).toISOString();

const generateRsa = promisify(generateKeyPair);
const headerFor = (kid: string) =>
  Buffer.from(JSON.stringify({ alg: SERVICE_ALG, kid, typ: 'JWT' })).toString('base64url');

async function generate(nowMs: number, sealer: SecretSealer | undefined): Promise<LiveKey> {
  const kid = randomUUID();
  const pair = await generateRsa('rsa', { modulusLength: SANDBOX_KEY_BITS, publicExponent: 0x10001 });
  const pub = publicRsaJwk(pair.publicKey);
  const jwk: PublishedJwk = {
    alg: SERVICE_ALG,
    e: pub.e,
    kid,
    kty: 'RSA',
    n: pub.n,
    use: 'sig',
  };
  let sealed: string | null = null;
  if (sealer) {
    const pkcs8 = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    sealed = await sealer.seal(new TextEncoder().encode(pkcs8), aadFor(kid));
  }
  return {
    kid,
    createdAt: iso(nowMs),
    status: 'active',
    retiresAt: null,
    jwk,
    privateKey: pair.privateKey,
    header: headerFor(kid),
    sealed,
  };
}

export class SigningKeys {
  private constructor(
    private keys: LiveKey[],
    private readonly sealer: SecretSealer | undefined,
  ) {}

  /**
   * Loads the stored keys, reopening the active one when a sealer can; otherwise retires it and
   * makes a new one. `notices` says what happened, for the person running the console.
   */
  static async load(
    stored: StoredSandboxKey[],
    options: { sealer?: SecretSealer; nowMs: number; graceSeconds: number },
  ): Promise<{ keys: SigningKeys; notices: string[]; changed: boolean }> {
    const { sealer, nowMs, graceSeconds } = options;
    const notices: string[] = [];
    let changed = false;
    const live: LiveKey[] = [];
    const graceUntil = iso(nowMs + graceSeconds * 1000);
    // Newest active first: it is the one to reopen; any other "active" entry is retired.
    const ordered = [...stored].sort((a, b) => b.created_at.localeCompare(a.created_at));
    let active: LiveKey | null = null;
    for (const s of ordered) {
      if (s.status === 'grace' && s.retires_at !== null && Date.parse(s.retires_at) <= nowMs) {
        changed = true;
        continue; // retired while the console was not running
      }
      const entry: LiveKey = {
        kid: s.kid,
        createdAt: s.created_at,
        status: s.status,
        retiresAt: s.retires_at,
        jwk: toPublished(s.jwk, s.kid),
        privateKey: null,
        header: headerFor(s.kid),
        sealed: s.status === 'active' ? s.sealed_private_key : null,
      };
      if (s.status === 'active' && active === null) {
        const reopened = await reopen(s, sealer);
        if (reopened.key) {
          entry.privateKey = reopened.key;
          active = entry;
        } else {
          notices.push(
            `${reopened.why}; it stays published until ${graceUntil} and a new key signs from now on`,
          );
        }
      }
      if (entry !== active && entry.status === 'active') {
        entry.status = 'grace';
        entry.retiresAt = graceUntil;
        entry.sealed = null;
        changed = true;
      }
      live.push(entry);
    }
    const keys = new SigningKeys(live, sealer);
    if (!active) {
      await keys.rotate(nowMs, graceSeconds);
      changed = true;
    }
    return { keys, notices, changed };
  }

  /** vault: the active key survives restarts; memory: a restart publishes a new key. */
  get persistence(): 'vault' | 'memory' {
    return this.sealer ? 'vault' : 'memory';
  }

  get activeKid(): string {
    return this.active().kid;
  }

  private active(): LiveKey {
    const key = this.keys.find((k) => k.status === 'active' && k.privateKey);
    if (!key) throw new Error('the sandbox has no active signing key');
    return key;
  }

  /** Drops grace keys whose time is up; true when one was dropped. */
  prune(nowMs: number): boolean {
    const before = this.keys.length;
    this.keys = this.keys.filter(
      (k) => !(k.status === 'grace' && k.retiresAt !== null && Date.parse(k.retiresAt) <= nowMs),
    );
    return this.keys.length !== before;
  }

  /** The JWK set of spec 2.2: the active key first, then those in their grace period. */
  jwks(nowMs: number): { keys: PublishedJwk[] } {
    this.prune(nowMs);
    return { keys: this.ordered().map((k) => ({ ...k.jwk })) };
  }

  /** The keys as SandboxStatus shows them. */
  status(nowMs: number): SandboxKey[] {
    this.prune(nowMs);
    return this.ordered().map(publicView);
  }

  /** How many keys are published (the active one and those in their grace period). */
  count(nowMs: number): number {
    this.prune(nowMs);
    return this.keys.length;
  }

  /** What the state file keeps: public parts, and the active private key only sealed. */
  toStored(nowMs: number): StoredSandboxKey[] {
    this.prune(nowMs);
    return this.ordered().map((k) => ({
      ...publicView(k),
      sealed_private_key: k.status === 'active' ? k.sealed : null,
    }));
  }

  /**
   * Makes a new active key; the old active one is published until now + `graceSeconds`.
   * Returns the new kid.
   */
  async rotate(nowMs: number, graceSeconds: number): Promise<string> {
    const fresh = await generate(nowMs, this.sealer);
    const retiresAt = iso(nowMs + graceSeconds * 1000);
    for (const k of this.keys) {
      if (k.status !== 'active') continue;
      k.status = 'grace';
      k.retiresAt = retiresAt;
      k.privateKey = null;
      k.sealed = null;
    }
    this.keys.unshift(fresh);
    this.prune(nowMs);
    return fresh.kid;
  }

  /**
   * Signs a JWT with the active key: header {alg: RS256, kid, typ: JWT}, the claims as given
   * (in their order), RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3).
   *
   * @example
   * await keys.sign({ flow: 'sign-in', obj, sub, iat, exp });
   */
  sign(claims: Record<string, unknown>): Promise<string> {
    const key = this.active();
    const input = `${key.header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return new Promise((resolve, reject) => {
      rsaSign('sha256', Buffer.from(input), key.privateKey as KeyObject, (err, signature) => {
        if (err) reject(err);
        else resolve(`${input}.${signature.toString('base64url')}`);
      });
    });
  }

  private ordered(): LiveKey[] {
    return [...this.keys].sort((a, b) =>
      a.status === b.status ? b.createdAt.localeCompare(a.createdAt) : a.status === 'active' ? -1 : 1,
    );
  }
}

function toPublished(jwk: PublicJwk, kid: string): PublishedJwk {
  return {
    alg: String(jwk.alg ?? SERVICE_ALG),
    e: String(jwk.e),
    kid,
    kty: String(jwk.kty),
    n: String(jwk.n),
    use: String(jwk.use ?? 'sig'),
  };
}

async function reopen(
  stored: StoredSandboxKey,
  sealer: SecretSealer | undefined,
): Promise<{ key: KeyObject; why?: undefined } | { key: null; why: string }> {
  const kid = JSON.stringify(stored.kid);
  if (stored.sealed_private_key === null) {
    return { key: null, why: `the previous sandbox signing key (kid ${kid}) was kept in memory only` };
  }
  if (!sealer) {
    return {
      key: null,
      why: `the sandbox signing key (kid ${kid}) is sealed by the vault, which is not open now`,
    };
  }
  try {
    const bytes = await sealer.open(stored.sealed_private_key, aadFor(stored.kid));
    const key = createPrivateKey({ key: Buffer.from(bytes), format: 'pem', type: 'pkcs8' });
    bytes.fill(0);
    if (key.asymmetricKeyType !== 'rsa') throw new Error(`it is a ${key.asymmetricKeyType} key, not RSA`);
    return { key };
  } catch (err) {
    return {
      key: null,
      why: `the sandbox signing key (kid ${kid}) could not be unsealed (${err instanceof Error ? err.message : String(err)})`,
    };
  }
}
