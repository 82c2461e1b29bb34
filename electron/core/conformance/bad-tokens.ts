/**
 * The deliberately bad X-Session-ID of each negative case (plan.ts NEGATIVE_KINDS), with the
 * words a report uses for it: what was sent, and what a bank that accepts it lets through.
 * Every one of them must fail the service's own rules (the runner checks that against the
 * verification engine before sending it, cases/negative.ts).
 */
import { randomBytes } from 'node:crypto';
import { LEEWAY_SECONDS } from '../jwt';
import { hs256WithPublicKey, serviceClaims, signRs256, unsignedToken, type RunnerKey } from './keys';
import type { NegativeKind } from './plan';

/** How far past the leeway the time cases go, in seconds (2 minutes from now). */
const TIME_OFFSET_S = 120;

export interface BadToken {
  token: string | null;
  label: string;
  /** What was sent, for the detail. */
  sent: string;
  /** What accepting it means, for the detail. */
  accepted: string;
}

/** Who the bad token is for and what signs it. */
export interface BadTokenInput {
  obj: string;
  sub: string;
  first: RunnerKey;
  stranger: RunnerKey;
  /** The claims' clock, whole seconds. */
  nowS: number;
}

/**
 * The deliberately bad X-Session-ID of a negative case.
 *
 * @example
 * const bad = badToken('alg-none', { obj, sub, first, stranger, nowS });
 * bad.label; // 'alg none'
 */
export function badToken(kind: NegativeKind, k: BadTokenInput): BadToken {
  const claims = (over: Record<string, unknown> = {}) => serviceClaims(k.obj, k.sub, k.nowS, over);
  const signed = (over: Record<string, unknown>) => signRs256(k.first.privateKey, k.first.kid, claims(over));
  const leeway = `${LEEWAY_SECONDS} s leeway`;
  switch (kind) {
    case 'no-header':
      return {
        token: null,
        label: 'no X-Session-ID',
        sent: 'no X-Session-ID header at all',
        accepted: 'a callback with no token: anyone can read the customer’s data',
      };
    case 'not-jwt':
      return {
        token: 'not-a-jwt',
        label: 'not a JWT',
        sent: 'X-Session-ID "not-a-jwt"',
        accepted: 'a value that is not a JWT at all',
      };
    case 'alg-none':
      return {
        token: unsignedToken(k.first.kid, claims()),
        label: 'alg none',
        sent: `an unsigned token (header alg "none", kid ${k.first.kid}, good claims, empty signature)`,
        accepted: 'an unsigned token: anyone can forge one',
      };
    case 'hs256-public-key':
      return {
        token: hs256WithPublicKey(k.first, claims()),
        label: 'HS256 keyed with the public key',
        sent: `an HS256 token (kid ${k.first.kid}) whose HMAC secret is the service's public key (PEM)`,
        accepted:
          'an HMAC token keyed with the public key (algorithm confusion): anyone who has the JWKS can forge one',
      };
    case 'wrong-key':
      return {
        token: signRs256(k.stranger.privateKey, k.first.kid, claims()),
        label: 'right kid, another key',
        sent: `an RS256 token with the published kid ${k.first.kid} but signed with another, unpublished key`,
        accepted: 'a signature that does not verify with the kid’s key: it does not check the signature',
      };
    case 'unknown-kid': {
      const kid = `unknown-${randomBytes(6).toString('hex')}`;
      return {
        token: signRs256(k.stranger.privateKey, kid, claims()),
        label: 'unknown kid',
        sent: `an RS256 token with kid ${kid}, which the JWKS does not publish, signed with an unpublished key`,
        accepted: 'a token whose kid is in no JWKS of the service',
      };
    }
    case 'expired':
      return {
        token: signed({ iat: k.nowS - TIME_OFFSET_S - 300, exp: k.nowS - TIME_OFFSET_S }),
        label: 'expired',
        sent: `a well-signed token with exp ${TIME_OFFSET_S} s in the past (beyond a ${leeway})`,
        accepted: 'an expired token: a stolen token would work forever',
      };
    case 'iat-future':
      return {
        token: signed({ iat: k.nowS + TIME_OFFSET_S, exp: k.nowS + TIME_OFFSET_S + 300 }),
        label: 'iat in the future',
        sent: `a well-signed token with iat ${TIME_OFFSET_S} s in the future (beyond a ${leeway})`,
        accepted: 'a token issued in the future',
      };
    case 'flow':
      return {
        token: signed({ flow: 'sign-up' }),
        label: 'flow sign-up',
        sent: 'a well-signed token with flow "sign-up" (spec 2.4: always sign-in)',
        accepted: 'a token for another flow',
      };
    case 'unknown-obj': {
      const obj = `conformance-unknown-${randomBytes(6).toString('hex')}`;
      return {
        token: signed({ obj }),
        label: 'unknown obj',
        sent: `a well-signed token for obj ${JSON.stringify(obj)}, a customer the bank cannot know`,
        accepted: 'a token for a customer it does not know',
      };
    }
    case 'foreign-sub': {
      const sub = `conformance-foreign-${randomBytes(6).toString('hex')}@invalid`;
      return {
        token: signed({ sub }),
        label: 'foreign sub',
        sent: `a well-signed token for obj ${JSON.stringify(k.obj)} with sub ${JSON.stringify(sub)} instead of ${JSON.stringify(k.sub)}`,
        accepted: 'the right obj with a foreign sub: it does not check the subject (spec 2.4, 5.5)',
      };
    }
  }
}
