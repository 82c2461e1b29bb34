/**
 * Issue 28 end to end (`dets-console serve` on a fresh profile, the built renderer in headless
 * Chromium, page modules): of the callbacks the sandbox's walkthrough caused (two sign-ins), one
 * is ticked from the keyboard (after select all and none) and saved as a scenario from the
 * Callbacks page, the file holds that one step and no other, the Scenarios page lists that file in the folder and runs it against
 * the active environment's bank, and the report shows every step passed: the recorded flow
 * replays with fresh tokens.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CallbacksPageModel } from './pages/callbacks-page';
import { ScenariosPageModel } from './pages/scenarios-page';
import { useServeAndBrowser } from './support/session';

const session = useServeAndBrowser();
const api = (method: string, input?: unknown) => session().api(method, input);
let folder = '';
afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('Save as scenario, then run it from the Scenarios page', () => {
  it('saves the selected callbacks as a file and replays it green, every step in the report', async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'dets-e2e-scenarios-'));
    // Two sign-ins: two /user_auth callbacks, of which the test saves one.
    for (const step of ['key', 'register', 'compose', 'authenticate', 'callbacks', 'sign-in', 'sign-in']) {
      const r = (await api('walkthrough.run', { step })) as { ok: boolean; message: string };
      expect(r.ok, `${step}: ${r.message}`).toBe(true);
    }
    const callbacks = new CallbacksPageModel(session().page);
    await callbacks.openConsole(session().serve.ready.ui);
    await callbacks.open();
    await callbacks.rows.nth(1).waitFor();
    const signIns = await callbacks.idsOfRoute('/user_auth');
    expect(signIns.length).toBeGreaterThanOrEqual(2);
    // Select all listed, then untick all but the newest sign-in: the file holds that one only.
    await callbacks.byTestId('callbacks-select-all').check();
    expect(await callbacks.selectedCount()).toBe((await callbacks.ids()).length);
    await callbacks.byTestId('callbacks-select-all').uncheck();
    expect(await callbacks.selectedCount()).toBe(0);
    await callbacks.select(signIns.slice(0, 1));
    expect(await callbacks.selectedCount()).toBe(1);
    expect(await callbacks.byTestId('callbacks-save-scenario').innerText()).toBe(
      'Save 1 selected as scenario',
    );

    const saved = await callbacks.saveAsScenario(folder, 'from-callbacks');
    expect(saved).toContain(path.join(folder, 'from-callbacks.json'));
    const file = JSON.parse(await readFile(path.join(folder, 'from-callbacks.json'), 'utf8')) as {
      name: string;
      steps: Array<{ kind: string }>;
    };
    expect(file.name).toBe('from-callbacks');
    expect(file.steps.map((s) => s.kind)).toEqual(['sign-in']);

    const scenarios = new ScenariosPageModel(session().page);
    await scenarios.open();
    await scenarios.openFolder(folder);
    await scenarios.byTestId('scenario-file-from-callbacks.json').waitFor();
    const steps = await scenarios.run('from-callbacks.json');
    expect(steps.length).toBe(file.steps.length);
    expect(steps.filter((s) => s.status !== 'passed')).toEqual([]);
    expect(await scenarios.report.getAttribute('data-failed')).toBe('0');
    expect(session().problems).toEqual([]);
  }, 180_000);
});
