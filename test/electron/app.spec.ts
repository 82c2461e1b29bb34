/**
 * The real desktop app, driven through its main journeys (issue 15): Playwright's _electron on
 * the unpackaged app, a fresh profile folder, the OS keychain (gnome-keyring in a private
 * D-Bus session on Linux, via scripts/with-keyring.sh; the login keychain on macOS; the
 * Credential Manager on Windows). Runs only under `npm run test:electron`, where an Electron
 * binary exists; on a machine without one nothing here runs and nothing claims it passed.
 *
 * One app, one profile, in journey order: the window and its bridge, the vault, the walkthrough
 * against the built-in sandbox, a notification shown live, what the page may not do, a second
 * launch, and quitting.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_NAMES } from '../../electron/contract';
import { CONTENT_SECURITY_POLICY } from '../../electron/core/http/renderer-policy';
import { BankLivePages } from '../e2e/pages/bank-live-pages';
import { WalkthroughPageModel, type WalkthroughStepId } from '../e2e/pages/walkthrough-page';
import { CLI } from '../e2e/support/build';
import {
  freshProfile,
  launchApp,
  recorded,
  removeProfile,
  secondInstance,
  type LaunchedApp,
} from './support/app';

/**
 * The walkthrough page module, clicking through IPC: the browser-mode module waits for the
 * HTTP answer of walkthrough.run, which the desktop app does not make; here a step is complete
 * when the page shows it done (derived in the core from the event the click caused).
 */
class DesktopWalkthrough extends WalkthroughPageModel {
  async complete(id: WalkthroughStepId): Promise<void> {
    expect(await this.state(id), `${id} before its click`).not.toBe('done');
    await this.page.locator(`[data-testid="step-action-${id}"]:not([disabled])`).click();
    const done = this.page.locator(`[data-testid="step-${id}"][data-state="done"]`);
    const failed = this.page.locator(`[data-testid="step-${id}"][data-state="failed"]`);
    await done.or(failed).waitFor({ timeout: 60_000 });
    if ((await this.state(id)) === 'failed') throw new Error(`step ${id} failed: ${await this.reason(id)}`);
  }
}

type Api = Record<string, Record<string, (input?: unknown) => Promise<unknown>>>;

let profile: string;
let launched: LaunchedApp | undefined;
const pageProblems: string[] = [];
let notificationId: string;

/** A ConsoleApi call made by the page itself, through the preload's facade. */
function call<T>(method: string, input?: unknown): Promise<T> {
  return launched!.page.evaluate(
    async ([name, arg]) => {
      const [domain, action] = (name as string).split('.') as [string, string];
      const api = (window as unknown as { detsConsole: Api }).detsConsole;
      return api[domain]![action]!(arg);
    },
    [method, input] as const,
  ) as Promise<T>;
}

beforeAll(async () => {
  profile = await freshProfile();
  launched = await launchApp(profile);
  launched.page.on('pageerror', (err) => pageProblems.push(`pageerror: ${err.message}`));
  launched.page.on('console', (msg) => {
    if (msg.type() === 'error') pageProblems.push(`console: ${msg.text()}`);
  });
});

afterAll(async () => {
  if (launched) await launched.quit().catch(() => undefined);
  if (profile) await removeProfile(profile);
});

describe('the desktop app, started on a fresh profile', () => {
  it('loads the renderer from app://console in one window, with the profile it was given', async () => {
    const { app, page } = launched!;
    expect(page.url()).toBe('app://console/index.html');
    expect(app.windows()).toHaveLength(1);
    const info = await call<{ host: string; dataDir: string }>('app.info');
    expect(info).toMatchObject({ host: 'desktop', dataDir: profile });
  });

  it('serves the page with the strict Content-Security-Policy, and enforces it', async () => {
    const { page } = launched!;
    const csp = await page.evaluate(async () =>
      (await fetch('/index.html')).headers.get('content-security-policy'),
    );
    expect(csp).toBe(CONTENT_SECURITY_POLICY);
    const ran = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inlineRan = true';
      document.head.append(script);
      return (window as unknown as { __inlineRan?: boolean }).__inlineRan === true;
    });
    expect(ran, 'an injected inline script ran').toBe(false);
    // Chromium reports the refusal as a console error: proof of enforcement, not a page problem.
    await expect
      .poll(() => pageProblems.some((p) => /Content Security Policy/.test(p)), { timeout: 15_000 })
      .toBe(true);
    const others = pageProblems.filter((p) => !/Content Security Policy/.test(p));
    pageProblems.splice(0, pageProblems.length, ...others);
  });

  it('gives the page the preload facade and nothing else: no require, process or ipcRenderer', async () => {
    const seen = await launched!.page.evaluate(() => {
      const w = window as unknown as Record<string, unknown>;
      const api = w.detsConsole as Record<string, unknown>;
      const members: string[] = [];
      for (const [domain, fns] of Object.entries(api)) {
        if (typeof fns === 'function') members.push(domain);
        else for (const action of Object.keys(fns as object)) members.push(`${domain}.${action}`);
      }
      return {
        require: typeof w.require,
        process: typeof w.process,
        ipcRenderer: typeof w.ipcRenderer,
        electron: typeof w.electron,
        module: typeof w.module,
        members: members.sort(),
      };
    });
    expect(seen).toMatchObject({
      require: 'undefined',
      process: 'undefined',
      ipcRenderer: 'undefined',
      electron: 'undefined',
      module: 'undefined',
    });
    expect(seen.members).toEqual([...METHOD_NAMES, 'on'].sort());
  });
});

describe('the vault and the walkthrough', () => {
  it('opens the vault in the OS keychain with the first key', async () => {
    const walkthrough = new DesktopWalkthrough(launched!.page);
    await launched!.page.locator('[data-testid="walkthrough-page"][data-state="ready"]').waitFor();
    await walkthrough.complete('key');
    expect(await call('vault.status')).toMatchObject({ state: 'unlocked', kind: 'keychain' });
    expect(await walkthrough.vaultBanner.count()).toBe(0);
  });

  it('completes the walkthrough against the built-in sandbox by clicking, with no typing', async () => {
    const walkthrough = new DesktopWalkthrough(launched!.page);
    expect(await walkthrough.activeEnvironment()).toEqual({ id: 'sandbox', kind: 'sandbox' });
    for (const id of [
      'register',
      'compose',
      'authenticate',
      'callbacks',
      'sign-in',
      'notifications',
      'rotate',
    ] as const) {
      await walkthrough.complete(id);
    }
    expect(Object.values(await walkthrough.states())).toEqual(Array(8).fill('done'));
    await walkthrough.byTestId('walkthrough-complete').waitFor();
  });
});

describe('live events', () => {
  it('shows a notification posted to the bank endpoints on the Notifications page, without a reload', async () => {
    const { page } = launched!;
    const ui = new BankLivePages(page);
    await ui.openNotifications();
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));

    const info = await call<{ listeners: { sandbox?: string; bank?: string } }>('app.info');
    const envs = await call<{ environments: Array<{ kind: string; counterparty_guid: string | null }> }>(
      'env.list',
    );
    const guid = envs.environments.find((e) => e.kind === 'sandbox')?.counterparty_guid;
    expect(guid, 'the walkthrough onboarded the bank to the sandbox').toBeTruthy();
    // The sandbox plays the service: it signs a pay-in and POSTs it to the bank endpoints.
    const res = await fetch(`${info.listeners.sandbox}/sandbox/v1/counterparties/${guid}/notify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ event: 'pay-in' }),
    });
    const sent = (await res.json()) as { status: number; url: string; transaction_id: string };
    expect(res.status, JSON.stringify(sent)).toBe(200);
    expect(sent.status).toBe(200);
    expect(sent.url.startsWith(String(info.listeners.bank).replace(/\/+$/, ''))).toBe(true);
    notificationId = sent.transaction_id;

    const row = ui.notificationRow(notificationId);
    await row.waitFor();
    expect(await row.getAttribute('data-outcome')).toBe('accepted');
    expect(loads).toEqual([]);
  });
});

describe('what the page may not do', () => {
  it('cannot navigate the window away', async () => {
    const { page } = launched!;
    await page.evaluate(() => {
      window.location.href = 'https://example.invalid/phish';
    });
    // A round trip through the main process: any navigation would have been decided by now.
    await call('app.info');
    expect(page.url()).toBe('app://console/index.html');
  });

  it('cannot open windows: http(s) goes to the browser after the engineer confirms, the rest nowhere', async () => {
    const { app, page } = launched!;
    const opened = await page.evaluate(() => [
      window.open('https://example.invalid/elsewhere') === null,
      window.open('file:///etc/passwd') === null,
      window.open('javascript:alert(1)') === null,
    ]);
    expect(opened).toEqual([true, true, true]);
    await expect
      .poll(async () => (await recorded(app)).asked, { timeout: 15_000 })
      .toEqual(['Open example.invalid in your browser?']);
    expect((await recorded(app)).opened).toEqual([]); // the stand-in dialog answered Cancel
    expect(app.windows()).toHaveLength(1);
  });

  it('raised no page errors', () => {
    expect(pageProblems).toEqual([]);
  });
});

describe('one instance per profile, and quitting', () => {
  it('focuses the first window when the app is launched again on the same profile', async () => {
    const { app } = launched!;
    await app.evaluate(({ BrowserWindow }) => {
      const win = BrowserWindow.getAllWindows()[0]!;
      const g = globalThis as unknown as { focused: number };
      g.focused = 0;
      const focus = win.focus.bind(win);
      win.focus = () => {
        g.focused++;
        focus();
      };
    });
    expect(await secondInstance(profile)).toBe(0);
    await expect
      .poll(() => app.evaluate(() => (globalThis as unknown as { focused: number }).focused), {
        timeout: 15_000,
      })
      .toBeGreaterThan(0);
    expect(app.windows()).toHaveLength(1);
  });

  it('quits cleanly, and the store keeps what the app received', async () => {
    const code = await launched!.quit();
    launched = undefined;
    expect(code).toBe(0);
    const wal = join(profile, 'console.db-wal');
    // SQLite checkpoints and removes the WAL when the last connection closes cleanly.
    expect(!existsSync(wal) || statSync(wal).size === 0, 'console.db-wal left behind').toBe(true);
    const events = spawnSync(
      process.execPath,
      [CLI, 'events', '--data-dir', profile, '--kind', 'notification', '--json'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(events.status, events.stderr).toBe(0);
    const ids = events.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { transaction_id?: string }).transaction_id);
    expect(ids).toContain(notificationId);
  });
});
