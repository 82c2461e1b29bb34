import type { Locator } from 'playwright-core';
import { ConsolePageModel } from './console-page';

export type CheckStatus = 'passed' | 'failed' | 'skipped';

/** The Service page: authenticate, the exchange history. */
export class ServicePageModel extends ConsolePageModel {
  async open(): Promise<void> {
    await this.goTo('service', 'service-page');
  }

  /** One-click authenticate, composing with the environment's key; resolves to the result block. */
  async authenticate(claims: { obj?: string; sub?: string } = {}): Promise<Locator> {
    await this.byTestId('auth-mode-compose').check();
    if (claims.obj !== undefined) await this.byTestId('auth-obj').fill(claims.obj);
    if (claims.sub !== undefined) await this.byTestId('auth-sub').fill(claims.sub);
    const before = await this.exchangeIds();
    await this.byTestId('service-authenticate').click();
    const result = this.byTestId('authenticate-result');
    await result.waitFor();
    // The exchange is in the history too (from the answer or the live event).
    await this.page.waitForFunction(
      (seen: string[]) =>
        [...document.querySelectorAll('[data-testid="exchanges"] > li[data-exchange-id]')].some(
          (li) => !seen.includes(li.getAttribute('data-exchange-id')!),
        ),
      before,
    );
    return result;
  }

  /** `check id → status` of the session_token checks in a result block. */
  async sessionChecks(result: Locator): Promise<Record<string, CheckStatus>> {
    const checks = await this.byTestId('session-checks', result)
      .locator('[data-testid^="check-"][data-status]')
      .evaluateAll((rows) =>
        Object.fromEntries(
          rows.map((r) => [
            r.getAttribute('data-testid')!.slice('check-'.length),
            r.getAttribute('data-status'),
          ]),
        ),
      );
    return checks as Record<string, CheckStatus>;
  }

  async exchangeIds(): Promise<string[]> {
    return this.page
      .locator('[data-testid="exchanges"] > li[data-exchange-id]')
      .evaluateAll((items) => items.map((i) => i.getAttribute('data-exchange-id')!));
  }

  /** Opens the newest exchange and returns its request text. */
  async openNewestExchange(): Promise<{ request: string; response: string }> {
    const item = this.page.locator('[data-testid="exchanges"] > li[data-exchange-id]').first();
    const toggle = this.byTestId('exchange-toggle', item);
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    return {
      request: (await this.byTestId('exchange-request', item).textContent()) ?? '',
      response: (await this.byTestId('exchange-response', item).textContent()) ?? '',
    };
  }

  /** Runs the rotation wizard; resolves to its outcome and each step's status. */
  async rotate(): Promise<{ state: string | null; steps: Record<string, string | null> }> {
    const shown = this.byTestId('rotation-result');
    const before = (await shown.count()) > 0 ? await shown.getAttribute('data-started') : null;
    await this.byTestId('rotate-start').click();
    await this.page.waitForFunction((prev) => {
      const r = document.querySelector('[data-testid="rotation-result"]');
      return r !== null && r.getAttribute('data-started') !== prev;
    }, before);
    const result = this.byTestId('rotation-result');
    const steps = await result
      .locator('[data-testid^="rotation-step-"][data-status]')
      .evaluateAll((rows) =>
        Object.fromEntries(
          rows.map((r) => [
            r.getAttribute('data-testid')!.slice('rotation-step-'.length),
            r.getAttribute('data-status'),
          ]),
        ),
      );
    return { state: await result.getAttribute('data-state'), steps };
  }
}
