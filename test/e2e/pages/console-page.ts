import type { Locator, Page } from 'playwright-core';

/**
 * What every page module shares: reads and actions by data-testid (never raw CSS), opening the
 * console at the URL serve printed, switching pages from the nav, and screenshots of the page
 * area from its top.
 */
export class ConsolePageModel {
  constructor(readonly page: Page) {
    page.setDefaultTimeout(15_000);
  }

  byTestId(id: string, within: Locator | Page = this.page): Locator {
    return within.locator(`[data-testid="${id}"]`);
  }

  /** Opens the console and waits for the live event stream. */
  async openConsole(url: string): Promise<void> {
    await this.page.goto(url);
    await this.page.locator('[data-testid="connection-status"][data-status="connected"]').waitFor();
  }

  /** Clicks a nav entry and waits for the page's ready state. */
  async goTo(pageId: string, rootTestId: string): Promise<void> {
    await this.byTestId(`nav-${pageId}`).click();
    await this.page.locator(`[data-testid="${rootTestId}"][data-state="ready"]`).waitFor();
  }

  get vaultBanner(): Locator {
    return this.byTestId('vault-banner');
  }

  /** The active environment in the header: its id and kind. */
  async activeEnvironment(): Promise<{ id: string | null; kind: string | null }> {
    const env = this.byTestId('environment');
    await env.locator('[data-testid="env-select"]').waitFor();
    return { id: await env.getAttribute('data-env-id'), kind: await env.getAttribute('data-kind') };
  }

  async screenshot(path: string): Promise<void> {
    await this.page.locator('#main').evaluate((main) => main.scrollTo(0, 0));
    await this.page.screenshot({ path, fullPage: false });
  }
}
