// @vitest-environment jsdom
/**
 * Issue 26 item 3 and issue 27 item 5 on the Walkthrough page: a real environment's journey in
 * its order (the public URL, the block to send, the guid back), who starts steps 6 and 7 with the
 * message to send, and step 7's retry rehearsal on the sandbox.
 */
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { StepId, WalkthroughState } from '../../../../electron/contract/schemas/walkthrough';
import { renderWith, stateWith, useWalkthroughPageSetup, writeText } from './fixtures';
import { memberSession } from '../../support/as-member';

useWalkthroughPageSetup();

const action = (id: StepId) => screen.getByTestId(`step-action-${id}`) as HTMLButtonElement;
const FRONT = 'https://bank-staging.example';
const GUID = '11111111-2222-3333-4444-555555555555';
const JWK = '{"alg":"RS256","e":"AQAB","kid":"k1","kty":"RSA","n":"xyz","use":"sig"}';

/** A real environment at step 2, with or without a public URL. */
function realState(publicUrl: string | null): WalkthroughState {
  const s = stateWith(['key']);
  s.environment = { ...s.environment, id: 'env-1', name: 'Staging', kind: 'real', counterparty_guid: null };
  const values: NonNullable<WalkthroughState['onboarding']>['values'] = [
    { id: 'public_jwk', label: 'public JWK', value: JWK },
    ...(publicUrl
      ? ([
          { id: 'bank_auth_url', label: 'bank_auth_url', value: publicUrl },
          { id: 'bank_sender_url', label: 'bank_sender_url', value: publicUrl },
          { id: 'bank_receiver_url', label: 'bank_receiver_url', value: publicUrl },
        ] as const)
      : []),
    { id: 'notify_prefix', label: 'notification prefix', value: '/api/svc/notify' },
  ];
  s.onboarding = {
    public_url: publicUrl,
    public_url_source: publicUrl ? 'tunnel' : null,
    missing: publicUrl ? null : 'No public URL yet, and the bank URLs depend on it.',
    values,
    text: `Onboarding request for Staging\n${values.map((v) => v.value).join('\n')}\n`,
    counterparty_guid: null,
  };
  s.steps = s.steps.map((x) => {
    if (x.id === 'register') return { ...x, state: 'waiting', action_input: 'counterparty_guid' };
    if (x.id === 'sign-in' || x.id === 'notifications') {
      return {
        ...x,
        service_request: {
          who: 'The service team, on their side: the console cannot start it against a real service.',
          message: `Please run ${x.id} for counterparty ${GUID} at ${publicUrl ?? '<our public URL>'}`,
        },
      };
    }
    return x;
  });
  return s;
}

describe('a real environment’s journey on the page (issue 26 item 3)', () => {
  it('shows the public URL first, then the block to send (each value and the whole), then the guid', async () => {
    renderWith(realState(FRONT));
    const block = await screen.findByTestId('wt-onboarding');
    const headings = [...block.querySelectorAll('h3')].map((h) => h.textContent);
    expect(headings).toEqual([
      '1. Your public URL',
      '2. What to send the service team',
      '3. The counterparty_guid they answer',
    ]);
    expect(within(block).getByTestId('wt-onboarding-public-url').textContent).toContain(FRONT);
    expect(within(block).getByTestId('wt-onboarding-public-url').textContent).toContain('the running tunnel');
    // The block comes before the guid's input on the step.
    const card = screen.getByTestId('step-register');
    const input = within(card).getByTestId('step-input-register');
    expect(block.compareDocumentPosition(input) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    for (const [id, value] of [
      ['public_jwk', JWK],
      ['bank_auth_url', FRONT],
      ['bank_sender_url', FRONT],
      ['bank_receiver_url', FRONT],
      ['notify_prefix', '/api/svc/notify'],
    ] as const) {
      fireEvent.click(within(block).getByTestId(`wt-onboarding-copy-${id}`));
      await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(value));
    }
    fireEvent.click(within(block).getByTestId('wt-onboarding-copy-all'));
    await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(expect.stringContaining(JWK)));
    expect(writeText.mock.lastCall?.[0]).toContain(FRONT);
    expect(screen.queryByTestId('wt-onboarding-missing')).toBeNull();
  });

  it('without a public URL says what comes first and saves the engineer’s own front on the environment', async () => {
    const save = vi.fn(async (input: { id: string; public_url?: string }) => ({
      ...stateWith([]).environment,
      id: input.id,
      name: 'Staging',
      kind: 'real' as const,
      base_url: null,
      counterparty_guid: null,
      public_url: input.public_url ?? null,
      default_obj: null,
      default_sub: null,
      notify_prefix: null,
      created_at: '2026-01-01T12:00:00.000Z',
    }));
    renderWith(realState(null), [], { env: { save } });
    const block = await screen.findByTestId('wt-onboarding');
    expect(within(block).getByTestId('wt-onboarding-missing').textContent).toMatch(/No public URL yet/);
    expect(within(block).queryByTestId('wt-onboarding-bank_auth_url')).toBeNull();
    fireEvent.change(within(block).getByTestId('wt-own-front-url'), { target: { value: FRONT } });
    fireEvent.click(within(block).getByRole('button', { name: 'Use this URL' }));
    await waitFor(() => expect(save).toHaveBeenCalled());
    expect(save.mock.calls[0]![0]).toMatchObject({ id: 'env-1', public_url: FRONT });
  });

  it.each(['viewer', 'operator'] as const)(
    'as %s on a hub: the missing public URL is explained, but saving one (env.save) is an admin’s',
    async (role) => {
      renderWith(realState(null), [], { team: { session: vi.fn(async () => memberSession(role)) } });
      const block = await screen.findByTestId('wt-onboarding');
      expect(within(block).getByTestId('wt-onboarding-missing').textContent).toMatch(/No public URL yet/);
      expect(block.textContent).toContain('enter the URL of your own front');
      await waitFor(() => expect(within(block).queryByTestId('wt-own-front-url')).toBeNull());
      expect(within(block).queryByRole('button', { name: 'Use this URL' })).toBeNull();
    },
  );

  it('steps 6 and 7 say the service team starts them and offer the message to copy', async () => {
    renderWith(realState(FRONT));
    for (const id of ['sign-in', 'notifications'] as const) {
      const box = await screen.findByTestId(`wt-request-${id}`);
      expect(within(box).getByTestId(`wt-request-who-${id}`).textContent).toMatch(/^The service team/);
      fireEvent.click(within(box).getByTestId(`wt-request-copy-${id}`));
      await waitFor(() =>
        expect(writeText).toHaveBeenLastCalledWith(`Please run ${id} for counterparty ${GUID} at ${FRONT}`),
      );
    }
    expect(screen.queryByTestId('wt-rehearsal')).toBeNull();
  });
});

describe('step 7’s retry rehearsal on the sandbox (issue 27 item 5)', () => {
  it('sends rehearse_retry with step 7 and shows the result', async () => {
    const before = stateWith(['key', 'register', 'callbacks']);
    const after = stateWith(['key', 'register', 'callbacks']);
    after.rehearsal = {
      at: '2026-01-01T12:00:05.000Z',
      ok: false,
      detail: 'the bank answered the repeat 409 for tx-1',
      transaction_id: 'tx-1',
      delivery_id: 'd-1',
      delivery_state: 'delivering',
      repeat_status: 409,
      events: [],
    };
    const { walkthrough } = renderWith(before, [
      { message: 'the bank answered the repeat 409', state: after },
    ]);
    const panel = await screen.findByTestId('wt-rehearsal');
    expect(within(panel).queryByTestId('wt-rehearsal-result')).toBeNull();
    fireEvent.click(within(panel).getByTestId('wt-rehearse'));
    await waitFor(() => expect(walkthrough.run).toHaveBeenCalled());
    expect(walkthrough.run.mock.calls[0]![0]).toMatchObject({ step: 'notifications', rehearse_retry: true });
    const result = await screen.findByTestId('wt-rehearsal-result');
    expect(result.getAttribute('data-ok')).toBe('false');
    expect(result.textContent).toContain('the bank answered the repeat 409 for tx-1');
    expect(result.textContent).toContain('repeat answered 409');
    expect(screen.queryByTestId('wt-onboarding')).toBeNull();
    expect(action('notifications').disabled).toBe(false);
  });
});
