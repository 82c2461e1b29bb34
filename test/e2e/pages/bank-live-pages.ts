import type { Locator, Page } from 'playwright-core';
import { ConsolePageModel } from './console-page';

/**
 * The Notifications and Callbacks pages as the bank-live test sees them (the UI's own page
 * modules may differ): rows and the detail panel by data-testid and data attributes, never raw
 * CSS; reads wait for what a live event makes appear, so nothing is reloaded.
 */
export class BankLivePages extends ConsolePageModel {
  constructor(page: Page) {
    super(page);
  }

  async openNotifications(): Promise<void> {
    await this.goTo('notifications', 'notifications-page');
  }

  async openCallbacks(): Promise<void> {
    await this.goTo('callbacks', 'callbacks-page');
  }

  /** The feed row of a notification, by its transaction_id. */
  notificationRow(transactionId: string): Locator {
    return this.page.locator(`[data-testid="notifications-row"][data-transaction-id="${transactionId}"]`);
  }

  callbackRows(): Locator {
    return this.byTestId('callback-row');
  }

  /** Every callback row's event id, newest first as listed. */
  async callbackIds(): Promise<string[]> {
    return this.callbackRows().evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event-id')!));
  }

  /** Waits until a callback row not in `known` is listed; returns it (the newest new one). */
  async waitForNewCallback(known: string[]): Promise<{ id: string; row: Locator }> {
    const handle = await this.page.waitForFunction((seen: string[]) => {
      for (const row of document.querySelectorAll('[data-testid="callback-row"][data-event-id]')) {
        const id = row.getAttribute('data-event-id');
        if (id && !seen.includes(id)) return id;
      }
      return null;
    }, known);
    const id = (await handle.jsonValue()) as string;
    return { id, row: this.page.locator(`[data-testid="callback-row"][data-event-id="${id}"]`) };
  }

  /** Opens a callback's detail panel and waits for it. */
  async openCallback(id: string): Promise<Locator> {
    await this.page.locator(`[data-testid="callback-row"][data-event-id="${id}"]`).click();
    const detail = this.page.locator(`[data-testid="callback-detail"][data-event-id="${id}"]`);
    await detail.waitFor();
    return detail;
  }

  /** The detail panel's checks as `[id, status]`, in order. */
  async detailChecks(detail: Locator): Promise<Array<[string, string]>> {
    await this.byTestId('checks', detail).first().waitFor();
    return this.byTestId('checks', detail)
      .first()
      .locator('[data-testid^="check-"][data-status]')
      .evaluateAll((items) =>
        items.map((i) => [
          i.getAttribute('data-testid')!.slice('check-'.length),
          i.getAttribute('data-status')!,
        ]),
      );
  }

  /** A screenshot with `target` scrolled into the middle of the view (e.g. one check's row). */
  async screenshotOf(target: Locator, path: string): Promise<void> {
    await target.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await this.page.screenshot({ path, fullPage: false });
  }
}
