// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import {
  WALKTHROUGH_STEP_IDS,
  type StepId,
  type WalkthroughState,
} from '../../../../electron/contract/schemas/walkthrough';
import { ReferencePage } from '../../../../renderer/features/reference/reference-page';
import { citationParts } from '../../../../renderer/shared/spec-sections';
import { fakeApi, renderWithClient } from '../../support/render';
import { renderWith, stateWith, TOKEN, useWalkthroughPageSetup, writeText } from './fixtures';

useWalkthroughPageSetup();

const action = (id: StepId) => screen.getByTestId(`step-action-${id}`) as HTMLButtonElement;

describe('WalkthroughPage guidance', () => {
  it('the done banner fits the environment: a real one is not told to go to a real environment (issue 26)', async () => {
    const all = [...WALKTHROUGH_STEP_IDS];
    const sandboxDone = stateWith(all);
    const { setState } = renderWith(sandboxDone);
    expect((await screen.findByTestId('walkthrough-complete')).textContent).toContain(
      'repeat the walkthrough against a real environment',
    );
    cleanup();
    const realDone = stateWith(all);
    realDone.environment = { ...realDone.environment, id: 'env-1', name: 'Staging', kind: 'real' };
    setState(realDone);
    renderWith(realDone);
    const banner = await screen.findByTestId('walkthrough-complete');
    expect(banner.textContent).toContain('Every step is proven against Staging');
    expect(banner.textContent).not.toContain('against a real environment');
  });

  it('makes only the next step primary; a step whose earlier step is not done is disabled and says which', async () => {
    renderWith(stateWith(['key']));
    await screen.findByTestId('walkthrough-steps');
    expect(action('register').className).toMatch(/btn-primary/);
    for (const id of WALKTHROUGH_STEP_IDS.filter((x) => x !== 'register'))
      expect(action(id).className, id).not.toMatch(/btn-primary/);
    // compose builds only on the key (done): it can run; authenticate needs registration.
    expect(action('compose').disabled).toBe(false);
    expect(action('authenticate').disabled).toBe(true);
    expect(screen.getByTestId('step-blocked-authenticate').textContent).toBe('Needs step 2 first: title 2.');
    expect(action('authenticate').getAttribute('aria-describedby')).toBe('step-blocked-authenticate');
    expect(action('rotate').disabled).toBe(true);
  });

  it('links each spec citation to the in-app reference', async () => {
    renderWith(stateWith(['key']));
    const card = await screen.findByTestId('step-compose');
    const links = within(card).getByTestId('spec-citation').querySelectorAll('a');
    expect([...links].map((a) => a.getAttribute('href'))).toEqual(['#/reference/4.4', '#/reference/2.4']);
    expect(citationParts('spec 4.4 #3–6, 4.1 #2, 2.3').map((p) => p.id)).toEqual(['4.4', '4.1', '2.3']);
  });

  it('brings the next step into view and focus when a step turns green', async () => {
    renderWith(stateWith(['key']), [{ message: 'onboarded', state: stateWith(['key', 'register']) }]);
    await screen.findByTestId('walkthrough-steps');
    fireEvent.click(action('register'));
    await waitFor(() => expect(document.activeElement).toBe(action('compose')));
    expect(action('compose').className).toMatch(/btn-primary/);
    expect(Element.prototype.scrollIntoView).toHaveBeenCalled();
  });

  it('offers Copy token, Copy header and Copy as curl on step 3', async () => {
    renderWith(stateWith(['key', 'register', 'compose']));
    await screen.findByTestId('step-token');
    fireEvent.click(screen.getByTestId('copy-token'));
    await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(TOKEN));
    fireEvent.click(screen.getByTestId('copy-cx'));
    await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(`CX-Authorization: ${TOKEN}`));
    fireEvent.click(screen.getByTestId('copy-curl'));
    await waitFor(() =>
      expect(writeText).toHaveBeenLastCalledWith(
        `curl -sS -X POST 'http://127.0.0.1:7302/api/v1/counterparty/11111111-2222-3333-4444-555555555555/jwk/authenticate' -H 'CX-Authorization: ${TOKEN}'`,
      ),
    );
  });

  it('keeps "Last run" true to the current state: after a rotation step 1 names the new active key', async () => {
    const created = stateWith(['key'], { key: 'kid "k1" is active' });
    // The next run (here register, standing in for the rotation) leaves k2 active.
    const rotated = stateWith(['key', 'register'], { key: 'kid "k2" is active' });
    renderWith(stateWith([]), [
      { message: 'generated kid "k1"', state: created },
      { message: 'registered', state: rotated },
    ]);
    await screen.findByTestId('walkthrough-steps');
    fireEvent.click(action('key'));
    const line = await screen.findByTestId('step-message-key');
    expect(line.getAttribute('data-moved')).toBe('false');
    expect(line.textContent).toBe('Last run: generated kid "k1"');
    fireEvent.click(action('register'));
    await waitFor(() =>
      expect(screen.getByTestId('step-message-key').getAttribute('data-moved')).toBe('true'),
    );
    expect(screen.getByTestId('step-message-key').textContent).toBe(
      'Last run: generated kid "k1" · now: kid "k2" is active',
    );
  });
});

describe('ReferencePage', () => {
  it('opens the cited section (#/reference/4.4), focused', async () => {
    window.location.hash = '#/reference/4.4';
    renderWithClient(<ReferencePage />, fakeApi().api);
    const page = await screen.findByTestId('reference-page');
    expect(page.getAttribute('data-section')).toBe('4.4');
    const section = screen.getByTestId('reference-section-4.4');
    expect(section.textContent).toMatch(/Registration flow/);
    await waitFor(() => expect(document.activeElement).toBe(section));
  });
});

describe('WalkthroughPage against a real environment (issue 14 item 5)', () => {
  const PUBLIC = 'https://words.trycloudflare.com';
  function realState(reach: WalkthroughState['reach']): WalkthroughState {
    const base = stateWith(['key', 'register', 'compose', 'authenticate']);
    return {
      ...base,
      environment: { ...base.environment, id: 'e-real', name: 'Staging', kind: 'real' },
      bank_url: reach?.bank_auth_url ?? null,
      reach,
      steps: base.steps.map((st) =>
        st.id === 'callbacks' ? { ...st, action: 'Test from outside', action_input: 'bank_url' } : st,
      ),
    };
  }

  it('shows what to register with copy buttons, the test from outside, and turns forward mode on', async () => {
    const setForward = vi.fn(async (f: { url: string | null }) => f);
    renderWith(
      realState({
        public_url: PUBLIC,
        public_url_source: 'tunnel',
        bank_auth_url: PUBLIC,
        notification_urls: ['pay-in', 'pay-out', 'transfer'].map((r) => `${PUBLIC}/api/svc/notify/${r}`),
        warning: null,
        probe: {
          at: '2026-01-01T12:00:00.000Z',
          url: `${PUBLIC}/.well-known/dets-console/probe/0123456789abcdef0123456789abcdef`,
          outcome: 'reachable',
          rtt_ms: 84.2,
          status: 200,
          detail: 'this console received the marker',
        },
        forward_url: null,
      }),
      [],
      { bank: { setForward } },
    );
    const reach = await screen.findByTestId('step-reach');
    expect(within(reach).getByTestId('wt-public-url-source').textContent).toMatch(/the running tunnel/);
    expect(within(reach).getByTestId('wt-register').textContent).toContain(
      `${PUBLIC}/api/svc/notify/transfer`,
    );
    fireEvent.click(within(reach).getByTestId('wt-register-auth-copy'));
    await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(PUBLIC));
    const probe = within(reach).getByTestId('wt-probe');
    expect(probe.getAttribute('data-outcome')).toBe('reachable');
    expect(probe.textContent).toContain('(84.2 ms)');
    expect(within(reach).queryByTestId('wt-reach-warning')).toBeNull();

    fireEvent.change(within(reach).getByTestId('forward-url'), {
      target: { value: 'http://127.0.0.1:8080' },
    });
    fireEvent.click(within(reach).getByTestId('forward-on'));
    await waitFor(() => expect(setForward).toHaveBeenCalledWith({ url: 'http://127.0.0.1:8080' }));
  });

  it('warns that the listener on 127.0.0.1 cannot be reached when there is no public URL', async () => {
    renderWith(
      realState({
        public_url: null,
        public_url_source: null,
        bank_auth_url: 'http://127.0.0.1:7301',
        notification_urls: [],
        warning: 'There is no public URL: the service cannot reach 127.0.0.1.',
        probe: null,
        forward_url: null,
      }),
    );
    const reach = await screen.findByTestId('step-reach');
    expect(within(reach).getByTestId('wt-reach-warning').textContent).toMatch(/cannot reach 127\.0\.0\.1/);
    expect(within(reach).getByTestId('wt-register').textContent).toContain('http://127.0.0.1:7301');
    expect(within(reach).getByTestId('wt-probe-none')).toBeTruthy();
    expect(action('callbacks').textContent).toBe('Test from outside');
  });
});
