/**
 * The walkthrough page's test fixtures: a state with some steps done, the page rendered over a
 * contract-checked fake whose walkthrough.run plays the given results, and the clipboard spy.
 */
import { afterEach, beforeEach, vi } from 'vitest';
import { cleanup } from '@testing-library/react';
import {
  WALKTHROUGH_STEP_IDS,
  type StepId,
  type WalkthroughState,
  type WalkthroughStep,
} from '../../../../electron/contract/schemas/walkthrough';
import { WalkthroughPage } from '../../../../renderer/features/walkthrough/walkthrough-page';
import { resetWalkthroughUi } from '../../../../renderer/features/walkthrough/walkthrough-store';
import { fakeApi, renderWithClient } from '../../support/render';
import { contractApi, type FakeHandlers } from '../../support/contract-api';

export const writeText = vi.fn(async (_text: string) => undefined);
/** Registers the clipboard spy, a fresh walkthrough UI store and cleanup around each test. */
export function useWalkthroughPageSetup(): void {
  beforeEach(() => {
    resetWalkthroughUi();
    writeText.mockClear();
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    Element.prototype.scrollIntoView = vi.fn();
  });
  afterEach(() => {
    cleanup();
    window.location.hash = '';
  });
}

const NEEDS: Record<StepId, StepId | null> = {
  key: null,
  register: 'key',
  compose: 'key',
  authenticate: 'register',
  callbacks: 'register',
  'sign-in': 'callbacks',
  notifications: 'callbacks',
  rotate: 'authenticate',
};
export const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJmbG93Ijoic2lnbi1pbiJ9.c2ln';

export function step(
  id: StepId,
  done: readonly StepId[],
  summaries: Partial<Record<StepId, string>>,
): WalkthroughStep {
  const n = WALKTHROUGH_STEP_IDS.indexOf(id) + 1;
  const isDone = done.includes(id);
  const need = NEEDS[id];
  return {
    id,
    number: n,
    title: `Title ${n}`,
    explanation: `What step ${n} is`,
    spec: id === 'compose' ? 'spec 4.4 #2, 2.4' : 'spec 4.2, 8',
    state: isDone ? 'done' : 'pending',
    summary: summaries[id] ?? `summary ${n}`,
    reason: null,
    fix: null,
    waiting_for: null,
    at: null,
    needs: !isDone && need && !done.includes(need) ? need : null,
    action: `Run ${n}`,
    action_input: null,
    facts: [],
    event_ids: [],
  };
}

export function stateWith(
  done: readonly StepId[],
  summaries: Partial<Record<StepId, string>> = {},
): WalkthroughState {
  return {
    environment: {
      id: 'sandbox',
      name: 'Sandbox',
      kind: 'sandbox',
      base_url: 'http://127.0.0.1:7302',
      counterparty_guid: '11111111-2222-3333-4444-555555555555',
      active_kid: 'k1',
    },
    reset_at: null,
    bank_url: 'http://127.0.0.1:7301',
    obj: 'DE89370400440532013000',
    sub: 'walkthrough@bank.example',
    composed: done.includes('compose')
      ? {
          at: '2026-01-01T12:00:00.000Z',
          kid: 'k1',
          obj: 'DE89370400440532013000',
          sub: 'walkthrough@bank.example',
          token: TOKEN,
          header: { alg: 'RS256', kid: 'k1' },
          payload: { flow: 'sign-in' },
        }
      : null,
    authenticate_request: done.includes('compose')
      ? {
          method: 'POST',
          url: 'http://127.0.0.1:7302/api/v1/counterparty/11111111-2222-3333-4444-555555555555/jwk/authenticate',
          headers: { 'CX-Authorization': TOKEN },
          body: null,
        }
      : null,
    session: null,
    steps: WALKTHROUGH_STEP_IDS.map((id) => step(id, done, summaries)),
    done: done.length,
    total: 8,
    derived_at: '2026-01-01T12:00:00.000Z',
  };
}

export function renderWith(
  initial: WalkthroughState,
  runs: Array<{ message: string; state: WalkthroughState }> = [],
  extra: FakeHandlers = {},
) {
  let current = initial;
  const base = fakeApi().handlers;
  const walkthrough = {
    state: vi.fn(async () => current),
    run: vi.fn(async ({ step: id }: { step: StepId }) => {
      const next = runs.shift()!;
      current = next.state;
      return { step: id, ok: true, message: next.message, state: next.state };
    }),
    reset: vi.fn(),
    exportPack: vi.fn(),
  };
  const { api } = contractApi({ ...base, ...extra, walkthrough });
  renderWithClient(<WalkthroughPage />, api);
  return {
    walkthrough,
    setState: (s: WalkthroughState) => {
      current = s;
    },
  };
}
