/**
 * What the sandbox accepts as a bank's public JWK (onboarding, POST and PUT .../jwk): spec 2.1
 * and DESIGN.md "Sandbox service". An RSA public key (kty RSA, n, e: base64url like every binary
 * member, ../jwt/jwk-members.ts), use "sig" when given, an
 * allowed alg when given, a kid (keys are chosen by kid), the RSA key rules of ../jwt/rsa.ts
 * (at least 2048 bits, an odd exponent between 2^16 and 2^256), importable. Any
 * private member (d, p, q, dp, dq, qi, oth, k) is refused by name and never stored or echoed.
 */
import { importJWK, type JWK } from 'jose';
import type { PublicJwk } from '../../contract/schemas/sandbox';
import {
  ALLOWED_ALGS,
  describeType,
  judgeAlg,
  jwkMemberProblem,
  privateMembers,
  rsaJwkProblem,
  SERVICE_ALG,
} from '../jwt';
import { badRequest } from './errors';

/**
 * Checks `value` (found at `where`, e.g. "data" or "jwk") and returns it as a PublicJwk, or
 * throws BAD_ARGUMENT naming the member at fault.
 *
 * @example
 * const jwk = await checkRegistrableJwk(body.data, 'data');
 */
export async function checkRegistrableJwk(value: unknown, where: string): Promise<PublicJwk> {
  const fail = (detail: string): never => {
    throw badRequest(`${where}: ${detail}`, where);
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return fail(`must be a JWK object, not ${describeType(value)}`);
  }
  const jwk = value as Record<string, unknown>;
  const priv = privateMembers(jwk);
  if (priv) {
    const what = 'k' in jwk ? 'a symmetric secret key' : 'a private key';
    fail(
      `the JWK is ${what} (it has the private member${priv.includes(',') ? 's' : ''} ${priv}); send only the public part (kty, n, e, kid, alg, use)`,
    );
  }
  if (jwk.kty !== 'RSA') {
    fail(
      `kty is ${jwk.kty === undefined ? 'missing' : JSON.stringify(jwk.kty)}; the service takes RSA keys (kty "RSA")`,
    );
  }
  for (const member of ['n', 'e'] as const) {
    const v = jwk[member];
    if (typeof v !== 'string' || v === '')
      fail(
        `${member} is ${v === undefined ? 'missing' : 'not a non-empty string'}; an RSA public JWK has n and e (base64url)`,
      );
  }
  const members = jwkMemberProblem(jwk);
  if (members !== null) fail(members);
  if (jwk.kid === undefined) fail('kid is missing; the service chooses the key to verify a JWT by its kid');
  if (typeof jwk.kid !== 'string' || jwk.kid.trim() === '')
    fail(`kid must be a non-empty string, not ${describeType(jwk.kid)}`);
  if (jwk.use !== undefined && jwk.use !== 'sig') {
    fail(`use is ${JSON.stringify(jwk.use)}; a signing key has use "sig" (or none)`);
  }
  if (jwk.alg !== undefined) {
    const verdict = judgeAlg(jwk.alg);
    if (!verdict.ok) fail(`alg: ${verdict.message}`);
  }
  const problem = rsaJwkProblem(jwk.n as string, jwk.e as string);
  if (problem !== null) fail(`the key breaks the RSA key rules: ${problem}`);
  try {
    const alg = typeof jwk.alg === 'string' ? jwk.alg : SERVICE_ALG;
    await importJWK(jwk as JWK, alg);
  } catch (err) {
    fail(`not a usable RSA public key: ${err instanceof Error ? err.message : String(err)}`);
  }
  return jwk as PublicJwk;
}

/** The algorithms a registered JWK may verify: its own alg, or any allowed one when it has none. */
export function algsFor(jwk: PublicJwk): readonly string[] {
  return typeof jwk.alg === 'string' ? [jwk.alg] : ALLOWED_ALGS;
}
