// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ConsoleError } from '../../../../electron/contract';
import { ComposerPage } from '../../../../renderer/features/composer/composer-page';
import {
  HISTORY_LIMIT,
  resetComposerStore,
  useComposerStore,
  type ComposedToken,
} from '../../../../renderer/features/composer/composer-store';
import {
  resetInspectorStore,
  useInspectorStore,
} from '../../../../renderer/features/inspector/inspector-store';
import { renderWithClient } from '../../support/render';
import { GUID, fakeConsole, keyInfo, sandboxEnv, signedJwt } from '../../support/fake-console';

const writeText = vi.fn(async (_text: string) => undefined);

beforeEach(() => {
  resetComposerStore();
  resetInspectorStore();
  window.location.hash = '#/composer';
  writeText.mockClear();
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
});
afterEach(() => cleanup());

const ENV = sandboxEnv({
  counterparty_guid: GUID,
  active_kid: 'k-env',
  default_obj: 'DE89370400440532013000',
  default_sub: 'ops@bank.example',
});

async function renderPage(
  fake = fakeConsole({ keys: [keyInfo('k-other'), keyInfo('k-env')], environments: [ENV] }),
) {
  renderWithClient(<ComposerPage />, fake.api);
  await waitFor(() => expect(screen.getByTestId('composer-page').getAttribute('data-state')).toBe('ready'));
  await waitFor(() => expect((screen.getByTestId('composer-kid') as HTMLSelectElement).value).toBe('k-env'));
  return fake;
}

const type = (testId: string, value: string) =>
  fireEvent.change(screen.getByTestId(testId), { target: { value } });

describe('ComposerPage', () => {
  it("starts from the environment's key and default claims, and signs with jwt.sign", async () => {
    const fake = await renderPage();
    expect((screen.getByTestId('composer-obj') as HTMLInputElement).value).toBe('DE89370400440532013000');
    expect((screen.getByTestId('composer-sub') as HTMLInputElement).value).toBe('ops@bank.example');
    expect((screen.getByTestId('composer-ttl') as HTMLInputElement).value).toBe('300');
    expect((screen.getByTestId('composer-iat') as HTMLInputElement).value).toBe('');
    fireEvent.click(screen.getByTestId('composer-sign'));
    await waitFor(() =>
      expect(fake.jwt.sign).toHaveBeenCalledWith({
        kid: 'k-env',
        obj: 'DE89370400440532013000',
        sub: 'ops@bank.example',
        ttl: 300,
      }),
    );
    const token = await screen.findByTestId('composer-token');
    const expected = signedJwt({
      kid: 'k-env',
      obj: 'DE89370400440532013000',
      sub: 'ops@bank.example',
      ttl: 300,
    });
    expect(token.textContent).toBe(expected.token);
    // Coloured like the Inspector: header, payload and signature runs.
    expect(token.querySelectorAll('[data-segment="header"]').length).toBe(1);
    expect(token.querySelector('[data-segment="signature"]')!.textContent).toBe('c2lnbmF0dXJl');
    expect(screen.getByTestId('decoded-header').textContent).toContain('"kid": "k-env"');
    expect(screen.getByTestId('decoded-payload').textContent).toContain('"flow": "sign-in"');
    expect(screen.queryByTestId('composer-warnings')).toBeNull();
  });

  it('sends the typed key, claims, iat and ttl', async () => {
    const fake = await renderPage();
    fireEvent.change(screen.getByTestId('composer-kid'), { target: { value: 'k-other' } });
    type('composer-obj', ' +4915112345678 ');
    type('composer-sub', 'tech-user-7');
    type('composer-iat', '1735732800');
    type('composer-ttl', '600');
    fireEvent.click(screen.getByTestId('composer-sign'));
    await waitFor(() =>
      expect(fake.jwt.sign).toHaveBeenCalledWith({
        kid: 'k-other',
        obj: '+4915112345678',
        sub: 'tech-user-7',
        iat: 1735732800,
        ttl: 600,
      }),
    );
  });

  it('refuses to sign without obj or with a non-numeric ttl, naming the field', async () => {
    const fake = await renderPage();
    type('composer-obj', '');
    type('composer-ttl', '5 min');
    expect(screen.getByTestId('composer-obj-error').textContent).toContain('obj must not be empty');
    expect(screen.getByTestId('composer-ttl-error').textContent).toContain('whole seconds');
    fireEvent.click(screen.getByTestId('composer-sign'));
    expect(fake.jwt.sign).not.toHaveBeenCalled();
    expect(document.activeElement).toBe(screen.getByTestId('composer-obj'));
  });

  it('shows the warnings as hints, not errors', async () => {
    const fake = fakeConsole({ keys: [keyInfo('k-env')], environments: [ENV] });
    fake.jwt.sign.mockImplementationOnce(async (input) =>
      signedJwt(input, ['obj "12345" is neither an IBAN with a valid checksum nor an E.164 phone number']),
    );
    await renderPage(fake);
    type('composer-obj', '12345');
    fireEvent.click(screen.getByTestId('composer-sign'));
    const hints = await screen.findByTestId('composer-warnings');
    expect(hints.textContent).toContain('Hints, not errors');
    expect(within(hints).getAllByTestId('composer-warning')[0]!.textContent).toContain('neither an IBAN');
    expect(hints.getAttribute('role')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.getByTestId('composer-token')).toBeTruthy();
  });

  it('copies the token, the CX-Authorization line and the curl', async () => {
    await renderPage();
    fireEvent.click(screen.getByTestId('composer-sign'));
    const token = (await screen.findByTestId('composer-token')).textContent!;
    fireEvent.click(screen.getByTestId('copy-token'));
    await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(token));
    fireEvent.click(screen.getByTestId('copy-header-line'));
    await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(`CX-Authorization: ${token}`));
    fireEvent.click(screen.getByTestId('copy-curl'));
    await waitFor(() =>
      expect(writeText).toHaveBeenLastCalledWith(expect.stringContaining(`CX-Authorization: ${token}`)),
    );
  });

  it('marks the token stale when the form changes after signing', async () => {
    await renderPage();
    fireEvent.click(screen.getByTestId('composer-sign'));
    await screen.findByTestId('composer-token');
    expect(screen.queryByTestId('composer-stale')).toBeNull();
    type('composer-sub', 'someone-else');
    expect(screen.getByTestId('composer-stale')).toBeTruthy();
  });

  it('opens the token in the Inspector with its public key and expected claims', async () => {
    await renderPage();
    fireEvent.click(screen.getByTestId('composer-sign'));
    const token = (await screen.findByTestId('composer-token')).textContent!;
    fireEvent.click(screen.getByTestId('open-in-inspector'));
    const form = useInspectorStore.getState();
    expect(form.raw).toBe(token);
    expect(form.keyChoice).toBe('text');
    expect(JSON.parse(form.keyText)).toEqual(keyInfo('k-env').public_jwk);
    expect(form.expectedObj).toBe('DE89370400440532013000');
    expect(form.expectedSub).toBe('ops@bank.example');
    expect(window.location.hash).toBe('#/inspector');
  });

  it('sends the token to authenticate and shows the session_token checks inline', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('composer-sign'));
    const token = (await screen.findByTestId('composer-token')).textContent!;
    fireEvent.click(screen.getByTestId('composer-send'));
    const result = await screen.findByTestId('composer-send-result');
    expect(fake.service.authenticate).toHaveBeenCalledWith({ token });
    expect(result.getAttribute('data-ok')).toBe('true');
    const checks = within(result).getByTestId('session-checks');
    for (const id of ['signature', 'obj', 'sub'])
      expect(within(checks).getByTestId(`check-${id}`).getAttribute('data-status')).toBe('passed');
  });

  it('shows a refusal with its code', async () => {
    const fake = fakeConsole({ keys: [keyInfo('k-env')], environments: [ENV] });
    fake.jwt.sign.mockRejectedValueOnce(
      new ConsoleError('VAULT_LOCKED', 'The vault is locked: unlock it first.'),
    );
    await renderPage(fake);
    fireEvent.click(screen.getByTestId('composer-sign'));
    const error = await screen.findByTestId('composer-error');
    expect(error.getAttribute('data-code')).toBe('VAULT_LOCKED');
  });

  it('remembers obj/sub per environment, in localStorage, across visits', async () => {
    await renderPage();
    type('composer-obj', '+4915112345678');
    type('composer-sub', 'tech-user-7');
    cleanup();
    await renderPage();
    expect((screen.getByTestId('composer-obj') as HTMLInputElement).value).toBe('+4915112345678');
    expect((screen.getByTestId('composer-sub') as HTMLInputElement).value).toBe('tech-user-7');
    const stored = JSON.parse(window.localStorage.getItem('dets-console.composer')!);
    expect(stored.state.claimsByEnv).toEqual({ sandbox: { obj: '+4915112345678', sub: 'tech-user-7' } });
    // Another environment keeps its own defaults: what was typed for the sandbox does not follow.
    cleanup();
    const other = sandboxEnv({
      id: 'env-uat',
      name: 'UAT',
      active_kid: 'k-env',
      default_obj: 'DE02100100109307118603',
    });
    await renderPage(fakeConsole({ keys: [keyInfo('k-env')], environments: [other] }));
    expect((screen.getByTestId('composer-obj') as HTMLInputElement).value).toBe('DE02100100109307118603');
  });

  it('reads the remembered claims back from storage, and ignores a stored value that does not fit', async () => {
    window.localStorage.setItem(
      'dets-console.composer',
      JSON.stringify({ state: { claimsByEnv: { sandbox: { obj: 'DE-stored' } }, history: [] }, version: 1 }),
    );
    await useComposerStore.persist.rehydrate();
    expect(useComposerStore.getState().claimsByEnv.sandbox?.obj).toBe('DE-stored');
    resetComposerStore();
    window.localStorage.setItem(
      'dets-console.composer',
      JSON.stringify({ state: { history: 'x' }, version: 1 }),
    );
    await useComposerStore.persist.rehydrate();
    expect(useComposerStore.getState().claimsByEnv).toEqual({});
    expect(useComposerStore.getState().history).toEqual([]);
  });

  it('keeps a history of signed tokens, newest first, each to copy again or inspect', async () => {
    await renderPage();
    fireEvent.click(screen.getByTestId('composer-sign'));
    const first = (await screen.findByTestId('composer-token')).textContent!;
    type('composer-sub', 'second@bank.example');
    fireEvent.click(screen.getByTestId('composer-sign'));
    await waitFor(() => expect(screen.getAllByTestId('composer-history-row')).toHaveLength(2));
    const second = screen.getByTestId('composer-token').textContent!;
    expect(second).not.toBe(first);
    const subs = screen.getAllByTestId('composer-history-sub').map((c) => c.textContent);
    expect(subs).toEqual(['second@bank.example', 'ops@bank.example']);
    // Only the public token, never key material, is kept in the browser.
    const stored = window.localStorage.getItem('dets-console.composer')!;
    expect(stored).toContain(second);
    expect(stored).not.toMatch(/"d"\s*:|PRIVATE KEY/);

    fireEvent.click(screen.getByTestId('history-copy-token-1'));
    await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(first));
    fireEvent.click(screen.getByTestId('history-copy-header-1'));
    await waitFor(() => expect(writeText).toHaveBeenLastCalledWith(`CX-Authorization: ${first}`));
    fireEvent.click(screen.getByTestId('history-copy-curl-0'));
    await waitFor(() =>
      expect(writeText).toHaveBeenLastCalledWith(expect.stringContaining(`CX-Authorization: ${second}`)),
    );
    fireEvent.click(screen.getByTestId('history-open-inspector-1'));
    const form = useInspectorStore.getState();
    expect(form.raw).toBe(first);
    expect(JSON.parse(form.keyText)).toEqual(keyInfo('k-env').public_jwk);
    expect(form.expectedSub).toBe('ops@bank.example');

    fireEvent.click(screen.getByTestId('composer-history-clear'));
    expect(screen.queryByTestId('composer-history')).toBeNull();
  });

  it(`caps the history at ${HISTORY_LIMIT}`, () => {
    const entry = (n: number): ComposedToken => ({
      token: `t${n}`,
      header_line: `CX-Authorization: t${n}`,
      curl: null,
      environment_id: 'sandbox',
      kid: 'k',
      obj: 'o',
      sub: 's',
      at: new Date(0).toISOString(),
      exp: null,
    });
    for (let n = 0; n < HISTORY_LIMIT + 5; n += 1) useComposerStore.getState().remember(entry(n));
    const history = useComposerStore.getState().history;
    expect(history).toHaveLength(HISTORY_LIMIT);
    expect(history[0]!.token).toBe(`t${HISTORY_LIMIT + 4}`);
  });
});
