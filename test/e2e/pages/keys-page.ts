import type { Locator } from 'playwright-core';
import { ConsolePageModel } from './console-page';

export type ExportFormat = 'jwk' | 'jwks' | 'pem';

/** The Keys page: generate, export, register with the sandbox; each action waits for its outcome. */
export class KeysPageModel extends ConsolePageModel {
  async open(): Promise<void> {
    await this.goTo('keys', 'keys-page');
  }

  row(kid: string): Locator {
    return this.byTestId(`key-row-${kid}`);
  }

  async kids(): Promise<string[]> {
    return this.page
      .locator('[data-testid="key-table"] tbody tr[data-kid]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kid')!));
  }

  /** Generates through the dialog; resolves to the new key's kid once its row is listed. */
  async generate(options: { kid?: string; label?: string; expires?: string } = {}): Promise<string> {
    const before = await this.kids().catch(() => [] as string[]);
    const open = this.page.locator('[data-testid="keys-generate"]');
    await open.click();
    const dialog = this.byTestId('generate-dialog');
    await dialog.waitFor();
    if (options.kid !== undefined) await this.byTestId('gen-kid', dialog).fill(options.kid);
    if (options.label !== undefined) await this.byTestId('gen-label', dialog).fill(options.label);
    if (options.expires !== undefined) await this.byTestId('gen-expires', dialog).fill(options.expires);
    await this.byTestId('generate-submit', dialog).click();
    await dialog.waitFor({ state: 'detached' });
    const handle = await this.page.waitForFunction((seen: string[]) => {
      const rows = [...document.querySelectorAll('[data-testid="key-table"] tbody tr[data-kid]')];
      return rows.map((r) => r.getAttribute('data-kid')).find((k) => k && !seen.includes(k)) ?? null;
    }, before);
    return (await handle.jsonValue()) as string;
  }

  /**
   * Fills "Add a key held elsewhere" and presses Test and add. Resolves to 'added' once the
   * dialog closed and the row is listed, or to the message under the field the core refused.
   */
  async addExternal(input: { publicKey: string; kid: string; command: string }): Promise<'added' | string> {
    let dialog = this.byTestId('external-dialog');
    if (!(await dialog.isVisible())) {
      await this.byTestId('keys-external').click();
      await dialog.waitFor();
    }
    dialog = this.byTestId('external-dialog');
    await this.byTestId('external-public', dialog).fill(input.publicKey);
    await this.byTestId('external-kid', dialog).fill(input.kid);
    await this.byTestId('external-command', dialog).fill(input.command);
    await this.byTestId('external-submit', dialog).click();
    const refused = dialog.locator('.field-error, [data-testid="external-error"]').first();
    const outcome = await Promise.race([
      this.row(input.kid)
        .waitFor()
        .then(() => 'added' as const),
      refused.waitFor().then(async () => (await refused.textContent()) ?? ''),
    ]);
    if (outcome === 'added') await dialog.waitFor({ state: 'detached' });
    return outcome;
  }

  /** Opens Export for a key, reads each format asked for, closes the dialog. */
  async export(kid: string, formats: ExportFormat[]): Promise<Record<string, string>> {
    await this.byTestId('key-export', this.row(kid)).click();
    const dialog = this.byTestId('export-dialog');
    await dialog.waitFor();
    const out: Record<string, string> = {};
    for (const format of formats) {
      await this.byTestId(`export-format-${format}`, dialog).check();
      const text = dialog.locator(`[data-testid="export-text"][data-format="${format}"]`);
      await text.waitFor();
      out[format] = (await text.textContent()) ?? '';
    }
    await this.byTestId('export-dialog-close').click();
    await dialog.waitFor({ state: 'detached' });
    return out;
  }

  /** Registers a key with the sandbox; resolves to the counterparty GUID shown. */
  async registerWithSandbox(kid: string): Promise<string> {
    await this.byTestId('key-register-sandbox', this.row(kid)).click();
    const guid = this.byTestId('register-guid');
    await guid.waitFor();
    return (await guid.textContent()) ?? '';
  }

  get expiryPill(): Locator {
    return this.byTestId('key-expiry-pill');
  }
}
