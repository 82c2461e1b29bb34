import { chromium, type Browser } from 'playwright-core';

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
