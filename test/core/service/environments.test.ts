/** Environments: the built-in sandbox, real ones, validation, persistence, a damaged file. */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { methods } from '../../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';
import { EventHub } from '../../../electron/core/event-hub';
import { createEnvironmentStore } from '../../../electron/core/service';

const dirs: string[] = [];
let core: ConsoleCore | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
  while (dirs.length) await fs.rm(dirs.pop() as string, { recursive: true, force: true, maxRetries: 5 });
});

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dets-env-'));
  dirs.push(dir);
  return dir;
}

async function makeStore(sandboxUrl: string | null = 'http://127.0.0.1:7302') {
  const dataDir = await tempDir();
  const events = new EventHub();
  const changes: unknown[] = [];
  events.on('env.changed', (e) => changes.push(e));
  let url = sandboxUrl;
  const store = createEnvironmentStore({ dataDir, sandboxUrl: () => url, events });
  return { store, dataDir, changes, setSandboxUrl: (u: string | null) => (url = u) };
}

const GUID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

describe('environment store', () => {
  it('has the sandbox, active by default, following the listener URL live, with nothing to configure', async () => {
    const { store, setSandboxUrl, dataDir } = await makeStore(null);
    const empty = await store.list();
    expect(empty.active_id).toBe('sandbox');
    expect(empty.environments).toEqual([
      {
        id: 'sandbox',
        name: 'Sandbox',
        kind: 'sandbox',
        base_url: null,
        counterparty_guid: null,
        active_kid: null,
        default_obj: null,
        default_sub: null,
        service_jwks_url: null,
        effective_jwks_url: null,
        retired_kids: [],
        created_at: null,
      },
    ]);
    setSandboxUrl('http://127.0.0.1:40111');
    const sandbox = await store.get();
    expect(sandbox).toMatchObject({
      base_url: 'http://127.0.0.1:40111',
      effective_jwks_url: 'http://127.0.0.1:40111/api/v1/.well-known/jwks.json',
    });
    // Reading writes nothing.
    await expect(fs.readdir(dataDir)).resolves.toEqual([]);
  });

  it("saves the sandbox's per-profile fields, refuses its fixed ones, and refuses to remove it", async () => {
    const { store, changes } = await makeStore();
    const saved = await store.save({
      id: 'sandbox',
      counterparty_guid: GUID,
      active_kid: 'bank-1',
      default_obj: 'DE02120300000000202051',
      default_sub: 'ops@bank.example',
    });
    expect(saved).toMatchObject({ id: 'sandbox', counterparty_guid: GUID, active_kid: 'bank-1' });
    expect(changes).toHaveLength(1);
    await expect(store.save({ id: 'sandbox', base_url: 'https://elsewhere.example' })).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/sandbox environment's base_url cannot be set/),
    });
    await expect(store.remove('sandbox')).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/built in and cannot be removed/),
    });
    // Clearing with null.
    expect(await store.save({ id: 'sandbox', active_kid: null })).toMatchObject({ active_kid: null });
  });

  it('creates, updates, activates and removes real environments; removing the active one falls back to the sandbox', async () => {
    const { store, changes, dataDir } = await makeStore();
    const staging = await store.save({ name: 'Staging', base_url: 'https://dets.staging.example/' });
    expect(staging).toMatchObject({
      kind: 'real',
      name: 'Staging',
      base_url: 'https://dets.staging.example', // trailing slash dropped
      effective_jwks_url: 'https://dets.staging.example/api/v1/.well-known/jwks.json',
      service_jwks_url: null,
    });
    expect(staging.id).toMatch(/^[0-9a-f-]{36}$/);
    const updated = await store.save({
      id: staging.id,
      counterparty_guid: GUID,
      service_jwks_url: 'https://keys.staging.example/jwks.json',
    });
    expect(updated).toMatchObject({
      base_url: 'https://dets.staging.example',
      counterparty_guid: GUID,
      effective_jwks_url: 'https://keys.staging.example/jwks.json',
    });
    const activated = await store.activate(staging.id);
    expect(activated.active_id).toBe(staging.id);
    expect((await store.get()).id).toBe(staging.id);
    expect(await store.get('sandbox')).toMatchObject({ kind: 'sandbox' });

    // Persisted: a second store on the same folder sees the same thing; the file is 0600.
    const again = createEnvironmentStore({ dataDir, sandboxUrl: () => null });
    expect((await again.list()).active_id).toBe(staging.id);
    expect((await again.get()).counterparty_guid).toBe(GUID);
    const stat = await fs.stat(path.join(dataDir, 'environments.json'));
    expect(stat.mode & 0o777).toBe(0o600);

    await store.remove(staging.id);
    const after = await store.list();
    expect(after.active_id).toBe('sandbox');
    expect(after.environments.map((e) => e.id)).toEqual(['sandbox']);
    expect(changes.length).toBe(4); // save, save, activate, remove
    await expect(store.remove(staging.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.activate('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.get('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('validates on entry, naming the field, and keeps what was stored', async () => {
    const { store } = await makeStore();
    await store.save({ name: 'Prod', base_url: 'https://dets.example' });
    const cases: Array<[Record<string, unknown>, RegExp, string]> = [
      [{ name: 'prod', base_url: 'https://other.example' }, /already named "Prod"/, 'CONFLICT'],
      [{ name: 'sandbox', base_url: 'https://other.example' }, /already named "Sandbox"/, 'CONFLICT'],
      [{ base_url: 'https://other.example' }, /needs a name/, 'BAD_ARGUMENT'],
      [{ name: 'X' }, /needs base_url/, 'BAD_ARGUMENT'],
      [{ name: 'X', base_url: 'ftp://x.example' }, /base_url: must be an http\(s\) URL/, 'BAD_ARGUMENT'],
      [{ name: 'X', base_url: 'https://x.example/?a=1' }, /base_url: must not have a query/, 'BAD_ARGUMENT'],
      [{ name: 'X', base_url: 'https://x.example/#top' }, /fragment/, 'BAD_ARGUMENT'],
      [{ name: 'X', base_url: 'https://u:p@x.example' }, /user:password/, 'BAD_ARGUMENT'],
      [{ name: 'X', base_url: 'https://x.example/api/v1/' }, /drop the \/api\/v1/, 'BAD_ARGUMENT'],
      [
        { name: 'X', base_url: 'https://x.example', counterparty_guid: 'abc' },
        /counterparty_guid: must be a GUID/,
        'BAD_ARGUMENT',
      ],
      [
        { name: 'X', base_url: 'https://x.example', service_jwks_url: 'x' },
        /service_jwks_url/,
        'BAD_ARGUMENT',
      ],
      [{ name: '  ', base_url: 'https://x.example' }, /name must not be empty/, 'BAD_ARGUMENT'],
      [{ id: 'missing', name: 'Y' }, /no environment with id "missing"/, 'NOT_FOUND'],
    ];
    for (const [input, message, code] of cases) {
      await expect(store.save(input as never), JSON.stringify(input)).rejects.toMatchObject({
        code,
        message: expect.stringMatching(message),
      });
    }
    const list = await store.list();
    expect(list.environments.map((e) => e.name)).toEqual(['Sandbox', 'Prod']);
  });

  it('reports a damaged file as STATE_DAMAGED naming it, and leaves it byte for byte', async () => {
    const { store, dataDir } = await makeStore();
    const file = path.join(dataDir, 'environments.json');
    for (const text of [
      '{"version":1,"environments":[',
      '{"version":2}',
      '{"version":1,"environments":[{"id":"a"}]}',
    ]) {
      await fs.writeFile(file, text);
      await expect(store.list()).rejects.toMatchObject({
        code: 'STATE_DAMAGED',
        message: expect.stringContaining(file),
        details: { file },
      });
      await expect(store.save({ name: 'New', base_url: 'https://new.example' })).rejects.toMatchObject({
        code: 'STATE_DAMAGED',
      });
      await expect(store.activate('sandbox')).rejects.toMatchObject({ code: 'STATE_DAMAGED' });
      expect(await fs.readFile(file, 'utf8')).toBe(text);
    }
    const twice = {
      version: 1,
      active_id: 'a',
      environments: [
        { id: 'a', name: 'A', base_url: 'https://a.example' },
        { id: 'a', name: 'B', base_url: 'https://b.example' },
      ],
    };
    await fs.writeFile(file, JSON.stringify(twice));
    await expect(store.get()).rejects.toMatchObject({ code: 'STATE_DAMAGED', message: /twice/ });
  });

  it('serialises concurrent saves without losing one', async () => {
    const { store } = await makeStore();
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.save({ name: `Env ${i}`, base_url: `https://e${i}.example` }),
      ),
    );
    expect((await store.list()).environments).toHaveLength(9);
  });
});

describe('env.* through dispatch', () => {
  it('lists, saves, activates and removes with contract-shaped answers and env.changed events', async () => {
    core = await createConsoleCore({ dataDir: await tempDir(), host: 'cli' });
    const seen: string[] = [];
    core.events.onAny((event) => seen.push(event));
    const listener = await core.listenSandbox({ host: '127.0.0.1', port: 0 });

    const listed = await core.dispatch('env.list', undefined);
    const value = methods['env.list'].output.parse((listed as { value: unknown }).value);
    expect(value.environments[0]).toMatchObject({ id: 'sandbox', base_url: listener.url });

    const saved = await core.dispatch('env.save', {
      name: 'Staging',
      base_url: 'https://dets.staging.example',
    });
    const env = methods['env.save'].output.parse((saved as { value: unknown }).value);
    const activated = await core.dispatch('env.activate', { id: env.id });
    expect(methods['env.activate'].output.parse((activated as { value: unknown }).value).active_id).toBe(
      env.id,
    );
    const removed = await core.dispatch('env.remove', { id: env.id });
    expect(methods['env.remove'].output.parse((removed as { value: unknown }).value).active_id).toBe(
      'sandbox',
    );
    expect(seen.filter((e) => e === 'env.changed')).toHaveLength(3);

    const bad = await core.dispatch('env.save', { name: 'X', base_url: 'https://x.example?q=1' });
    expect(bad).toMatchObject({
      ok: false,
      error: { code: 'BAD_ARGUMENT', message: expect.stringMatching(/query/) },
    });
    const sandbox = await core.dispatch('env.remove', { id: 'sandbox' });
    expect(sandbox).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
  });
});
