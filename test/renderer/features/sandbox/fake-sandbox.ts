import { vi } from 'vitest';
import type { MethodInput } from '../../../../electron/contract';
import type {
  Counterparty,
  NotifyResult,
  SandboxStatus,
  SignInResult,
  Trace,
  TraceStep,
} from '../../../../electron/contract/schemas/sandbox';
import type { z } from 'zod';
import type { Delivery, DeliveryAttempt } from '../../../../electron/contract/schemas/delivery';
import type { CustomerView } from '../../../../electron/contract/schemas/bank';
import type { KeyInfo } from '../../../../electron/contract/schemas/keys';
import type { Environment } from '../../../../electron/contract/schemas/service';
import { contractApi } from '../../support/contract-api';
import { sandboxAppHandlers, signedJwt } from '../../support/fake-console';

export const SANDBOX_URL = 'http://127.0.0.1:7302';
export const GUID = '3f2c7a10-5b1e-4c3a-9a55-0d6e2f1b7c44';
export const JWK_GUID = '8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

export const PUBLIC_JWK = { kty: 'RSA', alg: 'RS256', use: 'sig', kid: 'bank-key-1', n: 'sXch', e: 'AQAB' };

export function counterparty(extra: Partial<Counterparty> = {}): Counterparty {
  return {
    counterparty_guid: GUID,
    created_at: '2025-01-01T12:00:00.000Z',
    bank_auth_url: null,
    bank_sender_url: null,
    bank_receiver_url: null,
    jwks: [
      { jwk_guid: JWK_GUID, jwk: PUBLIC_JWK, registered_at: '2025-01-01T12:00:00.000Z', via: 'onboarding' },
    ],
    ...extra,
  };
}

export function status(extra: Partial<SandboxStatus> = {}): SandboxStatus {
  return {
    url: SANDBOX_URL,
    key_persistence: 'vault',
    keys: [
      {
        kid: 'sandbox-key-1',
        created_at: '2025-01-01T11:00:00.000Z',
        status: 'active',
        retires_at: null,
        jwk: { kty: 'RSA', kid: 'sandbox-key-1', n: 'x', e: 'AQAB', alg: 'RS256', use: 'sig' },
      },
    ],
    counterparties: [],
    settings: {
      max_lifetime_seconds: 3600,
      key_grace_seconds: 86_400,
      token_ttl_seconds: 300,
      notify_path_prefix: '/api/svc/notify',
      delivery_waits_seconds: [1, 2, 4, 8, 16, 32, 60, 60, 60],
      delivery_max_attempts: 10,
      delivery_timeout_ms: 5000,
    },
    ...extra,
  };
}

export function step(id: string, stepStatus: TraceStep['status'], extra: Partial<TraceStep> = {}): TraceStep {
  return {
    id,
    title: `${id} title`,
    status: stepStatus,
    detail: `${id} detail`,
    at: '2025-01-01T12:00:01.000Z',
    duration_ms: null,
    request: null,
    response: null,
    ...extra,
  };
}

let traceCount = 0;
export function trace(extra: Partial<Trace> = {}): Trace {
  traceCount += 1;
  const steps = extra.steps ?? [step('bank_jwt', 'passed'), step('status', 'passed')];
  const failed = steps.find((s) => s.status === 'failed')?.id ?? null;
  return {
    id: `trace-${traceCount}`,
    at: new Date(Date.UTC(2025, 0, 1, 12, 0, traceCount)).toISOString(),
    kind: 'sign-in',
    counterparty_guid: GUID,
    ok: failed === null,
    failed,
    duration_ms: 120,
    steps,
    ...extra,
  };
}

export const DELIVERY_ID = '0b7e4a52-8f6c-4d3e-9a1b-2c3d4e5f6a7b';
export const TX = '6c1b1d5e-7f0a-4b8e-9d3c-2a1f0e9b8c7d';

/** One attempt `n` at second `s` of 2025-01-01T12:00, answered `status` (null: nothing did). */
export function attempt(
  n: number,
  s: number,
  status: number | null,
  extra: Partial<DeliveryAttempt> = {},
): DeliveryAttempt {
  return {
    n,
    at: new Date(Date.UTC(2025, 0, 1, 12, 0, s)).toISOString(),
    status,
    error: status === null ? 'connection refused' : null,
    duration_ms: 12,
    ...extra,
  };
}

/** A delivery of a pay-in to the receiver, on the service's ladder. */
export function delivery(extra: Partial<Delivery> = {}): Delivery {
  return {
    delivery_id: DELIVERY_ID,
    counterparty_guid: GUID,
    transaction_id: TX,
    event: 'pay-in',
    url: 'http://127.0.0.1:9/api/svc/notify/pay-in',
    state: 'delivering',
    next_at: null,
    attempts: [],
    created_at: '2025-01-01T12:00:00.000Z',
    ladder: 'service',
    faults: {},
    ...extra,
  };
}

/**
 * A ConsoleApi double with an in-memory sandbox: calls are spies, state answers `status`, and
 * `emit` plays the core's live events.
 */
/** What the sign-in composer reads besides the sandbox: vault keys, bank customers, jwt.sign. */
export interface ComposeParts {
  keys?: KeyInfo[];
  customers?: Array<z.infer<typeof CustomerView>>;
  /** env.list's environments (the sandbox's active and retired keys); absent: none answered. */
  environments?: Environment[];
}

export function fakeSandboxApi(initial: SandboxStatus = status(), parts: ComposeParts = {}) {
  let state = structuredClone(initial);
  let traces: Trace[] = [];
  let deliveries: Delivery[] = [];

  const sandbox = {
    status: vi.fn(async () => structuredClone(state)),
    traces: vi.fn(async (_input?: MethodInput<'sandbox.traces'>) => structuredClone(traces)),
    onboard: vi.fn(async (input: MethodInput<'sandbox.onboard'>) => {
      const created = counterparty({
        counterparty_guid: input.counterparty_guid ?? GUID,
        bank_auth_url: input.bank_auth_url ?? null,
        bank_sender_url: input.bank_sender_url ?? null,
        bank_receiver_url: input.bank_receiver_url ?? null,
      });
      state = { ...state, counterparties: [...state.counterparties, created] };
      return { counterparty_guid: created.counterparty_guid, jwk_guid: JWK_GUID };
    }),
    updateCounterparty: vi.fn(async (input: MethodInput<'sandbox.updateCounterparty'>) => {
      const current = state.counterparties.find((c) => c.counterparty_guid === input.counterparty_guid)!;
      const updated = { ...current };
      for (const f of ['bank_auth_url', 'bank_sender_url', 'bank_receiver_url'] as const)
        if (input[f] !== undefined) updated[f] = input[f];
      state = {
        ...state,
        counterparties: state.counterparties.map((c) => (c === current ? updated : c)),
      };
      return updated;
    }),
    signIn: vi.fn(async (input: MethodInput<'sandbox.signIn'>): Promise<SignInResult> => ({
      ok: true,
      user: { external_id: 'ext-1', phone: '+49', key: 'secret' },
      failed: null,
      trace: trace({ counterparty_guid: input.counterparty_guid }),
    })),
    notify: vi.fn(async (input: MethodInput<'sandbox.notify'>): Promise<NotifyResult> => {
      const t = trace({ kind: 'notify', steps: [step('delivered', 'passed', { duration_ms: 12 })] });
      return {
        transaction_id: input.transaction_id ?? '6c1b1d5e-7f0a-4b8e-9d3c-2a1f0e9b8c7d',
        delivery_id: '0b7e4a52-8f6c-4d3e-9a1b-2c3d4e5f6a7b',
        url: 'http://127.0.0.1:9/api/svc/notify/pay-in',
        status: 200,
        duration_ms: 12,
        error: null,
        trace: t,
      };
    }),
    rotateKey: vi.fn(async () => {
      state = {
        ...state,
        keys: [
          { ...state.keys[0]!, kid: 'sandbox-key-2', created_at: '2025-01-02T00:00:00.000Z' },
          ...state.keys.map((k) => ({
            ...k,
            status: 'grace' as const,
            retires_at: '2025-01-03T00:00:00.000Z',
          })),
        ],
      };
      return structuredClone(state);
    }),
    updateSettings: vi.fn(async (input: MethodInput<'sandbox.updateSettings'>) => {
      state = { ...state, settings: { ...state.settings, ...input } };
      return structuredClone(state.settings);
    }),
    deliveries: vi.fn(async (input?: MethodInput<'sandbox.deliveries'>) =>
      structuredClone(deliveries.filter((d) => input?.state === undefined || d.state === input.state)),
    ),
  };

  const keys = { list: vi.fn(async () => structuredClone(parts.keys ?? [])) };
  const bank = { customers: vi.fn(async () => structuredClone(parts.customers ?? [])) };
  const jwt = {
    sign: vi.fn(async (input: MethodInput<'jwt.sign'>) => signedJwt(input)),
  };

  const env = {
    list: vi.fn(async () => ({
      active_id: 'sandbox',
      environments: structuredClone(parts.environments ?? []),
    })),
  };
  const { api, emit } = contractApi({
    keys,
    env,
    bank,
    jwt,
    app: sandboxAppHandlers(),
    inspector: { inspect: vi.fn() },
    sandbox,
  });

  return {
    api,
    sandbox,
    jwt,
    emit,
    setState(next: SandboxStatus) {
      state = structuredClone(next);
    },
    setTraces(next: Trace[]) {
      traces = structuredClone(next);
    },
    setDeliveries(next: Delivery[]) {
      deliveries = structuredClone(next);
    },
  };
}
