import type { Locator } from 'playwright-core';
import { ConsolePageModel } from './console-page';

/** The JWT Composer: fill the claims, sign, send. */
export class ComposerPageModel extends ConsolePageModel {
  async open(): Promise<void> {
    await this.goTo('composer', 'composer-page');
  }

  get kid(): Locator {
    return this.byTestId('composer-kid');
  }

  /** Signs with the claims given (others as the form shows them); resolves to the compact token. */
  async sign(claims: { obj?: string; sub?: string; ttl?: number } = {}): Promise<string> {
    if (claims.obj !== undefined) await this.byTestId('composer-obj').fill(claims.obj);
    if (claims.sub !== undefined) await this.byTestId('composer-sub').fill(claims.sub);
    if (claims.ttl !== undefined) await this.byTestId('composer-ttl').fill(String(claims.ttl));
    await this.byTestId('composer-sign').click();
    await this.page.locator('[data-testid="composer-output"][data-state="signed"]').waitFor();
    return (await this.byTestId('composer-token').getAttribute('data-token')) ?? '';
  }

  async decoded(part: 'header' | 'payload'): Promise<Record<string, unknown>> {
    return JSON.parse((await this.byTestId(`decoded-${part}`).textContent()) ?? '{}') as Record<
      string,
      unknown
    >;
  }

  async warnings(): Promise<string[]> {
    return this.page.locator('[data-testid="composer-warning"]').allTextContents();
  }

  /** Sends the token to authenticate; resolves to the result block. */
  async send(): Promise<Locator> {
    await this.byTestId('composer-send').click();
    const result = this.byTestId('composer-send-result');
    await result.waitFor();
    return result;
  }

  /** Opens the signed token in the Inspector; resolves to the Inspector's verdict and token text. */
  async openInInspector(): Promise<{ verdict: string | null; token: string }> {
    await this.byTestId('open-in-inspector').click();
    await this.page.locator('[data-testid="inspector-results"][data-state="ready"]').waitFor();
    return {
      verdict: await this.byTestId('verdict').getAttribute('data-verdict'),
      token: await this.byTestId('token-input').inputValue(),
    };
  }
}
