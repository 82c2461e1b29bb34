import type { Download, Locator, Page } from 'playwright-core';
import { ConsolePageModel } from './console-page';

/**
 * The Conformance page as a test sees it: the form, Run and Self-check, the progress bar
 * (`data-done`/`data-total`), the summary (`data-state`, counts) and the case rows
 * (`conformance-case` with `data-case-id` and `data-status`), by data-testid only.
 */
export class ConformancePageModel extends ConsolePageModel {
  constructor(page: Page) {
    super(page);
  }

  get root(): Locator {
    return this.byTestId('conformance-page');
  }
  get cases(): Locator {
    return this.byTestId('conformance-case');
  }
  get progress(): Locator {
    return this.byTestId('conformance-progress');
  }
  get summary(): Locator {
    return this.byTestId('conformance-summary');
  }

  async open(): Promise<void> {
    await this.goTo('conformance', 'conformance-page');
  }

  case(id: string): Locator {
    return this.page.locator(`[data-testid="conformance-case"][data-case-id="${id}"]`);
  }

  async fill(values: { url?: string; obj?: string; sub?: string; port?: string }): Promise<void> {
    if (values.url !== undefined) await this.byTestId('conformance-bank-url').fill(values.url);
    if (values.obj !== undefined) await this.byTestId('conformance-obj').fill(values.obj);
    if (values.sub !== undefined) await this.byTestId('conformance-sub').fill(values.sub);
    if (values.port !== undefined) await this.byTestId('conformance-jwks-port').fill(values.port);
  }

  /** The Notifications section's fields (issue 27 item 4). */
  async fillNotify(values: { url?: string; prefix?: string; probe?: string }): Promise<void> {
    if (values.url !== undefined) await this.byTestId('conformance-notify-url').fill(values.url);
    if (values.prefix !== undefined) await this.byTestId('conformance-notify-prefix').fill(values.prefix);
    if (values.probe !== undefined) await this.byTestId('conformance-probe-url').fill(values.probe);
  }

  async runNotify(): Promise<void> {
    await this.byTestId('conformance-notify-run').click();
  }

  /**
   * The form inputs whose value is cut at the current viewport (issue 26 item 6) and that do not
   * carry the whole value in their title either: [testid, value] pairs; [] when every one reads whole.
   */
  async cutInputs(): Promise<Array<[string, string]>> {
    return this.page.evaluate(() =>
      [...document.querySelectorAll<HTMLInputElement>('.cf-form input')]
        .filter((i) => i.value !== '' && i.scrollWidth > i.clientWidth && i.title !== i.value)
        .map((i) => [i.dataset.testid ?? i.id, i.value] as [string, string]),
    );
  }

  /** The form inputs whose value does not fit their box at the current viewport. */
  async overflowingInputs(): Promise<string[]> {
    return this.page.evaluate(() =>
      [...document.querySelectorAll<HTMLInputElement>('.cf-form input')]
        .filter((i) => i.value !== '' && i.scrollWidth > i.clientWidth)
        .map((i) => i.dataset.testid ?? i.id),
    );
  }

  async run(): Promise<void> {
    await this.byTestId('conformance-run').click();
  }

  /**
   * Starts recording how many case rows the list holds after every DOM change, so a test can
   * tell whether cases appeared one by one or all at once.
   */
  async recordCaseCounts(): Promise<void> {
    await this.page.evaluate(() => {
      const w = window as unknown as { __caseCounts: number[] };
      w.__caseCounts = [];
      new MutationObserver(() => {
        const n = document.querySelectorAll('[data-testid="conformance-case"]').length;
        if (w.__caseCounts.at(-1) !== n) w.__caseCounts.push(n);
      }).observe(document.body, { childList: true, subtree: true });
    });
  }

  async caseCounts(): Promise<number[]> {
    return this.page.evaluate(() => (window as unknown as { __caseCounts: number[] }).__caseCounts);
  }

  async selfCheck(): Promise<void> {
    await this.byTestId('conformance-self-check').click();
  }

  /** Waits until the run on screen has finished; resolves to the summary's state. */
  async waitForFinished(timeout = 60_000): Promise<string> {
    await this.page
      .locator('[data-testid="conformance-summary"]:not([data-state="running"])')
      .waitFor({ timeout });
    await this.page.locator('[data-testid="conformance-self-check"]:not([disabled])').waitFor({ timeout });
    return (await this.summary.getAttribute('data-state'))!;
  }

  /** Every case row as `[id, status]`, in screen order. */
  async statuses(): Promise<Array<[string, string]>> {
    return this.cases.evaluateAll((rows) =>
      rows.map((r) => [r.getAttribute('data-case-id')!, r.getAttribute('data-status')!]),
    );
  }

  /** Opens a case with the keyboard (focus its head, Enter) and returns its body. */
  async openCaseWithKeyboard(id: string): Promise<Locator> {
    const row = this.case(id);
    await this.byTestId('conformance-case-toggle', row).focus();
    await this.page.keyboard.press('Enter');
    const body = this.byTestId('conformance-case-body', row);
    await body.waitFor();
    return body;
  }

  async export(format: 'json' | 'junit'): Promise<Download> {
    const [download] = await Promise.all([
      this.page.waitForEvent('download'),
      this.byTestId(`conformance-export-${format}`).click(),
    ]);
    return download;
  }

  fieldError(field: 'bankAuthUrl' | 'obj' | 'sub' | 'jwksPort'): Locator {
    return this.byTestId(`cf-${field}-error`);
  }
}
