// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ConsoleError } from '../../../../electron/contract';
import { InspectorPage } from '../../../../renderer/features/inspector/inspector-page';
import { resetInspectorStore } from '../../../../renderer/features/inspector/inspector-store';
import {
  SAMPLE_JWK,
  SAMPLE_OBJ,
  SAMPLE_SUB,
  SAMPLE_TOKEN,
} from '../../../../renderer/features/inspector/sample';
import { fakeApi, renderWithClient, report } from '../../support/render';

const TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';

beforeEach(() => resetInspectorStore());
afterEach(() => cleanup());

function typeToken(value: string) {
  fireEvent.change(screen.getByTestId('token-input'), { target: { value } });
}

describe('InspectorPage', () => {
  it('explains what to paste before anything is typed, and does not call the API', () => {
    const { api, inspect } = fakeApi();
    renderWithClient(<InspectorPage />, api);
    expect(screen.getByTestId('inspector-empty').textContent).toContain('CX-Authorization');
    expect(inspect).not.toHaveBeenCalled();
  });

  it('sends the stripped token once typing settles and shows each check with its status in words', async () => {
    const { api, inspect } = fakeApi({
      inspect: async () =>
        report([
          ['structure', 'passed'],
          ['alg', 'passed', 'RS256 is allowed'],
          ['signature', 'skipped', 'no key given'],
          ['exp', 'failed', 'expired 3 min ago'],
        ]),
    });
    renderWithClient(<InspectorPage />, api);
    typeToken(`  CX-Authorization: Bearer ${TOKEN.slice(0, 20)}\n${TOKEN.slice(20)}  \n`);

    const exp = await screen.findByTestId('check-exp', {}, { timeout: 3000 });
    expect(inspect).toHaveBeenCalledTimes(1);
    expect(inspect).toHaveBeenCalledWith({ token: TOKEN });

    expect(exp.getAttribute('data-status')).toBe('failed');
    expect(exp.textContent).toContain('failed');
    expect(exp.textContent).toContain('expired 3 min ago');
    expect(screen.getByTestId('check-alg').getAttribute('data-status')).toBe('passed');
    expect(screen.getByTestId('check-alg').textContent).toContain('passed');
    expect(screen.getByTestId('check-signature').getAttribute('data-status')).toBe('skipped');
    expect(screen.getByTestId('check-signature').textContent).toContain('skipped');

    const verdict = screen.getByTestId('verdict');
    expect(verdict.getAttribute('data-verdict')).toBe('failed');
    expect(verdict.textContent).toContain('1 of 4 checks failed');
    expect(screen.getByTestId('token-stripped').textContent).toMatch(/CX-Authorization.*Bearer.*whitespace/);
  });

  it('debounces: a burst of keystrokes makes one call with the last value', async () => {
    const { api, inspect } = fakeApi({ inspect: async () => report([['structure', 'passed']]) });
    renderWithClient(<InspectorPage />, api);
    for (let i = 10; i <= TOKEN.length; i += 10) typeToken(TOKEN.slice(0, i));
    typeToken(TOKEN);
    await screen.findByTestId('check-structure', {}, { timeout: 3000 });
    expect(inspect).toHaveBeenCalledTimes(1);
    expect(inspect).toHaveBeenCalledWith({ token: TOKEN });
  });

  it('passes the key source and expected claims exactly as the contract names them', async () => {
    const { api, inspect } = fakeApi({ inspect: async () => report([['signature', 'passed']]) });
    renderWithClient(<InspectorPage />, api);
    typeToken(TOKEN);
    fireEvent.click(screen.getByTestId('key-source-jwks-url'));
    fireEvent.change(screen.getByTestId('key-url-input'), { target: { value: 'not a url' } });
    expect(screen.getByTestId('key-note').textContent).toContain('Not an http(s) URL');
    fireEvent.change(screen.getByTestId('key-url-input'), {
      target: { value: 'http://127.0.0.1:7302/api/v1/.well-known/jwks.json' },
    });
    fireEvent.change(screen.getByTestId('expected-obj-input'), { target: { value: ' DE89 ' } });
    fireEvent.change(screen.getByTestId('expected-sub-input'), { target: { value: 'ops@bank.example' } });
    await waitFor(
      () =>
        expect(inspect).toHaveBeenLastCalledWith({
          token: TOKEN,
          keySource: { type: 'jwks-url', url: 'http://127.0.0.1:7302/api/v1/.well-known/jwks.json' },
          expectedObj: 'DE89',
          expectedSub: 'ops@bank.example',
        }),
      { timeout: 3000 },
    );
    // A half-typed URL is never sent.
    expect(
      inspect.mock.calls.every(
        ([input]) => input.keySource?.type !== 'jwks-url' || input.keySource.url.startsWith('http://127'),
      ),
    ).toBe(true);
  });

  it('shows an API error inline with its code and message, without losing the page', async () => {
    const { api } = fakeApi({
      inspect: async () => {
        throw new ConsoleError('JWKS_FETCH_FAILED', 'GET http://127.0.0.1:9/jwks.json: connection refused');
      },
    });
    renderWithClient(<InspectorPage />, api);
    typeToken(TOKEN);
    const error = await screen.findByTestId('inspect-error', {}, { timeout: 3000 });
    expect(error.getAttribute('role')).toBe('alert');
    expect(error.textContent).toContain('JWKS_FETCH_FAILED');
    expect(error.textContent).toContain('connection refused');
    expect(screen.getByTestId('token-input')).toBeTruthy();
  });

  it('colours the header, payload and signature segments as separate spans and dims stripped text', () => {
    const { api } = fakeApi();
    renderWithClient(<InspectorPage />, api);
    typeToken(`Bearer ${TOKEN}`);
    const mirror = screen.getByTestId('token-segments');
    const spans = [...mirror.querySelectorAll('span[data-segment]')].map((s) => [
      s.getAttribute('data-segment'),
      s.textContent,
    ]);
    const [h, p, s] = TOKEN.split('.');
    expect(spans).toEqual([
      ['ignored', 'Bearer '],
      ['header', h],
      ['dot', '.'],
      ['payload', p],
      ['dot', '.'],
      ['signature', s],
    ]);
    expect(mirror.querySelector('.seg-header')).not.toBeNull();
    expect(mirror.querySelector('.seg-payload')).not.toBeNull();
    expect(mirror.querySelector('.seg-signature')).not.toBeNull();
    expect(mirror.getAttribute('aria-hidden')).toBe('true');
  });

  it('renders the decoded header and claims, the times table and the lifetime', async () => {
    const { api } = fakeApi({ inspect: async () => report([['structure', 'passed']]) });
    renderWithClient(<InspectorPage />, api);
    typeToken(TOKEN);
    const payload = await screen.findByTestId('decoded-payload', {}, { timeout: 3000 });
    expect(payload.textContent).toContain('"obj": "DE89"');
    expect(screen.getByTestId('decoded-header').textContent).toContain('"alg": "RS256"');
    const exp = screen.getByTestId('time-exp');
    expect(within(exp).getByText('1735733100')).toBeTruthy();
    expect(exp.textContent).toContain('in 5 min');
    expect(exp.textContent).toContain(new Date('2025-01-01T12:05:00.000Z').toLocaleString());
    expect(screen.getByTestId('lifetime').textContent).toContain('5 min');
    expect(screen.getByTestId('verdict').getAttribute('data-verdict')).toBe('passed');
  });

  it('"Try a sample" loads the demo token with its public key and claims and inspects it', async () => {
    const { api, inspect } = fakeApi({ inspect: async () => report([['exp', 'failed']]) });
    renderWithClient(<InspectorPage />, api);
    fireEvent.click(screen.getByTestId('try-sample'));
    await screen.findByTestId('check-exp', {}, { timeout: 3000 });
    expect(inspect).toHaveBeenCalledWith({
      token: SAMPLE_TOKEN,
      keySource: { type: 'text', text: JSON.stringify(SAMPLE_JWK, null, 2) },
      expectedObj: SAMPLE_OBJ,
      expectedSub: SAMPLE_SUB,
    });
  });
});

describe('InspectorPage key and verdict wording', () => {
  it('says why a pasted key could not be used, and calls an unverified signature out', async () => {
    const { api } = fakeApi({
      inspect: async () =>
        report(
          [
            ['alg', 'passed'],
            ['signature', 'skipped', 'no usable key: the pasted text is not a JWKS, a JWK or PEM'],
          ],
          {
            keys: { source: 'text', description: 'pasted text', kids: [], error: 'not a JWKS, a JWK or PEM' },
          },
        ),
    });
    renderWithClient(<InspectorPage />, api);
    typeToken(TOKEN);
    fireEvent.click(screen.getByTestId('key-source-text'));
    fireEvent.change(screen.getByTestId('key-text-input'), { target: { value: 'hello' } });
    const keyError = await screen.findByTestId('key-error', {}, { timeout: 3000 });
    expect(keyError.textContent).toContain('not a JWKS, a JWK or PEM');
    const verdict = screen.getByTestId('verdict');
    expect(verdict.getAttribute('data-verdict')).toBe('unverified');
    expect(verdict.textContent).toContain('signature was not verified');
  });

  it('does not alarm about an absent optional claim once the signature holds', async () => {
    const { api } = fakeApi({
      inspect: async () =>
        report([
          ['signature', 'passed'],
          ['nbf', 'skipped', 'no nbf claim (it is optional)'],
        ]),
    });
    renderWithClient(<InspectorPage />, api);
    typeToken(TOKEN);
    const verdict = await screen.findByTestId('verdict', {}, { timeout: 3000 });
    expect(verdict.getAttribute('data-verdict')).toBe('passed');
    expect(verdict.textContent).toContain('1 skipped');
  });
});
