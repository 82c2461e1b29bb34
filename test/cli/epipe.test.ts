/**
 * A reader that goes away ends the output quietly (issue 24 item 10): `dets-console events |
 * head -1` printed an EPIPE stack trace. Here the built CLI's stdout is a real pipe whose reader
 * (this test) closes it after the first line, on a profile of 6,000 events (about 1.8 MB of
 * JSON, far past a pipe's 64 KiB buffer, so the pipe really closes while the CLI still writes);
 * and, for the short outputs, before the CLI writes anything (`… | true`). Nothing may reach
 * stderr, and the exit status is the command's own: 0 for a listing (the reader chose to stop),
 * `jwt inspect`'s verdict for an inspection (output.ts says why not 141, as a SIGPIPE death).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../electron/core/event-hub';
import { blankEvent, openEventStore, type NewEvent } from '../../electron/core/store';
import { CLI, ROOT } from './helpers';

const EVENTS = 6000;
let dataDir: string;
const running = new Set<ReturnType<typeof spawn>>();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'dets-cli-epipe-'));
  const store = await openEventStore({ dataDir, events: new EventHub() });
  const t0 = Date.parse('2026-03-01T08:00:00.000Z');
  const appends: Array<Promise<unknown>> = [];
  for (let i = 0; i < EVENTS; i++) {
    const event: NewEvent = {
      ...blankEvent('callback', new Date(t0 + i * 1000).toISOString()),
      path: '/user_auth',
      method: 'GET',
      status: 401,
      failed_check: 'kid',
      obj: `DE8937040044053201${String(i).padStart(4, '0')}`,
      sub: 'ops@bank.example',
      duration_ms: 1.5,
    };
    appends.push(store.append(event));
  }
  await Promise.all(appends);
  await store.close();
}, 120_000);

afterEach(() => {
  for (const child of running)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  running.clear();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 }));

interface Closed {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** What the reader got before it closed the pipe. */
  read: string;
  stderr: string;
}

/**
 * Runs the built CLI with stdout into a pipe this test reads and then closes: after `lines`
 * lines, or at once when `lines` is 0.
 */
function runClosingReader(args: string[], lines: number): Promise<Closed> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, DETS_DATA_DIR: dataDir, NO_COLOR: '1' };
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let read = '';
    let stderr = '';
    const out = child.stdout;
    if (lines === 0) out.destroy();
    else
      out.setEncoding('utf8').on('data', (d: string) => {
        read += d;
        if (read.split('\n').length > lines) out.destroy();
      });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, read, stderr }));
  });
}

/** What a crash on EPIPE printed: "Error: write EPIPE", "at afterWriteDispatched (…)". */
const CRASH = /Error|EPIPE|\bat .+:\d+:\d+|Unhandled/;

describe('a closed stdout ends the output quietly', () => {
  it.each([
    [['events'], 'the table'],
    [['events', '--json'], 'JSON lines'],
    [['events', '--json', '--search', 'user_auth'], 'a search'],
  ])('%j (%s) | head -1: no message, exit 0', async (args) => {
    const r = await runClosingReader(args, 1);
    expect(r.stderr).not.toMatch(CRASH);
    expect(r.stderr).toBe('');
    expect(r).toMatchObject({ code: 0, signal: null });
    // The reader really stopped early: it got a line, far from the whole listing.
    expect(r.read.length).toBeGreaterThan(0);
    expect(r.read.length).toBeLessThan(EVENTS * 100);
  });

  it('events --follow stops following once its reader has gone, exit 0 without a signal', async () => {
    const r = await runClosingReader(['events', '--json', '--follow'], 1);
    expect(r.stderr).toBe('');
    expect(r).toMatchObject({ code: 0, signal: null });
  });

  it.each([
    [['keys', 'list'], 0],
    [['keys', 'list', '--json'], 0],
    [['jwt', 'inspect', 'a.b.c'], 1],
    [['jwt', 'inspect', 'a.b.c', '--json'], 1],
    [['events', '--limit', '3'], 0],
    [['--help'], 0],
  ])('%j | true: no message, the command’s own exit status (%i)', async (args, code) => {
    const r = await runClosingReader(args as string[], 0);
    expect(r.stderr).not.toMatch(CRASH);
    expect(r.stderr).toBe('');
    expect(r).toMatchObject({ code, signal: null });
  });
});
