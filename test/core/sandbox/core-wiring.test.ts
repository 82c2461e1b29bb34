/** The sandbox behind the ConsoleApi: the composition root's sandbox.* methods and events. */
import { afterEach, describe, expect, it } from 'vitest';
import { methods } from '../../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';
import { bankJwt, call, cleanup, makeBankKey, tempDir } from './helpers';

let core: ConsoleCore | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
  await cleanup();
});

describe('sandbox.* through dispatch', () => {
  it('onboards, reports status, rotates, and signs in with outputs that match the contract', async () => {
    // A vault is always there: the OS keychain when one answers, else the passphrase vault that
    // DETS_VAULT_PASSPHRASE asks for. Either way the sandbox's key goes through it.
    core = await createConsoleCore({
      dataDir: await tempDir(),
      host: 'cli',
      env: { DETS_VAULT_PASSPHRASE: 'correct horse battery staple' },
    });
    const seen: string[] = [];
    core.events.onAny((event) => seen.push(event));
    const key = await makeBankKey();

    const onboarded = await core.dispatch('sandbox.onboard', { jwk: key.jwk });
    expect(onboarded.ok).toBe(true);
    const { counterparty_guid } = (onboarded as { value: { counterparty_guid: string } }).value;
    expect(seen.filter((e) => e.startsWith('sandbox.') || e === 'app.noticed')).toEqual(['sandbox.changed']);

    const listener = await core.listenSandbox({ host: '127.0.0.1', port: 0 });
    const status = await core.dispatch('sandbox.status', undefined);
    expect(status.ok).toBe(true);
    const value = methods['sandbox.status'].output.parse((status as { value: unknown }).value);
    expect(value).toMatchObject({ url: listener.url, key_persistence: 'vault' });
    expect(value.counterparties.map((c) => c.counterparty_guid)).toEqual([counterparty_guid]);

    const rotated = await core.dispatch('sandbox.rotateKey', undefined);
    expect(
      methods['sandbox.rotateKey'].output.parse((rotated as { value: unknown }).value).keys,
    ).toHaveLength(2);

    const signIn = await core.dispatch('sandbox.signIn', { counterparty_guid, token: await bankJwt(key) });
    const result = methods['sandbox.signIn'].output.parse((signIn as { value: unknown }).value);
    expect(result).toMatchObject({ ok: false, failed: 'bank_url' });

    const traces = await core.dispatch('sandbox.traces', { counterparty_guid });
    expect(methods['sandbox.traces'].output.parse((traces as { value: unknown }).value)).toHaveLength(1);

    const jwks = await call(listener.url, 'GET', '/api/v1/.well-known/jwks.json');
    expect((jwks.json as { keys: unknown[] }).keys).toHaveLength(2);
  });

  it('carries error codes: CONFLICT, NOT_FOUND, BAD_ARGUMENT', async () => {
    core = await createConsoleCore({ dataDir: await tempDir(), host: 'cli' });
    const key = await makeBankKey();
    const first = await core.dispatch('sandbox.onboard', { jwk: key.jwk });
    const guid = (first as { value: { counterparty_guid: string } }).value.counterparty_guid;
    const again = await core.dispatch('sandbox.onboard', {
      counterparty_guid: guid,
      jwk: (await makeBankKey()).jwk,
    });
    expect(again).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    const missing = await core.dispatch('sandbox.notify', {
      counterparty_guid: crypto.randomUUID(),
      event: 'pay-in',
    });
    expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    const noUrl = await core.dispatch('sandbox.notify', { counterparty_guid: guid, event: 'pay-in' });
    expect(noUrl).toMatchObject({
      ok: false,
      error: { code: 'BAD_ARGUMENT', message: expect.stringMatching(/bank_receiver_url/) },
    });
    const privateKey = await core.dispatch('sandbox.onboard', { jwk: key.privateJwk });
    expect(privateKey).toMatchObject({
      ok: false,
      error: { code: 'BAD_ARGUMENT', message: expect.stringMatching(/private/) },
    });
  });
});
