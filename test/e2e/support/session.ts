import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { collectPageProblems, launchChromium } from './browser';
import { callApi, startServe, type ServeProcess } from './serve';

/** One test file's serve, browser page (a fresh profile) and page problems. */
export interface E2eSession {
  serve: ServeProcess;
  page: Page;
  problems: string[];
  /** A ConsoleApi call the way the page makes it. */
  api(method: string, input?: unknown): Promise<unknown>;
}

/**
 * Registers beforeAll/afterAll for `dets-console serve` on a fresh data directory and a headless
 * Chromium page at 1440×900 (downloads accepted); afterAll stops serve by its PID (exit 0
 * asserted) and closes the browser. Read the session inside tests, once beforeAll has run.
 */
export function useServeAndBrowser(): () => E2eSession {
  let serve: ServeProcess | undefined;
  let browser: Browser | undefined;
  let session: E2eSession | undefined;
  beforeAll(async () => {
    serve = await startServe();
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    const problems: string[] = [];
    collectPageProblems(page, problems);
    const s = serve;
    session = { serve: s, page, problems, api: (method, input) => callApi(s, method, input) };
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    const code = await serve?.stop();
    if (serve) expect(code, `serve exit code; stderr:\n${serve.stderr()}`).toBe(0);
  }, 30_000);
  return () => {
    if (!session) throw new Error('the e2e session is not started (read it inside a test)');
    return session;
  };
}
