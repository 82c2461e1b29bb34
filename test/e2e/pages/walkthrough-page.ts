import { readFile } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { ConsolePageModel } from './console-page';

export type WalkthroughStepId =
  'key' | 'register' | 'compose' | 'authenticate' | 'callbacks' | 'sign-in' | 'notifications' | 'rotate';

export type StepState = 'pending' | 'done' | 'failed' | 'waiting';

/**
 * The Walkthrough page (the home page) as a test sees it: each step by data-testid, its state as
 * the page shows it (`data-state`, derived in the core from real events), its one action, and
 * the evidence pack's download. Actions wait for the core's answer, never for a fixed time.
 */
export class WalkthroughPageModel extends ConsolePageModel {
  constructor(page: Page) {
    super(page);
  }

  get root(): Locator {
    return this.byTestId('walkthrough-page');
  }

  /** Opens the console at the URL serve printed: the walkthrough is the first page. */
  async open(url: string): Promise<void> {
    await this.openConsole(url);
    await this.page.locator('[data-testid="walkthrough-page"][data-state="ready"]').waitFor();
  }

  step(id: WalkthroughStepId): Locator {
    return this.byTestId(`step-${id}`);
  }

  async state(id: WalkthroughStepId): Promise<StepState> {
    return (await this.step(id).getAttribute('data-state')) as StepState;
  }

  /** Every step's state, in page order. */
  async states(): Promise<Record<string, StepState>> {
    const entries = await this.page
      .locator('[data-testid="walkthrough-steps"] > li[data-state]')
      .evaluateAll((items) =>
        items.map((i) => [
          i.getAttribute('data-testid')!.slice('step-'.length),
          i.getAttribute('data-state'),
        ]),
      );
    return Object.fromEntries(entries) as Record<string, StepState>;
  }

  async waitForState(id: WalkthroughStepId, state: StepState, timeout = 20_000): Promise<void> {
    await this.page.locator(`[data-testid="step-${id}"][data-state="${state}"]`).waitFor({ timeout });
  }

  /** Clicks the step's action (after typing `value` when it asks for one) and waits for the core's answer. */
  async run(id: WalkthroughStepId, value?: string): Promise<{ ok: boolean; message: string }> {
    if (value !== undefined) await this.byTestId(`step-input-${id}`, this.step(id)).fill(value);
    const answered = this.page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/call/walkthrough.run',
      {
        timeout: 60_000,
      },
    );
    await this.byTestId(`step-action-${id}`, this.step(id)).click();
    await answered;
    const message = this.byTestId(`step-message-${id}`, this.step(id));
    await this.page.locator(`[data-testid="step-action-${id}"]:not([disabled])`).waitFor({ timeout: 30_000 });
    return {
      ok: (await message.getAttribute('data-ok')) === 'true',
      message: (await message.textContent()) ?? '',
    };
  }

  /** Why the step's button waits (the earlier step it needs), or null when it can run. */
  async blockedReason(id: WalkthroughStepId): Promise<string | null> {
    const reason = this.byTestId(`step-blocked-${id}`, this.step(id));
    return (await reason.count()) > 0 ? await reason.textContent() : null;
  }

  /** Whether the step's button is the page's one primary action (the next step to do). */
  async isNext(id: WalkthroughStepId): Promise<boolean> {
    return (await this.byTestId(`step-action-${id}`, this.step(id)).getAttribute('data-next')) === 'true';
  }

  /** The step whose action has the keyboard focus, or null. */
  async focusedStep(): Promise<string | null> {
    return this.page.evaluate(() => {
      const el = document.activeElement;
      const id = el?.getAttribute('data-testid') ?? '';
      return id.startsWith('step-action-') ? id.slice('step-action-'.length) : null;
    });
  }

  /** Waits until the step's action has the keyboard focus (a step before it just turned green). */
  async waitForFocus(id: WalkthroughStepId): Promise<void> {
    await this.page.waitForFunction(
      (testId) => document.activeElement?.getAttribute('data-testid') === testId,
      `step-action-${id}`,
    );
  }

  /** The "Last run" line of a step and whether it says the state moved on since. */
  async lastRun(id: WalkthroughStepId): Promise<{ text: string; moved: boolean }> {
    const line = this.byTestId(`step-message-${id}`, this.step(id));
    return {
      text: (await line.textContent()) ?? '',
      moved: (await line.getAttribute('data-moved')) === 'true',
    };
  }

  /** A fact's value under a step, or null. */
  async fact(id: WalkthroughStepId, label: string): Promise<string | null> {
    const rows = await this.byTestId(`step-facts-${id}`, this.step(id))
      .locator('dt')
      .evaluateAll((dts) =>
        dts.map((dt) => [dt.textContent ?? '', dt.nextElementSibling?.textContent ?? '']),
      );
    return rows.find(([l]) => l === label)?.[1] ?? null;
  }

  /** The spec citation links of a step, as their hrefs. */
  async citationHrefs(id: WalkthroughStepId): Promise<string[]> {
    return this.byTestId('spec-citation', this.step(id))
      .locator('a')
      .evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
  }

  async actionLabel(id: WalkthroughStepId): Promise<string> {
    return (await this.byTestId(`step-action-${id}`, this.step(id)).textContent()) ?? '';
  }

  async reason(id: WalkthroughStepId): Promise<string> {
    return (await this.byTestId(`step-reason-${id}`, this.step(id)).textContent()) ?? '';
  }

  async fix(id: WalkthroughStepId): Promise<string> {
    return (await this.byTestId(`step-fix-${id}`, this.step(id)).textContent()) ?? '';
  }

  async summary(id: WalkthroughStepId): Promise<string> {
    return (await this.byTestId(`step-summary-${id}`, this.step(id)).textContent()) ?? '';
  }

  /** A screenshot with the step in view (the page area scrolls, not the window). */
  async screenshotAt(id: WalkthroughStepId, path: string): Promise<void> {
    await this.step(id).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await this.page.screenshot({ path, fullPage: false });
  }

  /** A value of a real environment's onboarding block (step 2), as the page shows it. */
  async onboardingValue(id: string): Promise<string> {
    const row = this.byTestId(`wt-onboarding-${id}`, this.step('register'));
    return (await row.locator('dd.wt-onboarding-value').textContent()) ?? '';
  }

  /** The message a real environment's step 6 or 7 offers to send the service team. */
  async serviceRequest(id: 'sign-in' | 'notifications'): Promise<string> {
    return (await this.byTestId(`wt-request-message-${id}`, this.step(id)).textContent()) ?? '';
  }

  async progress(): Promise<number> {
    return Number(await this.byTestId('walkthrough-progress').getAttribute('data-done'));
  }

  /** Exports the evidence pack through the page and returns the downloaded file's name and text. */
  async exportPack(): Promise<{ filename: string; text: string }> {
    const download = this.page.waitForEvent('download');
    await this.byTestId('walkthrough-export').click();
    const file = await download;
    const path = await file.path();
    return { filename: file.suggestedFilename(), text: await readFile(path, 'utf8') };
  }
}
