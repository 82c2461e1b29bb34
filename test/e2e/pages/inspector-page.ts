import type { Locator, Page } from 'playwright-core';

export type CheckStatus = 'passed' | 'failed' | 'skipped';
export type KeyChoice = 'none' | 'jwks-url' | 'text';

/**
 * The Token Inspector as a test sees it: actions and reads by data-testid, never raw CSS. Every
 * action that changes the input waits for the fresh report, so reads never see a stale one.
 */
export class InspectorPageModel {
  constructor(readonly page: Page) {
    page.setDefaultTimeout(10_000);
  }

  private byTestId(id: string): Locator {
    return this.page.locator(`[data-testid="${id}"]`);
  }

  get tokenInput(): Locator {
    return this.byTestId('token-input');
  }
  get results(): Locator {
    return this.byTestId('inspector-results');
  }
  get verdict(): Locator {
    return this.byTestId('verdict');
  }
  get connectionStatus(): Locator {
    return this.byTestId('connection-status');
  }
  get emptyState(): Locator {
    return this.byTestId('inspector-empty');
  }
  get accessProblem(): Locator {
    return this.byTestId('access-problem');
  }
  get error(): Locator {
    return this.byTestId('inspect-error');
  }
  get segments(): Locator {
    return this.byTestId('token-segments');
  }

  /** Opens `url` (serve's printed URL) on the Inspector page (the home page is the Walkthrough). */
  async open(url: string): Promise<void> {
    await this.page.goto(url.includes('#') ? url : `${url}#/inspector`);
    await this.byTestId('inspector-page').waitFor();
  }

  /** Waits until the report on screen is the one for the current input. */
  async settle(state: 'ready' | 'error' = 'ready'): Promise<void> {
    await this.page.locator(`[data-testid="inspector-results"][data-state="${state}"]`).waitFor();
  }

  async pasteToken(text: string): Promise<void> {
    await this.tokenInput.fill(text);
    await this.settle();
  }

  async focusTokenWithShortcut(): Promise<void> {
    await this.page.keyboard.press('Control+k');
  }

  async useKeySource(choice: KeyChoice, value = ''): Promise<void> {
    await this.byTestId(`key-source-${choice}`).check();
    if (choice === 'jwks-url') await this.byTestId('key-url-input').fill(value);
    if (choice === 'text') await this.byTestId('key-text-input').fill(value);
    await this.settle();
  }

  async expectClaims(obj: string, sub: string): Promise<void> {
    await this.byTestId('expected-obj-input').fill(obj);
    await this.byTestId('expected-sub-input').fill(sub);
    await this.settle();
  }

  /** Clear, and what the form holds afterwards. */
  async clear(): Promise<{ token: string; keyNone: boolean; obj: string; sub: string }> {
    await this.byTestId('clear-token').click();
    return {
      token: await this.tokenInput.inputValue(),
      keyNone: await this.byTestId('key-source-none').isChecked(),
      obj: await this.byTestId('expected-obj-input').inputValue(),
      sub: await this.byTestId('expected-sub-input').inputValue(),
    };
  }

  async trySample(): Promise<void> {
    await this.byTestId('load-sample').click();
    await this.settle();
  }

  check(id: string): Locator {
    return this.byTestId(`check-${id}`);
  }

  async checkStatus(id: string): Promise<CheckStatus> {
    return (await this.check(id).getAttribute('data-status')) as CheckStatus;
  }

  /** Every check row as `{id: status}`, in screen order. */
  async checkStatuses(): Promise<Record<string, CheckStatus>> {
    return this.page
      .locator('[data-testid^="check-"][data-status]')
      .evaluateAll((rows) =>
        Object.fromEntries(
          rows.map((r) => [
            r.getAttribute('data-testid')!.slice('check-'.length),
            r.getAttribute('data-status') as CheckStatus,
          ]),
        ),
      );
  }

  async verdictKind(): Promise<string | null> {
    return this.verdict.getAttribute('data-verdict');
  }

  async decoded(kind: 'header' | 'payload'): Promise<unknown> {
    return JSON.parse((await this.byTestId(`decoded-${kind}`).textContent()) ?? 'null');
  }

  /** Colour of each segment span in the token editor, as computed by the browser. */
  async segmentColours(): Promise<Record<string, string>> {
    return this.segments
      .locator('[data-segment]')
      .evaluateAll((spans) =>
        Object.fromEntries(spans.map((s) => [s.getAttribute('data-segment'), getComputedStyle(s).color])),
      );
  }

  async screenshot(path: string): Promise<void> {
    await this.page.screenshot({ path, fullPage: false });
  }
}
