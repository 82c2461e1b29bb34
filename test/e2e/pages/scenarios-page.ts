import type { Locator, Page } from 'playwright-core';
import { ConsolePageModel } from './console-page';

/**
 * The Scenarios page as a test sees it (issue 28): the folder field, the files listed
 * (`scenario-file-<file>`), each file's Run button and the report (`scenario-report`, a
 * `scenario-case-<step>` per step with `data-status`), by data-testid only.
 */
export class ScenariosPageModel extends ConsolePageModel {
  constructor(page: Page) {
    super(page);
  }

  get report(): Locator {
    return this.byTestId('scenario-report');
  }

  async open(): Promise<void> {
    await this.goTo('scenarios', 'scenarios-page');
  }

  /** Types the folder and opens it; waits for its listing. */
  async openFolder(folder: string): Promise<void> {
    await this.page.locator('#scenarios-folder').fill(folder);
    await this.byTestId('scenarios-open').click();
    await this.byTestId('scenarios-files').waitFor();
  }

  /** Runs one file and waits for its report; answers each step's id and status, in order. */
  async run(file: string): Promise<Array<{ id: string; status: string }>> {
    await this.byTestId(`scenario-run-${file}`).click();
    await this.report.waitFor({ timeout: 60_000 });
    return this.report.locator('[data-testid^="scenario-case-"]').evaluateAll((items) =>
      items.map((i) => ({
        id: i.getAttribute('data-testid')!.replace(/^scenario-case-/, ''),
        status: i.getAttribute('data-status')!,
      })),
    );
  }
}
