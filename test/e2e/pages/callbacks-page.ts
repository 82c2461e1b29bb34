import type { Locator, Page } from 'playwright-core';
import { ConsolePageModel } from './console-page';

/**
 * The Callbacks page as a test sees it: rows (`callback-row` with `data-event-id` and
 * `data-failed-check`), filters, the detail panel and its actions, by data-testid only. Reads
 * wait for what a live event makes appear.
 */
export class CallbacksPageModel extends ConsolePageModel {
  constructor(page: Page) {
    super(page);
  }

  get root(): Locator {
    return this.byTestId('callbacks-page');
  }
  get rows(): Locator {
    return this.byTestId('callback-row');
  }
  get list(): Locator {
    return this.byTestId('callbacks-list');
  }
  get detail(): Locator {
    return this.byTestId('callback-detail');
  }
  get histogram(): Locator {
    return this.byTestId('callbacks-histogram');
  }

  async open(): Promise<void> {
    await this.goTo('callbacks', 'callbacks-page');
  }

  row(id: string): Locator {
    return this.page.locator(`[data-testid="callback-row"][data-event-id="${id}"]`);
  }

  /** Every listed callback's event id, newest first. */
  async ids(): Promise<string[]> {
    return this.rows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event-id')!));
  }

  /** Every listed callback's failed check ('' when it passed), in screen order. */
  async failedChecks(): Promise<string[]> {
    return this.rows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-failed-check') ?? ''));
  }

  /** Waits until a callback row whose id is not in `known` appears; resolves to its id. */
  async waitForNew(known: string[]): Promise<string> {
    const handle = await this.page.waitForFunction((seen: string[]) => {
      for (const row of document.querySelectorAll('[data-testid="callback-row"][data-event-id]')) {
        const id = row.getAttribute('data-event-id');
        if (id && !seen.includes(id)) return id;
      }
      return null;
    }, known);
    return (await handle.jsonValue()) as string;
  }

  async setFailedOnly(on: boolean): Promise<void> {
    await this.byTestId('callbacks-failed-only').setChecked(on);
  }

  /** Turns on "group by failed check" and returns `[check id, count]` per group. */
  async groups(): Promise<Array<[string, number]>> {
    await this.byTestId('callbacks-group-by-check').setChecked(true);
    await this.byTestId('callbacks-groups').waitFor();
    return this.page
      .locator('[data-testid^="callbacks-group-"][data-count]')
      .evaluateAll((items) =>
        items.map((i) => [
          i.getAttribute('data-testid')!.slice('callbacks-group-'.length),
          Number(i.getAttribute('data-count')),
        ]),
      );
  }

  /** Filters by one failed check (through its group button). */
  async filterByCheck(check: string): Promise<void> {
    await this.byTestId('callbacks-group-by-check').setChecked(true);
    await this.byTestId(`callbacks-group-${check}`).click();
  }

  /** Opens a callback's detail panel (click) and waits for its checks. */
  async openDetail(id: string): Promise<Locator> {
    await this.row(id).click();
    const detail = this.page.locator(`[data-testid="callback-detail"][data-event-id="${id}"]`);
    await detail.waitFor();
    return detail;
  }

  /** The detail panel's X-Session-ID checks as `[id, status]`, in order. */
  async detailChecks(): Promise<Array<[string, string]>> {
    const checks = this.byTestId('checks', this.detail).first();
    await checks.waitFor();
    return checks
      .locator('[data-testid^="check-"][data-status]')
      .evaluateAll((items) =>
        items.map((i) => [
          i.getAttribute('data-testid')!.slice('check-'.length),
          i.getAttribute('data-status')!,
        ]),
      );
  }

  async recheck(): Promise<void> {
    await this.byTestId('callback-recheck', this.detail).click();
    await this.page.locator('[data-testid="callback-recheck"]:not([disabled])').waitFor();
  }

  /** Re-checks the open callback; resolves to the verdicts shown side by side ('passed' or the check). */
  async recheckVerdicts(): Promise<{ then: string; now: string }> {
    await this.recheck();
    const result = this.byTestId('callback-recheck-result', this.detail);
    await result.waitFor();
    return {
      then: (await this.byTestId('recheck-then', result).getAttribute('data-verdict')) ?? '',
      now: (await this.byTestId('recheck-now', result).getAttribute('data-verdict')) ?? '',
    };
  }

  /** Replays with a fresh token; resolves to the replay's event id. */
  async replay(): Promise<string> {
    await this.byTestId('callback-replay', this.detail).click();
    const result = this.byTestId('callback-replay-result');
    await result.waitFor();
    return (await result.getAttribute('data-event-id'))!;
  }

  async closeDetail(): Promise<void> {
    await this.byTestId('event-detail-close', this.detail).click();
  }

  /** Clicks "Copy as curl" in the open detail and returns what reached the clipboard. */
  async copyAsCurl(): Promise<string> {
    await this.byTestId('event-copy-curl', this.detail).click();
    await this.byTestId('event-copy-curl', this.detail).filter({ hasText: 'Copied' }).waitFor();
    return this.page.evaluate(() => navigator.clipboard.readText());
  }

  /** The listed callbacks to `route` (e.g. `/user_auth`), newest first. */
  async idsOfRoute(route: string): Promise<string[]> {
    return this.rows.evaluateAll(
      (rows, r) =>
        rows
          .filter((row) => row.querySelector('code')?.textContent === r)
          .map((row) => row.getAttribute('data-event-id')!),
      route,
    );
  }

  /** Ticks the rows `ids` (issue 28 item 2): the first from the keyboard (focus, Space), the others by click. */
  async select(ids: readonly string[]): Promise<void> {
    for (const [i, id] of ids.entries()) {
      const box = this.row(id).getByTestId('row-select');
      if (i === 0) {
        await box.focus();
        await this.page.keyboard.press('Space');
      } else {
        await box.click();
      }
    }
  }

  /** "N of M selected": the number of ticked rows listed now. */
  async selectedCount(): Promise<number> {
    return Number(await this.byTestId('callbacks-selected-count').getAttribute('data-count'));
  }

  /**
   * "Save as scenario": the ticked callbacks (all listed when none is) into `folder` as NAME.json;
   * answers the saved path's text.
   */
  async saveAsScenario(folder: string, name: string): Promise<string> {
    await this.byTestId('callbacks-save-scenario').click();
    const dialog = this.byTestId('save-scenario-dialog');
    await dialog.locator('#save-scenario-folder').fill(folder);
    await dialog.locator('#save-scenario-name').fill(name);
    await this.byTestId('save-scenario-confirm').click();
    const done = this.byTestId('save-scenario-done');
    await done.waitFor();
    const text = await done.innerText();
    await this.byTestId('save-scenario-close').click();
    return text;
  }
}
