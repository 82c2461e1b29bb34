import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../scripts/audit-electron.mjs', import.meta.url));

function audit(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'dets-audit-test-'));
  await mkdir(join(base, 'insecure'));
  await writeFile(
    join(base, 'insecure', 'main.ts'),
    [
      "import { app, BrowserWindow } from 'electron';",
      'app.whenReady().then(() => {',
      '  const win = new BrowserWindow({ webPreferences: { nodeIntegration: true, contextIsolation: false } });',
      "  void win.loadURL('http://example.com/');",
      '});',
    ].join('\n'),
  );
  await mkdir(join(base, 'broken'));
  await writeFile(join(base, 'broken', 'main.ts'), 'const x = {{{ ;\n');
  await mkdir(join(base, 'empty'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true, maxRetries: 5 });
});

// Each run takes a few seconds (the tool tries to download translations), so they run together.
describe.concurrent('scripts/audit-electron.mjs', () => {
  it('passes the app’s own main and preload, with no HIGH finding', async () => {
    const { code, stdout } = await audit();
    expect(stdout).toMatch(/electron\/main, electron\/preload: 0 HIGH/);
    expect(code).toBe(0);
  });

  it('fails a deliberately insecure window, and writes the CSV it was asked for', async () => {
    const csv = join(base, 'insecure.csv');
    const { code, stdout, stderr } = await audit('--input', join(base, 'insecure'), '--csv', csv);
    expect(code).toBe(1);
    expect(stdout).toMatch(/HIGH\s+CONTEXT_ISOLATION_JS_CHECK\s+insecure\/main\.ts:3/);
    expect(stderr).toMatch(/FAILED: \d+ HIGH finding/);
    const rows = (await readFile(csv, 'utf8')).trim().split('\n');
    expect(rows[0]).toBe('issue, severity, confidence, filename, location, sample, description, url');
    expect(rows.some((r) => r.startsWith('CONTEXT_ISOLATION_JS_CHECK,"HIGH"'))).toBe(true);
  });

  it('fails when a file cannot be parsed, since it would go unaudited', async () => {
    const { code, stderr } = await audit('--input', join(base, 'broken'));
    expect(code).toBe(1);
    expect(stderr).toMatch(/could not be parsed/);
  });

  it('fails when there is nothing to scan', async () => {
    const { code, stderr } = await audit('--input', join(base, 'empty'));
    expect(code).toBe(1);
    expect(stderr).toMatch(/nothing to scan/);
  });
});
