/** Real keys and tokens for the jwt tests: jose makes the keys, the clock is pinned. */
import { CompactSign, base64url, exportSPKI, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { expect } from 'vitest';
import {
  InspectReport,
  type Advice,
  type Check,
  type CheckId,
  type InspectInput,
} from '../../../electron/contract/schemas/inspector';
import { inspectToken } from '../../../electron/core/jwt/inspect';
import { jwkOf } from '../../support/rsa-pair';

/** 2026-01-15T12:00:00Z, the pinned "now" of every test. */
export const NOW_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
export const NOW = NOW_MS / 1000;

export interface TestKey {
  kid: string;
  alg: string;
  publicKey: CryptoKey;
  privateKey: CryptoKey;
  /** Public JWK with the spec's fields (alg, e, kid, kty, n, use). */
  jwk: JWK;
  /** The full private JWK, to test that pasting it is refused. */
  privateJwk: JWK;
  spki: string;
}

export async function makeKey(kid: string, alg = 'RS256'): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...jwkOf(publicKey), kid, alg, use: 'sig' };
  const privateJwk = { ...jwkOf(privateKey), kid, alg, use: 'sig' };
  return { kid, alg, publicKey, privateKey, jwk, privateJwk, spki: await exportSPKI(publicKey) };
}

export function claims(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    flow: 'sign-in',
    obj: 'DE02120300000000202051',
    sub: 'ops@bank.example',
    iat: NOW - 60,
    exp: NOW + 240,
    ...over,
  };
}

/** Signs a payload with a test key; the header defaults to {alg, kid, typ: JWT}. */
export async function sign(
  key: TestKey,
  payload: Record<string, unknown> = claims(),
  header: Record<string, unknown> = {},
): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header } as { alg: string })
    .sign(key.privateKey);
}

/** A token from raw parts, for shapes no signer would produce. */
export function forge(header: unknown, payload: unknown, signature = ''): string {
  const enc = (v: unknown) => base64url.encode(typeof v === 'string' ? v : JSON.stringify(v));
  return `${enc(header)}.${enc(payload)}.${signature}`;
}

/** A fetch that must not be called. */
export const noFetch: typeof fetch = async () => {
  throw new Error('this test must not fetch');
};

export async function inspect(input: InspectInput, fetchImpl: typeof fetch = noFetch) {
  const report = await inspectToken(input, { fetch: fetchImpl, now: () => NOW_MS });
  // Whatever the input, the report matches the contract.
  expect(InspectReport.safeParse(report).success, JSON.stringify(report)).toBe(true);
  return report;
}

export function checkOf(report: { checks: Check[] }, id: CheckId): Check {
  const c = report.checks.find((x) => x.id === id);
  if (!c) throw new Error(`no ${id} check in the report`);
  return c;
}

/** The inspector's advice of `id` (lifetime, units); throws when there is none. */
export function adviceOf(report: { advice: Advice[] }, id: Advice['id']): Advice {
  const a = report.advice.find((x) => x.id === id);
  if (!a) throw new Error(`no ${id} advice in the report`);
  return a;
}

export function jwksText(...keys: TestKey[]): string {
  return JSON.stringify({ keys: keys.map((k) => k.jwk) });
}
