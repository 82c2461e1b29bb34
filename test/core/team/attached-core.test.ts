/**
 * Issue 30 item 2 and 3: a console attaching to a team hub from its start page (core/team
 * AttachedCore, what the desktop app's main process and `serve` host). A real hub (`serve
 * --team`, the built CLI), the real OS keychain (run under scripts/with-keyring.sh), a real
 * local core: a refused token is BAD_ARGUMENT `token` and nothing is kept; an accepted one makes
 * every call and live event the hub's, puts the token in the keychain and nowhere else (no
 * answer, no event, no file of the profile), survives a restart of the host (re-attach from the
 * keychain), says a lost hub with backoff and comes back with it; detaching forgets it all.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TeamConnection } from '../../../electron/contract/schemas/team';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';
import { AttachedCore } from '../../../electron/core/team';
import { createOsKeychain, KEYCHAIN_SERVICE } from '../../../electron/core/vault';
import { cliTestFile } from '../../cli/support/spawn-cli';
import { addMember } from '../../cli/support/team';

const cli = cliTestFile('dets-attached-core-');
const keychain = createOsKeychain();
const opened: Array<{ pages: AttachedCore; core: ConsoleCore }> = [];

afterEach(async () => {
  for (const { pages, core } of opened.splice(0)) {
    pages.close();
    await core.close();
  }
});

/** A laptop's console on `dataDir`, with every answer and live event it gives the page recorded. */
async function laptop(dataDir: string) {
  const core = await createConsoleCore({ dataDir, host: 'browser', keychain });
  const pages = new AttachedCore({ local: core, dataDir, keychain });
  opened.push({ pages, core });
  const seen: string[] = [];
  const changes: TeamConnection[] = [];
  pages.events.onAny((event, payload) => {
    seen.push(JSON.stringify({ event, payload }));
    if (event === 'team.changed') changes.push(payload as TeamConnection);
  });
  const call = async (method: string, input?: unknown) => {
    const answer = await pages.dispatch(method, input);
    seen.push(JSON.stringify(answer));
    return answer as { ok: boolean; value?: unknown; error?: { code: string; details?: unknown } };
  };
  return { core, pages, seen, changes, call };
}

/** A hub (`serve --team`, no TLS on loopback) on `uiPort` (0: any) with its data dir. */
async function hub(dir: string, uiPort = 0) {
  const run = cli.spawn([
    'serve',
    '--team',
    '--json',
    '--ui-port',
    String(uiPort),
    '--bank-port',
    '0',
    '--no-sandbox',
    '--data-dir',
    dir,
  ]);
  const ready = await run.ready;
  return { run, ui: new URL('/', String(ready.ui)).href, bank: String(ready.bank) };
}

/** Every file under `dir`, read as text. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir, { recursive: true })) {
    const file = path.join(dir, name);
    if ((await stat(file)).isFile()) out.push((await readFile(file)).toString('latin1'));
  }
  return out;
}

describe('attaching from the start page', () => {
  it('refuses a token the hub does not know, naming the field, and keeps nothing', async () => {
    const hubDir = cli.dataDir('hub-refused');
    await addMember(['--data-dir', hubDir], 'olga@bank.example', 'operator');
    const h = await hub(hubDir);
    const dataDir = cli.dataDir('laptop-refused');
    const l = await laptop(dataDir);
    const wrong = 'dets_m_' + 'x'.repeat(43);
    const answer = await l.call('team.attach', { hub_url: h.ui, token: wrong });
    expect(answer).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENT', details: { field: 'token' } } });
    expect(l.pages.status().state).toBe('detached');
    await expect(stat(path.join(dataDir, 'team', 'attachment.json'))).rejects.toThrow();
    // Still the laptop's own console.
    expect(await l.call('team.session')).toMatchObject({ ok: true, value: { hub: null } });
    await h.run.stop();
  }, 120_000);

  it('makes the pages the hub’s, keeps the token in the keychain only, re-attaches, retries and detaches', async () => {
    const hubDir = cli.dataDir('hub');
    const token = await addMember(['--data-dir', hubDir], 'olga@bank.example', 'operator');
    let h = await hub(hubDir);
    const dataDir = cli.dataDir('laptop');
    const l = await laptop(dataDir);

    const attached = await l.call('team.attach', { hub_url: h.ui, token });
    expect(attached).toMatchObject({
      ok: true,
      value: { state: 'connected', hub: '127.0.0.1', member: 'olga@bank.example', role: 'operator' },
    });
    expect((attached.value as TeamConnection).remembered).toBe(true);
    expect(await l.call('team.session')).toMatchObject({
      ok: true,
      value: { hub: '127.0.0.1', member: 'olga@bank.example', role: 'operator' },
    });
    // A viewer-level read reaches the hub; an admin's call is the hub's 403 for an operator.
    expect(await l.call('keys.generate', {})).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });

    // The hub's live events reach the page.
    const tx = crypto.randomUUID();
    await expect
      .poll(
        async () => {
          await fetch(`${h.bank}/api/svc/notify/pay-in`, {
            method: 'POST',
            body: JSON.stringify({ transaction_id: tx }),
          });
          return l.seen.some((s) => s.includes('events.appended') && s.includes(tx));
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBe(true);

    // The token: in the keychain, under the account the profile names, and nowhere else.
    const record = JSON.parse(await readFile(path.join(dataDir, 'team', 'attachment.json'), 'utf8')) as {
      keychain_account: string;
      hub_url: string;
    };
    expect(record.hub_url).toBe(h.ui);
    expect(await keychain.get(KEYCHAIN_SERVICE, record.keychain_account)).toBe(token);
    for (const text of await filesUnder(dataDir)) expect(text.includes(token)).toBe(false);

    // The host restarts: it re-attaches from the keychain.
    const again = await laptop(dataDir);
    expect(await again.pages.resume()).toMatchObject({ state: 'connected', member: 'olga@bank.example' });

    // The hub goes away: the connection says so, with backoff; it comes back on its port.
    const port = new URL(h.ui).port;
    await h.run.stop();
    await expect
      .poll(() => l.changes.find((c) => c.state === 'retrying') ?? null, { timeout: 15_000 })
      .toMatchObject({ state: 'retrying', attempts: 1, member: 'olga@bank.example' });
    const retrying = l.changes.filter((c) => c.state === 'retrying');
    expect(retrying.every((c) => (c.retry_in_ms ?? 0) > 0)).toBe(true);
    h = await hub(hubDir, Number(port));
    await expect.poll(() => l.pages.status().state, { timeout: 30_000 }).toBe('connected');

    // Item 3: no answer or event the page got carries the token.
    for (const s of [...l.seen, ...again.seen]) expect(s.includes(token)).toBe(false);

    // Detaching: the laptop's own console again; the keychain item and the record are gone.
    expect(await l.call('team.detach')).toMatchObject({ ok: true, value: { state: 'detached' } });
    expect(await l.call('team.session')).toMatchObject({ ok: true, value: { hub: null } });
    expect(await keychain.get(KEYCHAIN_SERVICE, record.keychain_account)).toBeNull();
    await expect(stat(path.join(dataDir, 'team', 'attachment.json'))).rejects.toThrow();
    await h.run.stop();
  }, 180_000);

  it('a hub’s own core refuses to attach anywhere', async () => {
    const core = await createConsoleCore({ dataDir: cli.dataDir('plain'), host: 'browser', keychain });
    try {
      expect(
        await core.dispatch('team.attach', { hub_url: 'http://127.0.0.1:1/', token: 't' }),
      ).toMatchObject({
        ok: false,
        error: { code: 'FORBIDDEN' },
      });
      expect(await core.dispatch('team.connection', undefined)).toMatchObject({
        ok: true,
        value: { state: 'detached', can_attach: false },
      });
    } finally {
      await core.close();
    }
  });
});
