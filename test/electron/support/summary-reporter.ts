import type { Reporter, TestModule } from 'vitest/node';

/**
 * The closing line of `npm run test:electron`: `electron: N passed, N failed, N skipped`, named
 * apart from the main suite's `tests:` line so that nobody adds the two up by accident.
 */
export default class ElectronSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const count = { passed: 0, failed: 0, skipped: 0 };
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') count.passed++;
        else if (state === 'failed') count.failed++;
        else count.skipped++;
      }
      if (mod.state() === 'failed' && [...mod.children.allTests()].length === 0) count.failed++;
    }
    process.stdout.write(
      `\nelectron: ${count.passed} passed, ${count.failed} failed, ${count.skipped} skipped\n`,
    );
  }
}
