import type { Locator, Page } from 'playwright-core';
import { ConsolePageModel } from './console-page';

/**
 * The Notifications page as a test sees it. The feed is virtualized: only the rows in view are
 * in the DOM (`notifications-row` with `data-event-id`, `data-transaction-id`, `data-outcome`,
 * `data-count`), inside `notifications-scroller`; `notifications-count` carries the totals.
 */
export class NotificationsPageModel extends ConsolePageModel {
  constructor(page: Page) {
    super(page);
  }

  get root(): Locator {
    return this.byTestId('notifications-page');
  }
  get rows(): Locator {
    return this.byTestId('notifications-row');
  }
  get scroller(): Locator {
    return this.byTestId('notifications-scroller');
  }
  get rate(): Locator {
    return this.byTestId('notifications-rate');
  }

  async open(): Promise<void> {
    await this.goTo('notifications', 'notifications-page');
  }

  /** A row by transaction_id (it must be in view: scroll or filter first). */
  row(transactionId: string): Locator {
    return this.page.locator(`[data-testid="notifications-row"][data-transaction-id="${transactionId}"]`);
  }

  /**
   * Opens the group of `transactionId` (grouping must be on) and resolves to its notifications,
   * oldest first, as [outcome, HTTP status] (issue 27 item 3).
   */
  async groupMembers(transactionId: string): Promise<Array<[string, string]>> {
    const toggle = this.row(transactionId).locator('[data-testid="notifications-group-toggle"]');
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    const members = this.page.locator(
      `[data-testid="notifications-member"][data-transaction-id="${transactionId}"]`,
    );
    await members.first().waitFor();
    return members.evaluateAll((rows) =>
      rows.map((r) => [r.getAttribute('data-outcome')!, r.getAttribute('data-status')!]),
    );
  }

  /** Rows matching the filters, and summaries loaded in memory. */
  async counts(): Promise<{ rows: number; loaded: number }> {
    const el = this.byTestId('notifications-count');
    return {
      rows: Number(await el.getAttribute('data-rows')),
      loaded: Number(await el.getAttribute('data-loaded')),
    };
  }

  /** Waits until the store counts at least `n` notifications (the page loads them as the reader scrolls). */
  async waitForTotal(n: number): Promise<void> {
    await this.page.waitForFunction(
      (min) =>
        Number(document.querySelector('[data-testid="notifications-count"]')?.getAttribute('data-total')) >=
        min,
      n,
    );
  }

  /** Scrolls to the end until `n` notifications are loaded (pages of the store's answer), at most 40 pages. */
  async scrollUntilLoaded(n: number): Promise<void> {
    for (let i = 0; i < 40 && (await this.counts()).loaded < n; i++) {
      const before = (await this.counts()).loaded;
      await this.page.evaluate(() => {
        const el = document.querySelector('[data-testid="notifications-scroller"]')!;
        el.scrollTop = el.scrollHeight;
      });
      await this.page.waitForFunction(
        (b) =>
          Number(document.querySelector('[data-testid="notifications-count"]')?.getAttribute('data-loaded')) >
          b,
        before,
      );
    }
  }

  /** Waits until at least `n` notifications are loaded. */
  async waitForLoaded(n: number): Promise<void> {
    await this.page.waitForFunction(
      (min) =>
        Number(document.querySelector('[data-testid="notifications-count"]')?.getAttribute('data-loaded')) >=
        min,
      n,
    );
  }

  /** Event ids of the rows now in the DOM, top to bottom. */
  async visibleIds(): Promise<string[]> {
    return this.rows.evaluateAll((rows) =>
      rows
        .map((r) => ({
          id: r.getAttribute('data-event-id')!,
          index: Number(r.getAttribute('aria-rowindex')),
        }))
        .sort((a, b) => a.index - b.index)
        .map((r) => r.id),
    );
  }

  async scrollTo(top: number): Promise<void> {
    await this.scroller.evaluate((el, y) => {
      el.scrollTop = y;
      el.dispatchEvent(new Event('scroll'));
    }, top);
  }

  async scrollTop(): Promise<number> {
    return this.scroller.evaluate((el) => el.scrollTop);
  }

  async filterRoute(route: 'pay-in' | 'pay-out' | 'transfer' | null): Promise<void> {
    await this.byTestId('notifications-route').selectOption(route ?? '');
  }

  async filterOutcome(outcome: 'accepted' | 'repeat' | 'rejected' | null): Promise<void> {
    await this.byTestId('notifications-outcome').selectOption(outcome ?? '');
  }

  async search(text: string): Promise<void> {
    await this.byTestId('notifications-search').fill(text);
  }

  async setGrouped(on: boolean): Promise<void> {
    await this.byTestId('notifications-group-repeats').setChecked(on);
  }

  /** Exports and resolves to the file the browser saved (name and text). */
  async export(format: 'json' | 'csv'): Promise<{ filename: string; text: string }> {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.byTestId(`notifications-export-${format}`).click(),
    ]);
    const stream = await download.createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return { filename: download.suggestedFilename(), text: Buffer.concat(chunks).toString('utf8') };
  }

  /** The one event detail view, when a notification is open. */
  get detail(): Locator {
    return this.byTestId('event-detail');
  }

  /** Opens the notification under the keyboard cursor after `moves` presses of j, then Enter. */
  async openWithKeys(moves: number): Promise<Locator> {
    for (let i = 0; i < moves; i++) await this.page.keyboard.press('j');
    await this.page.keyboard.press('Enter');
    await this.detail.waitFor();
    return this.detail;
  }
}
