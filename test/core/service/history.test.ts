/**
 * The exchange history in the profile database (issue 12 item 1): its own cap, shared by every
 * instance on the profile, and the one-time migration of `service/exchanges.jsonl` as the
 * file-based history wrote it.
 */
import { appendFileSync, existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Exchange } from '../../../electron/contract/schemas/service';
import { ExchangeHistory, LEGACY_HISTORY_FILE } from '../../../electron/core/service/history';
import { openDatabase } from '../../../electron/core/store/db';
import { tempDir } from '../keys/helpers';
import { ExchangeHistory as LegacyHistory } from './fixtures/legacy-exchange-history';

let dataDir: string;
/** Every history a test opens: closed before its folder goes (their writer threads touch it). */
const opened: ExchangeHistory[] = [];
const historyOf = (...args: ConstructorParameters<typeof ExchangeHistory>) => {
  const h = new ExchangeHistory(...args);
  opened.push(h);
  return h;
};
beforeEach(() => {
  dataDir = tempDir('dets-history-');
});
afterEach(async () => {
  for (const h of opened.splice(0)) await h.close();
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
});

/** An exchange with every field set (the optional ones too, on every other one). */
function exchange(i: number): Exchange {
  return {
    id: `x-${i}`,
    at: new Date(Date.UTC(2026, 2, 10, 9, 0, i)).toISOString(),
    environment_id: 'env-sandbox',
    operation: i % 2 ? 'register-jwk' : 'authenticate',
    request: {
      method: 'POST',
      url: `http://127.0.0.1:7302/api/v1/jwk/${i}`,
      headers: { 'CX-Authorization': `eyJ.token.${i}`, 'Content-Type': 'application/json' },
      body: i % 3 ? `{"n":${i},"text":"ü \\" \\n"}` : null,
    },
    response: i % 4 ? { status: 401, headers: { 'content-type': 'text/plain' }, body: `no ${i}` } : null,
    duration_ms: 12.5 + i,
    ok: i % 5 === 0,
    error: i % 5 ? `refused ${i}` : null,
    explanation: i % 2 ? 'kid not registered yet?' : null,
    curl: `curl -X POST 'http://127.0.0.1:7302/api/v1/jwk/${i}'`,
    ...(i % 2 ? { signing_kid: `kid-${i}`, jwk_kid: `new-${i}`, jwk_guid: null } : {}),
  };
}

function rowCount(): number {
  const db = openDatabase(dataDir);
  try {
    return Number(db.prepare('SELECT count(*) AS n FROM service_exchanges').get()?.n);
  } finally {
    db.close();
  }
}

describe('exchange history', () => {
  it('keeps the most recent exchanges up to its own cap, newest first, seen by every instance', async () => {
    const history = historyOf(dataDir, 5);
    for (let i = 0; i < 9; i++) await history.append(exchange(i));
    expect(rowCount()).toBe(5);
    expect((await history.list(5)).map((e) => e.id)).toEqual(['x-8', 'x-7', 'x-6', 'x-5', 'x-4']);
    expect((await historyOf(dataDir).list(2)).map((e) => e.id)).toEqual(['x-8', 'x-7']);
    expect(await history.list(1)).toEqual([exchange(8)]);
    if (process.platform !== 'win32')
      expect(statSync(path.join(dataDir, 'console.db')).mode & 0o777).toBe(0o600);
    expect(existsSync(path.join(dataDir, LEGACY_HISTORY_FILE))).toBe(false);
  });

  it('lists what was appended just before, without waiting for the caller', async () => {
    const history = historyOf(dataDir);
    void history.append(exchange(1));
    void history.append(exchange(2));
    expect((await history.list()).map((e) => e.id)).toEqual(['x-2', 'x-1']);
  });
});

describe('exchange history: migration of service/exchanges.jsonl', () => {
  it('copies a history written by the file-based code, every exchange with every field, once', async () => {
    const legacy = new LegacyHistory(dataDir);
    const written = Array.from({ length: 12 }, (_, i) => exchange(i));
    for (const x of written) await legacy.append(x);
    const file = path.join(dataDir, LEGACY_HISTORY_FILE);
    const text = readFileSync(file, 'utf8');

    const log: string[] = [];
    const history = historyOf(dataDir, 1000, (l) => log.push(l));
    expect(await history.list(100)).toEqual([...written].reverse());
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(`${file}.migrated`, 'utf8')).toBe(text);
    expect(log.join('\n')).toMatch(/copied 12 record\(s\)/);
    // Every field, as the file had it: the stored JSON is the line's.
    const db = openDatabase(dataDir);
    const stored = db.prepare('SELECT record FROM service_exchanges ORDER BY seq').all();
    db.close();
    expect(stored.map((r) => `${String(r.record)}\n`).join('')).toBe(text);

    // Appends go on after the migrated ones; a second instance copies nothing twice.
    await history.append(exchange(99));
    expect((await historyOf(dataDir).list(2)).map((e) => e.id)).toEqual(['x-99', 'x-11']);
    expect(rowCount()).toBe(13);
  });

  it('reports damaged lines by number, copies the rest, and keeps the old file', async () => {
    const legacy = new LegacyHistory(dataDir);
    await legacy.append(exchange(1));
    const file = path.join(dataDir, LEGACY_HISTORY_FILE);
    appendFileSync(file, 'garbage\n{"id":"no-fields"}\n');
    await legacy.append(exchange(2)); // the old code appended after damage too
    appendFileSync(file, '{"id":"torn", "at":');
    const text = readFileSync(file, 'utf8');

    const log: string[] = [];
    const history = historyOf(dataDir, 1000, (l) => log.push(l));
    expect((await history.list()).map((e) => e.id)).toEqual(['x-2', 'x-1']);
    const report = log.join('\n');
    expect(report).toContain('3 line(s)');
    expect(report).toContain('line 2: not JSON');
    expect(report).toMatch(/line 3: not an exchange \(at: /);
    expect(report).toContain('line 5: cut short');
    expect(report).toContain(`${file}.migrated`);
    expect(readFileSync(`${file}.migrated`, 'utf8')).toBe(text);
  });
});
