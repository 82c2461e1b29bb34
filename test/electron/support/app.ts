/**
 * Launching the real desktop app for test/electron: Playwright's `_electron` on the Electron
 * binary scripts/test-electron.mjs found (DETS_ELECTRON_BINARY), the unpackaged app at the
 * repository root (package.json `main` → dist/main/main.js), a fresh profile folder per launch
 * (DETS_DATA_DIR, which main.ts honours as its userData). Not the packaged app: its fuses turn
 * off the --inspect flag Playwright drives the main process with.
 *
 * Main-process stand-ins for what would leave the machine or block on a person: the browser
 * (shell.openExternal) and native dialogs (dialog.showMessageBox) are recorded and answered.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { ROOT } from '../../e2e/support/build';

export { ROOT };

export function electronBinary(): string {
  const binary = process.env.DETS_ELECTRON_BINARY;
  if (!binary)
    throw new Error('DETS_ELECTRON_BINARY is not set: run these tests with `npm run test:electron`');
  return binary;
}

/** The environment a launch gets: the profile, no dev server (the app:// renderer). */
export function appEnv(dataDir: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  delete env.VITE_DEV_SERVER_URL;
  delete env.ELECTRON_RUN_AS_NODE;
  return { ...env, DETS_DATA_DIR: dataDir, CI: '1' };
}

export interface LaunchedApp {
  app: ElectronApplication;
  page: Page;
  dataDir: string;
  /** Quits the app (its will-quit closes listeners and the store) and removes nothing. */
  quit(): Promise<number | null>;
}

export async function freshProfile(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'dets-electron-'));
}

export async function removeProfile(dataDir: string): Promise<void> {
  await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
}

/** Starts the app on `dataDir` and waits for its window and the live event stream. */
export async function launchApp(dataDir: string): Promise<LaunchedApp> {
  const app = await _electron.launch({
    executablePath: electronBinary(),
    args: [ROOT],
    cwd: ROOT,
    env: appEnv(dataDir),
    timeout: 60_000,
  });
  await app.evaluate(({ shell, dialog }) => {
    const g = globalThis as unknown as { opened: string[]; asked: string[]; answer: number };
    g.opened = [];
    g.asked = [];
    g.answer = 1; // Cancel, unless a test says otherwise
    shell.openExternal = async (url: string) => {
      g.opened.push(url);
    };
    dialog.showMessageBox = (async (...args: unknown[]) => {
      const options = args.at(-1) as { message: string };
      g.asked.push(options.message);
      return { response: g.answer, checkboxChecked: false };
    }) as typeof dialog.showMessageBox;
  });
  const page = await app.firstWindow();
  page.setDefaultTimeout(30_000);
  await page
    .locator('[data-testid="connection-status"][data-mode="desktop"][data-status="connected"]')
    .waitFor();
  const child = app.process();
  return {
    app,
    page,
    dataDir,
    async quit() {
      const exited = new Promise<number | null>((resolve) => {
        if (child.exitCode !== null) resolve(child.exitCode);
        else child.once('exit', (code) => resolve(code));
      });
      await app.close();
      return exited;
    },
  };
}

/** What the main-process stand-ins recorded: URLs handed to the browser, dialogs shown. */
export async function recorded(app: ElectronApplication): Promise<{ opened: string[]; asked: string[] }> {
  return app.evaluate(() => {
    const g = globalThis as unknown as { opened: string[]; asked: string[] };
    return { opened: [...g.opened], asked: [...g.asked] };
  });
}

/**
 * Starts a second instance on the same profile, as a user double-clicking the icon again, and
 * resolves its exit code. It must quit on its own (single-instance lock); it is killed by its
 * PID if it has not within `timeoutMs`.
 */
export function secondInstance(dataDir: string, timeoutMs = 30_000): Promise<number | null> {
  const child = spawn(electronBinary(), [ROOT], { cwd: ROOT, env: appEnv(dataDir), stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid) process.kill(child.pid, 'SIGKILL');
      reject(new Error(`the second instance did not quit within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
