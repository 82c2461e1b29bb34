/**
 * The bank suites' fixtures: a directory of test customers in the `--users` format and a pool of
 * distinct, valid X-Session-ID tokens for them, signed with the service key the bench's JWKS
 * server publishes. Pure except for signing.
 */
import { signJwt, type RsaKey } from './rs256';

/** A customer as the `--users` file holds it (DESIGN.md "Command line"). */
export interface BenchCustomer {
  obj: string;
  sub: string;
  external_id: string;
  phone: string;
  key: string;
  first_name: string;
  last_name: string;
  email: string;
}

/** The i-th customer: IBAN-like or phone-like obj (alternating), its own sub, ids and key. */
export function customerAt(i: number): BenchCustomer {
  const n = String(i).padStart(7, '0');
  return {
    obj: i % 2 === 0 ? `UA2132231300000000000${n.padStart(8, '0')}` : `+380501${n}`,
    sub: `user-${i}@bank.example`,
    external_id: `ext-${n}`,
    phone: `+380671${n}`,
    key: `secret-key-${n}-${(i * 2654435761) % 4294967296}`,
    first_name: `First${i}`,
    last_name: `Last${i}`,
    email: `user-${i}@bank.example`,
  };
}

export function makeCustomers(count: number): BenchCustomer[] {
  return Array.from({ length: count }, (_, i) => customerAt(i));
}

/** What /user_auth answers for a customer (spec 2.5): its user data, the secret key included. */
export function userDataOf(c: BenchCustomer): Record<string, string> {
  return {
    external_id: c.external_id,
    first_name: c.first_name,
    last_name: c.last_name,
    email: c.email,
    phone: c.phone,
    key: c.key,
  };
}

export interface SessionClaims {
  flow: 'sign-in';
  obj: string;
  sub: string;
  iat: number;
  exp: number;
}

export interface SessionToken {
  token: string;
  claims: SessionClaims;
  customer: number;
}

/**
 * Claims of the i-th X-Session-ID over `customers` customers: customer i mod n, sub equal to its
 * sub, iat now minus one second per pass over the directory (so two tokens for one customer still
 * differ), exp iat + 10 minutes.
 */
export function sessionClaims(
  i: number,
  customers: readonly BenchCustomer[],
  nowSeconds: number,
): SessionClaims {
  const c = customers[i % customers.length]!;
  const iat = nowSeconds - Math.floor(i / customers.length);
  return { flow: 'sign-in', obj: c.obj, sub: c.sub, iat, exp: iat + 600 };
}

/** `count` distinct tokens signed RS256 with `key` (kid in the header), in libuv's thread pool. */
export async function makeSessionTokens(
  key: RsaKey,
  customers: readonly BenchCustomer[],
  count: number,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<SessionToken[]> {
  const header = { alg: 'RS256', typ: 'JWT', kid: key.kid };
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const claims = sessionClaims(i, customers, nowSeconds);
      return { token: await signJwt(header, claims, key.privateKey), claims, customer: i % customers.length };
    }),
  );
}

/**
 * A verifyBody for /user_auth answers: JSON whose external_id, phone and key are strings and
 * belong to one customer of the directory (the bench cannot see which request a body answers).
 */
export function userBodyCheck(customers: readonly BenchCustomer[]): (body: string) => boolean {
  const byExternal = new Map(customers.map((c) => [c.external_id, c]));
  return (body) => {
    let v: unknown;
    try {
      v = JSON.parse(body);
    } catch {
      return false;
    }
    if (typeof v !== 'object' || v === null) return false;
    const { external_id, phone, key } = v as Record<string, unknown>;
    const c = typeof external_id === 'string' ? byExternal.get(external_id) : undefined;
    return c !== undefined && phone === c.phone && key === c.key;
  };
}
