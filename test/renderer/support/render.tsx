import './jsdom-gaps';
import { vi } from 'vitest';
import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import type { ConsoleApi, MethodOutput } from '../../../electron/contract';
import { contractApi, type FakeHandlers } from './contract-api';
import type { InspectInput, InspectReport } from '../../../electron/contract/schemas/inspector';
import { ClientProvider } from '../../../renderer/api/client-context';
import { desktopClient, type ConsoleClient } from '../../../renderer/api/client';
import { createQueryClient } from '../../../renderer/app/query-client';

/**
 * A test double of the ConsoleApi facade: the renderer's unit tests check what the UI sends and
 * shows; the real core and transports are tested at their own level and end to end. The facade is
 * the contract's (contract-api.ts), so these answers are checked against its schemas; `handlers`
 * are for doubles that add domains of their own.
 */
export function fakeApi(overrides: { inspect?: (input: InspectInput) => Promise<InspectReport> } = {}) {
  const inspect = vi.fn(overrides.inspect ?? (async () => report([])));
  const handlers = {
    app: {
      info: vi.fn(async (): Promise<MethodOutput<'app.info'>> => ({
        name: 'DETS Console',
        version: '0.0.0-test',
        host: 'desktop' as const,
        dataDir: '/tmp/x',
        listeners: {},
      })),
    },
    inspector: { inspect },
    // The shell's header and vault banner ask for these on every page.
    vault: {
      status: vi.fn(async (): Promise<MethodOutput<'vault.status'>> => ({
        state: 'unlocked',
        kind: 'keychain',
        detail: 'Unlocked.',
      })),
    },
    keys: { list: vi.fn(async (): Promise<MethodOutput<'keys.list'>> => []) },
    events: {
      health: vi.fn(async (): Promise<MethodOutput<'events.health'>> => ({
        state: 'ok',
        file: '/tmp/x/console.db',
        since: '2026-01-01T00:00:00.000Z',
        detail: null,
      })),
    },
    env: {
      list: vi.fn(async (): Promise<MethodOutput<'env.list'>> => ({
        active_id: 'sandbox',
        environments: [
          {
            id: 'sandbox',
            name: 'Sandbox',
            kind: 'sandbox',
            base_url: 'http://127.0.0.1:7302',
            counterparty_guid: null,
            active_kid: null,
            default_obj: null,
            default_sub: null,
            service_jwks_url: null,
            effective_jwks_url: 'http://127.0.0.1:7302/api/v1/.well-known/jwks.json',
          },
        ],
      })),
    },
  } satisfies FakeHandlers;
  const { api, emit } = contractApi(handlers);
  return { api, inspect, handlers, emit };
}

export function renderWithClient(ui: ReactElement, client: ConsoleClient | ConsoleApi) {
  const resolved = 'mode' in client ? client : desktopClient(client);
  const queryClient = createQueryClient();
  return render(
    <QueryClientProvider client={queryClient}>
      <ClientProvider client={resolved}>{ui}</ClientProvider>
    </QueryClientProvider>,
  );
}

type CheckSpec = [InspectReport['checks'][number]['id'], InspectReport['checks'][number]['status'], string?];

/** A report in the contract's shape with the given checks. */
export function report(checks: CheckSpec[], extra: Partial<InspectReport> = {}): InspectReport {
  return {
    inspectedAt: '2025-01-01T12:00:00.000Z',
    ok: !checks.some(([, s]) => s === 'failed'),
    segments: { header: 'eyJh', payload: 'eyJw', signature: 'c2ln' },
    header: { alg: 'RS256', kid: 'k1', typ: 'JWT' },
    payload: { flow: 'sign-in', obj: 'DE89', sub: 'ops@bank.example', iat: 1735732800, exp: 1735733100 },
    times: [
      { name: 'iat', value: 1735732800, unit: 's', iso: '2025-01-01T12:00:00.000Z', relative: 'just now' },
      { name: 'exp', value: 1735733100, unit: 's', iso: '2025-01-01T12:05:00.000Z', relative: 'in 5 min' },
    ],
    lifetimeSeconds: 300,
    keys: { source: 'none', description: 'no key given', kids: [] },
    checks: checks.map(([id, status, detail]) => ({
      id,
      title: `${id} title`,
      status,
      detail: detail ?? `${id} ${status}`,
    })),
    advice: [],
    ...extra,
  };
}
