/**
 * A real environment's walkthrough moves only on its own traffic (issue 26 item 2; DESIGN.md
 * "Environments"). Through the real core (sandbox and bank on 127.0.0.1:0, a passphrase vault)
 * and a second HTTP server on 127.0.0.1 standing in for the real service's JWKS, its tokens
 * signed with node:crypto directly: notifications and a callback stored before the environment
 * existed, the sandbox's own callbacks, their replays, its notification deliveries and a
 * stranger's kid never reach steps 6 and 7; the real service's callback and notifications after
 * its creation do.
 */
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { cryptoJwt, signInClaims, startRealService } from '../../support/real-service';
import type { ConsoleCore } from '../../../electron/core/console-core';
import type { CoreDeps } from '../../../electron/core/core-types';
import { DEFAULT_OBJ, DEFAULT_SUB } from '../../../electron/core/walkthrough/facts';
import { gatherEvents } from '../../../electron/core/walkthrough/facts/events';
import { Progress } from '../../../electron/core/walkthrough/progress';
import { call, closeAll, newDataDir, openCore } from './harness';

afterEach(closeAll);

const jwtOf = (privateKey: KeyObject, kid: string) =>
  cryptoJwt(privateKey, kid, signInClaims(DEFAULT_OBJ, DEFAULT_SUB));

function depsOf(core: ConsoleCore): CoreDeps {
  return {
    dataDir: '',
    events: core.events,
    fetch,
    services: core.services,
    store: core.store,
    bank: core.bank,
    sandbox: core.sandbox,
    listeners: () => ({}),
    tunnel: core.tunnel,
  };
}

describe('a real environment’s walkthrough and everyone else’s traffic', () => {
  it('counts only its own service’s callbacks and notifications since it exists', async () => {
    const core = await openCore(await newDataDir());
    await core.listenSandbox({ host: '127.0.0.1', port: 0 });
    const bank = await core.listenBank({ host: '127.0.0.1', port: 0 });
    await call(core, 'bank.saveCustomer', {
      obj: DEFAULT_OBJ,
      sub: DEFAULT_SUB,
      external_id: 'e1',
      phone: '+49301',
      key: 'k-1234567890',
    });
    const real = await startRealService();
    const callback = async (token: string) => {
      const res = await fetch(`${bank.url}/user_auth`, { headers: { 'X-Session-ID': token } });
      await res.text();
      return res.status;
    };
    const notify = async (route: string, id = randomUUID()) => {
      const res = await fetch(`${bank.url}/api/svc/notify/${route}`, {
        method: 'POST',
        body: JSON.stringify({ transaction_id: id }),
      });
      expect(res.status).toBe(200);
      return id;
    };
    const store = await core.store();

    // History: before the environment exists.
    const old = await Promise.all(['pay-in', 'pay-out', 'transfer'].map((r) => notify(r)));
    // No environment publishes its kid yet: `kid` fails, and it is history either way.
    expect(await callback(jwtOf(real.privateKey, real.kid))).toBe(401);
    await new Promise((r) => setTimeout(r, 20)); // a later millisecond than the history
    const env = await call(core, 'env.save', { name: 'Staging', base_url: real.base });
    await call(core, 'env.activate', { id: env.id });

    // Other traffic since: the sandbox's callbacks and a replay of one, its deliveries, a stranger's kid, old transactions again.
    const sandbox = await core.sandbox();
    expect(await callback(await sandbox.signServiceToken({ obj: DEFAULT_OBJ, sub: DEFAULT_SUB }))).toBe(200);
    await store.flush();
    const sandboxCallback = (await call(core, 'events.query', { kind: 'callback', limit: 1 })).events[0]!;
    await call(core, 'bank.replay', { id: sandboxCallback.id });
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    expect(await callback(jwtOf(stranger, 'nobody'))).toBe(401);
    for (const [i, r] of ['pay-in', 'pay-out', 'transfer'].entries()) await notify(r, old[i]);
    const key = await call(core, 'keys.generate', {});
    const onboarded = await call(core, 'sandbox.onboard', {
      jwk: key.public_jwk,
      bank_receiver_url: bank.url,
      bank_sender_url: bank.url,
    });
    for (const event of ['pay-in', 'pay-out'] as const) {
      const sent = await call(core, 'sandbox.notify', {
        counterparty_guid: onboarded.counterparty_guid,
        event,
      });
      expect(sent.status).toBe(200);
    }
    await store.flush();

    const input = (e: typeof env) => ({
      env: e,
      progress: Progress.parse({ version: 1, environment_id: e.id }),
      obj: DEFAULT_OBJ,
      sub: DEFAULT_SUB,
      notifyPrefix: '/api/svc/notify',
    });
    const before = await gatherEvents(depsOf(core), input(env));
    expect(before.callbacks).toEqual([]);
    expect(before.notifications).toEqual([]);
    expect(before.outside.callbacks).toBeGreaterThanOrEqual(3);
    expect(before.outside.notifications).toBeGreaterThanOrEqual(5);

    // Its own service: a callback whose kid it publishes, and fresh notifications.
    // A second after the stranger's kid made it ask every JWKS: one fetch a second per JWKS URL
    // (DESIGN.md "Bank endpoints"), so within it a kid not yet cached is answered 401 at once.
    await new Promise((r) => setTimeout(r, 1100));
    expect(await callback(jwtOf(real.privateKey, real.kid))).toBe(200);
    const fresh = await notify('transfer');
    await store.flush();
    const after = await gatherEvents(depsOf(core), input(env));
    expect(after.callbacks).toHaveLength(1);
    expect(after.callbacks[0]).toMatchObject({ failed_check: null, status: 200 });
    expect(after.notifications.map((n) => n.transaction_id)).toEqual([fresh]);
  });
});
