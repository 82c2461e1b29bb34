/**
 * The pool of distinct, valid bank tokens the load rotates through: every token has its own obj,
 * sub, iat and exp, so no cache keyed on the token (or its claims) can stand in for the
 * verification and the signing the endpoint is there to do.
 */
import { signJwt, type BankClaims, type RsaKey } from './rs256';

export interface PoolToken {
  token: string;
  claims: BankClaims;
}

/**
 * Claims of the i-th pool token at `nowSeconds`: obj alternates IBAN-like and phone-like
 * customers, sub is a distinct operator, iat lies up to 4 minutes back and the lifetime varies
 * between 30 and 60 minutes (the sandbox accepts at most 1 hour), so every token stays valid
 * for at least 26 minutes after the pool is made.
 */
export function poolClaims(i: number, nowSeconds: number): BankClaims {
  const iat = nowSeconds - (i % 240);
  const obj =
    i % 2 === 0
      ? `UA21${String(322313 + (i % 9973)).padStart(6, '0')}${String(i).padStart(19, '0')}`
      : `+38050${String(1_000_000 + i).slice(-7)}`;
  return {
    flow: 'sign-in',
    obj,
    sub: `operator-${i}@bank.example`,
    iat,
    exp: iat + 1800 + ((i * 37) % 1799),
  };
}

/** `count` tokens signed with the bank's key, in parallel in libuv's thread pool. */
export async function makeTokenPool(
  key: RsaKey,
  count: number,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<PoolToken[]> {
  const header = { alg: 'RS256', typ: 'JWT', kid: key.kid };
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const claims = poolClaims(i, nowSeconds);
      return { token: await signJwt(header, claims, key.privateKey), claims };
    }),
  );
}

/** Endless round-robin over the pool, one shared cursor per consumer. */
export function rotate<T>(items: readonly T[], start = 0): () => T {
  if (items.length === 0) throw new Error('rotate: empty pool');
  let i = start % items.length;
  return () => {
    const item = items[i] as T;
    i = (i + 1) % items.length;
    return item;
  };
}
