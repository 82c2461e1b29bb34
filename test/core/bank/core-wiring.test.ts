/** The bank endpoints behind the ConsoleApi: bank.setNotifyPrefix through dispatch, over real HTTP. */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { methods } from '../../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';

let core: ConsoleCore | undefined;
let dir: string | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
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
