/** Facts for the walkthrough's pure derivation: built by hand, as the stores would give them. */
import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import type { Counterparty, Trace } from '../../../electron/contract/schemas/sandbox';
import type { Environment, Exchange } from '../../../electron/contract/schemas/service';
import type { CallbackFact, WalkthroughFacts } from '../../../electron/core/walkthrough/derive';

export const GUID = '0b0e1a52-4f0e-4c43-9a57-6a1d2b3c4d5e';
export const BANK = 'http://127.0.0.1:7301';
export const SANDBOX = 'http://127.0.0.1:7302';
export const OBJ = 'DE89370400440532013000';
export const SUB = 'walkthrough@bank.example';

/** Minutes after a fixed start, as ISO 8601. */
export const t = (minutes: number) => new Date(Date.UTC(2026, 10, 21, 9, 0) + minutes * 60_000).toISOString();
export const NOW = Date.parse(t(60));

export function env(over: Partial<Environment> = {}): Environment {
  return {
    id: 'sandbox',
    name: 'Sandbox',
    kind: 'sandbox',
    base_url: SANDBOX,
    counterparty_guid: GUID,
    active_kid: '54321',
    default_obj: null,
    default_sub: null,
    service_jwks_url: null,
    effective_jwks_url: `${SANDBOX}/api/v1/.well-known/jwks.json`,
    ...over,
  };
}

export function key(kid = '54321', over: Partial<KeyInfo> = {}): KeyInfo {
  return {
    kid,
    alg: 'RS256',
    bits: 2048,
    label: 'walkthrough key',
    counterparty_guid: null,
    status: 'active',
    created_at: t(1),
    expires: '2027-11-21',
    expires_in_days: 365,
    fingerprint: `thumb-${kid}`,
    public_jwk: { alg: 'RS256', e: 'AQAB', kid, kty: 'RSA', n: `n-of-${kid}`, use: 'sig' },
    holder: 'vault',
    sign_command: null,
    ...over,
  };
}

export function counterparty(kids: string[] = ['54321'], url: string | null = BANK): Counterparty {
  return {
    counterparty_guid: GUID,
    created_at: t(2),
    bank_auth_url: url,
    bank_sender_url: url,
    bank_receiver_url: url,
    jwks: kids.map((kid, i) => ({
      jwk_guid: `00000000-0000-4000-8000-00000000000${i}`,
      jwk: { kty: 'RSA', kid, n: `n-of-${kid}`, e: 'AQAB', alg: 'RS256', use: 'sig' },
      registered_at: t(2 + i),
      via: i === 0 ? ('onboarding' as const) : ('put' as const),
    })),
  };
}

export function exchange(
  at: string,
  over: Partial<Exchange> & { status?: number; body?: string } = {},
): Exchange {
  const { status = 200, body = '{"session_token":"eyJ.x.y"}', ...rest } = over;
  return {
    id: `x-${at}`,
    at,
    environment_id: 'sandbox',
    operation: 'authenticate',
    request: {
      method: 'POST',
      url: `${SANDBOX}/api/v1/counterparty/${GUID}/jwk/authenticate`,
      headers: {},
      body: null,
    },
    response: { status, headers: {}, body },
    duration_ms: 3,
    ok: status >= 200 && status < 300,
    error: status >= 200 && status < 300 ? null : body,
    explanation: null,
    curl: 'curl …',
    signing_kid: '54321',
    ...rest,
  };
}

export function signInTrace(
  at: string,
  ok: boolean,
  failed: { id: string; detail: string } | null = null,
): Trace {
  return {
    id: `trace-${at}`,
    at,
    kind: 'sign-in',
    counterparty_guid: GUID,
    ok,
    failed: failed?.id ?? null,
    duration_ms: 40,
    steps: failed
      ? [
          {
            id: failed.id,
            title: failed.id,
            status: 'failed',
            detail: failed.detail,
            at,
            duration_ms: null,
            request: null,
            response: null,
          },
        ]
      : [],
  };
}

/** A GET /user_auth callback as step 6 reads it: one that passed every check unless `over` says otherwise. */
export function userAuthCallback(id: string, at: string, over: Partial<CallbackFact> = {}): CallbackFact {
  return {
    id,
    at,
    status: 200,
    failed_check: null,
    obj: OBJ,
    sub: SUB,
    detail: null,
    forward_ok: null,
    duration_ms: 4,
    ...over,
  };
}

/** A sandbox environment on which nothing has happened yet but the profile's key. */
export function facts(over: Partial<WalkthroughFacts> = {}): WalkthroughFacts {
  return {
    env: env({ counterparty_guid: null, active_kid: null }),
    resetAt: null,
    keys: [],
    keysError: null,
    sandbox: { counterparty: null, error: null },
    bankUrl: BANK,
    exchanges: [],
    composed: null,
    session: null,
    callbacks: [],
    traces: [],
    notifications: [],
    rotation: null,
    attempts: {},
    reach: null,
    obj: OBJ,
    sub: SUB,
    ...over,
  };
}
