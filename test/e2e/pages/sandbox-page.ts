import type { Locator, Page } from 'playwright-core';

export type StepStatus = 'passed' | 'failed' | 'skipped' | 'info';

/**
 * The Sandbox page as a test sees it: actions and reads by data-testid, never raw CSS. Actions
 * wait for their visible outcome (the new counterparty listed, "Saved.", the result line), so a
 * read never races the call it follows.
 */
export class SandboxPageModel {
  constructor(readonly page: Page) {
    page.setDefaultTimeout(10_000);
  }

  private byTestId(id: string, within: Locator | Page = this.page): Locator {
    return within.locator(`[data-testid="${id}"]`);
  }

  get root(): Locator {
    return this.byTestId('sandbox-page');
  }
  get sandboxUrl(): Locator {
    return this.byTestId('sandbox-url');
  }
  get jwksUrl(): Locator {
    return this.byTestId('sandbox-jwks-url');
  }
  get memoryBanner(): Locator {
    return this.byTestId('key-memory-banner');
  }
  get connectionStatus(): Locator {
    return this.byTestId('connection-status');
  }

  /** Opens the console at the URL serve printed, then the Sandbox page from the nav. */
  async open(url: string): Promise<void> {
    await this.page.goto(url);
    await this.page.locator('[data-testid="connection-status"][data-status="connected"]').waitFor();
    await this.byTestId('nav-sandbox').click();
    await this.page.locator('[data-testid="sandbox-page"][data-state="ready"]').waitFor();
  }

  /** Every counterparty GUID listed, in screen order. */
  async counterpartyGuids(): Promise<string[]> {
    return this.page
      .locator('[data-testid^="counterparty-"][data-guid]')
      .evaluateAll((items) => items.map((i) => i.getAttribute('data-guid')!));
  }

  counterparty(guid: string): Locator {
    return this.byTestId(`counterparty-${guid}`);
  }

  /** Onboards through the form; resolves to the new counterparty's GUID (its card opens). */
  async onboard(jwk: unknown): Promise<string> {
    const before = await this.counterpartyGuids();
    const open = this.page
      .locator('[data-testid="onboard-open"], [data-testid="onboard-open-empty"]')
      .first();
    await open.click();
    await this.byTestId('onboard-jwk').fill(JSON.stringify(jwk, null, 2));
    await this.byTestId('onboard-submit').click();
    await this.byTestId('onboard-form').waitFor({ state: 'detached' });
    const items = this.page.locator('[data-testid^="counterparty-"][data-guid]');
    await items.nth(before.length).waitFor();
    const after = await this.counterpartyGuids();
    const created = after.find((g) => !before.includes(g));
    if (!created) throw new Error('no new counterparty listed after onboarding');
    return created;
  }

  /** Opens a counterparty's card (its forms) unless it is open already. */
  async openCounterparty(guid: string): Promise<void> {
    const card = this.counterparty(guid);
    await card.waitFor();
    if ((await card.getAttribute('class'))?.includes('is-open')) return;
    await this.byTestId('counterparty-toggle', card).click();
    await this.byTestId('run-sign-in', card).waitFor();
  }

  /** The kids of the JWKs listed for a counterparty. */
  async registeredKids(guid: string): Promise<string[]> {
    return this.byTestId('counterparty-jwks', this.counterparty(guid))
      .locator('tbody tr td:nth-child(2)')
      .allTextContents();
  }

  async setBankUrls(
    guid: string,
    urls: { auth?: string; sender?: string; receiver?: string },
  ): Promise<void> {
    const card = this.counterparty(guid);
    if (urls.auth !== undefined) await this.byTestId('bank-auth-url-input', card).fill(urls.auth);
    if (urls.sender !== undefined) await this.byTestId('bank-sender-url-input', card).fill(urls.sender);
    if (urls.receiver !== undefined) await this.byTestId('bank-receiver-url-input', card).fill(urls.receiver);
    await this.byTestId('save-bank-urls', card).click();
    await this.byTestId('bank-urls-saved', card).waitFor();
  }

  /** Runs the registration flow with a pasted `token`; resolves to whether every rule passed. */
  async runSignIn(guid: string, token: string): Promise<boolean> {
    const card = this.counterparty(guid);
    // Compose is the default when a vault key is registered for the counterparty: paste instead.
    await this.byTestId('sign-in-mode-paste', card).check();
    await this.byTestId('sign-in-token', card).fill(token);
    await this.byTestId('run-sign-in', card).click();
    const result = this.byTestId('sign-in-result', card);
    await result.waitFor();
    return (await result.getAttribute('data-ok')) === 'true';
  }

  async sendNotification(
    guid: string,
    event: 'pay-in' | 'pay-out' | 'transfer',
  ): Promise<{ status: string | null; transactionId: string | null }> {
    const card = this.counterparty(guid);
    await this.byTestId('notify-event', card).selectOption(event);
    await this.byTestId('send-notification', card).click();
    const result = this.byTestId('notify-result', card);
    await result.waitFor();
    return {
      status: await result.getAttribute('data-status'),
      transactionId: await this.byTestId('notify-result-transaction-id', result).textContent(),
    };
  }

  /**
   * Sends a notification with the ladder and faults chosen in the form (issue 27); resolves to
   * the first attempt's status and the transaction_id, as {@link sendNotification} does.
   */
  async sendWithFaults(
    guid: string,
    faults: { duplicates?: number; concurrent?: boolean; lostAck?: boolean; timeoutMs?: number },
  ): Promise<{ status: string | null; transactionId: string | null }> {
    const card = this.counterparty(guid);
    if (faults.duplicates !== undefined) {
      await this.byTestId('notify-duplicates', card).fill(String(faults.duplicates));
    }
    if (faults.concurrent) await this.byTestId('notify-concurrent', card).check();
    if (faults.lostAck) await this.byTestId('notify-lost-ack', card).check();
    if (faults.timeoutMs !== undefined)
      await this.byTestId('notify-timeout', card).fill(String(faults.timeoutMs));
    return this.sendNotification(guid, 'pay-in');
  }

  /** A delivery in the Deliveries panel, by its transaction_id. */
  delivery(transactionId: string): Locator {
    return this.page.locator(`[data-testid="delivery"][data-transaction-id="${transactionId}"]`);
  }

  /** Waits (bounded by the page's timeout) until the delivery of `transactionId` is in `state`. */
  async waitForDelivery(
    transactionId: string,
    state: 'delivering' | 'delivered' | 'escalated',
  ): Promise<void> {
    await this.page
      .locator(`[data-testid="delivery"][data-transaction-id="${transactionId}"][data-state="${state}"]`)
      .waitFor();
  }

  /**
   * The delivery's timeline as [attempt n, copy, status] rows, in the order they went, once it
   * shows `count` of them (it opens the delivery first).
   */
  async deliveryAttempts(transactionId: string, count: number): Promise<Array<[string, string, string]>> {
    const item = this.delivery(transactionId);
    const toggle = this.byTestId('delivery-toggle', item);
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    await this.byTestId('delivery-attempt', item)
      .nth(count - 1)
      .waitFor();
    return this.byTestId('delivery-attempt', item).evaluateAll((rows) =>
      rows.map((r) => [
        r.getAttribute('data-n')!,
        r.getAttribute('data-copy')!,
        r.getAttribute('data-status')!,
      ]),
    );
  }

  /** The timeline's entries, newest first. */
  traces(): Locator {
    return this.page.locator('[data-testid="traces"] > li[data-trace-id]');
  }

  async traceIds(): Promise<string[]> {
    return this.traces().evaluateAll((items) => items.map((i) => i.getAttribute('data-trace-id')!));
  }

  trace(id: string): Locator {
    return this.page.locator(`[data-testid="traces"] > li[data-trace-id="${id}"]`);
  }

  /** Waits until the newest trace is not one of `known`, and returns its id. */
  async waitForNewTrace(known: string[]): Promise<string> {
    const handle = await this.page.waitForFunction((seen: string[]) => {
      const first = document.querySelector('[data-testid="traces"] > li[data-trace-id]');
      const id = first?.getAttribute('data-trace-id');
      return id && !seen.includes(id) ? id : null;
    }, known);
    return (await handle.jsonValue()) as string;
  }

  async expandTrace(id: string): Promise<void> {
    const toggle = this.byTestId('trace-toggle', this.trace(id));
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    await this.byTestId('trace-steps', this.trace(id)).waitFor();
  }

  /** Each step of an expanded trace as `[id, status]`, in order. */
  async stepStatuses(id: string): Promise<Array<[string, StepStatus]>> {
    await this.expandTrace(id);
    return this.byTestId('trace-steps', this.trace(id))
      .locator(':scope > li[data-status]')
      .evaluateAll((rows) =>
        rows.map((r) => [
          r.getAttribute('data-testid')!.slice('step-'.length),
          r.getAttribute('data-status') as StepStatus,
        ]),
      );
  }

  /** Opens a step's request block and returns its text. */
  async stepRequest(traceId: string, stepId: string): Promise<string> {
    const block = this.byTestId('step-request', this.byTestId(`step-${stepId}`, this.trace(traceId)));
    await block.locator('summary').click();
    return (await block.locator('pre').textContent()) ?? '';
  }

  /** The page from its top (the page area scrolls, not the window). */
  async screenshot(path: string): Promise<void> {
    await this.page.locator('#main').evaluate((main) => main.scrollTo(0, 0));
    await this.page.screenshot({ path, fullPage: false });
  }
}
