/** The bank endpoints behind the ConsoleApi: bank.setNotifyPrefix through dispatch, over real HTTP. */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { methods } from '../../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';
import { claims, cleanup, makeServiceKey, serviceJwt, startJwksServer } from './helpers';

let core: ConsoleCore | undefined;
let dir: string | undefined;
afterEach(async () => {
  await cleanup();
  await core?.close();
  core = undefined;
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  dir = undefined;
});

const post = (url: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ transaction_id: randomUUID() }),
  });

describe('bank.setNotifyPrefix through dispatch', () => {
  it('moves the notification routes; a bad prefix is refused and changes nothing', async () => {
    dir = await mkdtemp(join(tmpdir(), 'dets-bank-wiring-'));
    core = await createConsoleCore({ dataDir: dir, host: 'cli' });
    const bank = await core.listenBank({ host: '127.0.0.1', port: 0 });
    expect((await post(`${bank.url}/api/svc/notify/pay-in`)).status).toBe(200);

    const set = await core.dispatch('bank.setNotifyPrefix', { prefix: '/api/dcm/notify' });
    expect(set).toEqual({ ok: true, value: { notify_path_prefix: '/api/dcm/notify' } });
    methods['bank.setNotifyPrefix'].output.parse((set as { value: unknown }).value);
    expect((await post(`${bank.url}/api/dcm/notify/transfer`)).status).toBe(200);
    expect((await post(`${bank.url}/api/svc/notify/pay-in`)).status).toBe(404);

    const bad = await core.dispatch('bank.setNotifyPrefix', { prefix: '/user_auth' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENT' } });
    const status = await core.dispatch('bank.status', undefined);
    expect((status as { value: { notify_path_prefix: string } }).value.notify_path_prefix).toBe(
      '/api/dcm/notify',
    );
  });
});

describe('callback events through events.get and events.export', () => {
  /** The newest callback's id, once its event is stored (callback events follow the answer). */
  async function newestCallback(c: ConsoleCore, after?: string): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const page = await c.dispatch('events.query', { kind: 'callback', limit: 1 });
      const id = (page as { value: { events: Array<{ id: string }> } }).value.events[0]?.id;
      if (id && id !== after) return id;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('no new callback event');
  }

  it('readers get the whole callback: token and checks rebuilt from the small record', async () => {
    dir = await mkdtemp(join(tmpdir(), 'dets-bank-wiring-'));
    const key = await makeServiceKey();
    const jwks = await startJwksServer([key.jwk]);
    core = await createConsoleCore({ dataDir: dir, host: 'cli', serviceJwksUrl: jwks.url });
    const bank = await core.listenBank({ host: '127.0.0.1', port: 0 });
    // A proven token (the service's key) for a customer the bank does not know: fails `obj`.
    const res = await fetch(`${bank.url}/user_auth`, {
      headers: { 'X-Session-ID': await serviceJwt(key, claims({ obj: 'NOPE' })) },
    });
    expect(res.status).toBe(401);
    const id = await newestCallback(core);
    const got = await core.dispatch('events.get', { id });
    const detail = methods['events.get'].output.parse((got as { value: unknown }).value);
    expect(detail).toMatchObject({ failed_check: 'obj', token: { header: { alg: 'RS256', kid: key.kid } } });
    const status = Object.fromEntries(detail.checks?.map((c) => [c.id, c.status]) ?? []);
    expect(status).toMatchObject({ structure: 'passed', kid: 'passed', signature: 'passed', obj: 'failed' });
    expect(status.sub).toBe('skipped');
    expect(detail.data).toBeUndefined();
    const exported = await core.dispatch('events.export', { format: 'json', query: { kind: 'callback' } });
    const line = JSON.parse((exported as { value: { text: string } }).value.text.trim()) as typeof detail;
    expect(line.checks).toEqual(detail.checks);
  });

  it('a token that was not proven reaches readers as its compact record, through the contract', async () => {
    dir = await mkdtemp(join(tmpdir(), 'dets-bank-wiring-'));
    core = await createConsoleCore({ dataDir: dir, host: 'cli' });
    const bank = await core.listenBank({ host: '127.0.0.1', port: 0 });
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const token = `${b64({ alg: 'none' })}.${b64({ flow: 'sign-in', obj: 'X', sub: 'y' })}.`;
    const res = await fetch(`${bank.url}/user_auth`, { headers: { 'X-Session-ID': token } });
    expect(res.status).toBe(401);
    const id = await newestCallback(core);
    const got = await core.dispatch('events.get', { id });
    const detail = methods['events.get'].output.parse((got as { value: unknown }).value);
    expect(detail).toMatchObject({
      failed_check: 'alg',
      path: '/user_auth',
      status: 401,
      obj: 'X',
      request: null,
      token: { header: { alg: 'none' }, payload: null },
      data: { compact: true, reason: expect.stringMatching(/^alg: /) },
    });
    // Read back with its checks as the pages show them: passed up to alg, alg failed with the
    // reason it was refused with, the rest not checked (callback-detail.ts compactChecks).
    const at = detail.checks?.findIndex((c) => c.id === 'alg') ?? -1;
    expect(detail.checks?.[at]).toMatchObject({ status: 'failed', detail: expect.stringMatching(/none/) });
    expect(detail.checks?.slice(0, at).every((c) => c.status === 'passed')).toBe(true);
    expect(detail.checks?.slice(at + 1).every((c) => c.status === 'skipped')).toBe(true);
  });
});
