import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium; Playwright's own browser downloads are not used (toolchain notes, 2). */
export const CHROMIUM_PATH = process.env.DETS_E2E_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless Chromium; each `browser.newContext()` is a fresh profile (no shared storage). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

/**
 * Collects what makes a page wrong even when it looks fine: an uncaught error, a console error
 * (a CSP violation, a failed request). Tests assert the list stays empty.
 */
export function collectPageProblems(page: Page, problems: string[]): void {
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
}

/**
 * A headless Chromium and one page in a fresh profile at the console's usual size, its problems
 * collected into `problems`.
 *
 * @example
 * ({ browser, page } = await launchPage(problems)); … await browser.close();
 */
export async function launchPage(problems: string[]): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  collectPageProblems(page, problems);
  return { browser, page };
}
