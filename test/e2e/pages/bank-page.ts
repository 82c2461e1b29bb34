import { readFile } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { ConsolePageModel } from './console-page';

/**
 * The Bank page as a test sees it: the listener's URL and the URLs to give the service (from
 * the core's bank.status), and the behaviours form. Applying waits for the core's answer.
 */
export class BankPageModel extends ConsolePageModel {
  constructor(page: Page) {
    super(page);
  }

  get root(): Locator {
    return this.byTestId('bank-page');
  }

  async open(): Promise<void> {
    await this.goTo('bank', 'bank-page');
  }

  /** The listener's URL as the page shows it, or null when it says the listener is not running. */
  async listenerUrl(): Promise<string | null> {
    const url = this.byTestId('bank-url');
    return (await url.count()) > 0 ? await url.textContent() : null;
  }

  /** Whether the page says "The bank listener is not running". */
  async saysNotRunning(): Promise<boolean> {
    return (await this.byTestId('bank-url-none').count()) > 0;
  }

  /** The callback and notification URLs listed to give the service. */
  async endpointUrls(): Promise<string[]> {
    return this.page
      .locator('[data-testid^="bank-url-"]:not([data-testid$="-copy"]):not([data-testid="bank-url-none"])')
      .evaluateAll((items) => items.map((i) => i.textContent ?? ''));
  }

  /** Sets a route's delay in the behaviours form and applies it. */
  async applyDelay(route: string, ms: number): Promise<void> {
    await this.byTestId(`behaviour-${route}-delay`).fill(String(ms));
    const answered = this.page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/call/bank.setBehaviours',
    );
    await this.byTestId('behaviours-apply').click();
    await answered;
    await this.byTestId('behaviours-banner').waitFor();
  }

  /** Clears every behaviour. */
  async clearBehaviours(): Promise<void> {
    const answered = this.page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/call/bank.setBehaviours',
    );
    await this.byTestId('behaviours-clear').click();
    await answered;
  }

  /**
   * Exports the customers WITH their secret keys through the dialog (confirmation ticked) and
   * returns the file the browser saved: its name and text.
   */
  async exportWithKeys(): Promise<{ filename: string; text: string }> {
    await this.byTestId('customers-export').click();
    await this.byTestId('customers-export-confirm').check();
    const download = this.page.waitForEvent('download');
    await this.byTestId('customers-export-with-keys').click();
    const file = await download;
    return { filename: file.suggestedFilename(), text: await readFile(await file.path(), 'utf8') };
  }
}
