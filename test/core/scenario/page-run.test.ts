/**
 * A run from the Scenarios page (`scenario.run`, issue 28 item 3) delivers its notification steps
 * through the sandbox's delivery engine at the host's --time-scale: against the console's own bank
 * endpoints (a private instance), a malformed body sent on the service's ladder is refused ten
 * times and escalates (at --time-scale 0.01 the ladder's 243 s of waits take 2.4 s; at the
 * service's pace this test would time out), and a lost acknowledgement is followed by the
 * ladder's retry, which the bank answers 200 (spec 4.3: a repeat is still 200).
 *
 * Real parts: the composition root (createConsoleCore), its profile database, the run's bank
 * endpoints on 127.0.0.1 and the delivery engine's own SQLite folder.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScenarioReport } from '../../../electron/contract/schemas/scenario';
import { SCENARIO_COUNTERPARTY_GUID, type Delivery } from '../../../electron/contract/schemas/delivery';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';
import { cleanup, tempDir } from '../sandbox/helpers';

let core: ConsoleCore | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
  await cleanup();
});

describe('scenario.run (the Scenarios page)', () => {
  it("plays notification steps on the delivery engine, at the host's --time-scale", async () => {
    core = await createConsoleCore({ dataDir: await tempDir(), host: 'cli', timeScale: 0.01 });
    const folder = await tempDir();
    await writeFile(
      path.join(folder, 'notify.json'),
      JSON.stringify({
        version: 1,
        name: 'notify',
        steps: [
          {
            name: 'refused',
            kind: 'notification',
            event: 'pay-in',
            malformed: 'not-json',
            ladder: 'service',
          },
          { name: 'lost-ack', kind: 'notification', event: 'pay-out', faults: { lost_ack: true } },
        ],
      }),
    );
    const announced: Delivery[] = [];
    core.events.on('sandbox.attempted', (d) => announced.push(d));
    const r = (await core.dispatch('scenario.run', { folder, file: 'notify.json' })) as {
      ok: boolean;
      value: ScenarioReport;
    };
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const detail = Object.fromEntries(r.value.cases.map((c) => [c.id, c.detail]));
    // The first 4xx is the refusal the step expects; the ladder still went all the way down.
    expect(r.value.cases.map((c) => [c.id, c.status])).toEqual([
      ['refused', 'passed'],
      ['lost-ack', 'passed'],
    ]);
    expect(detail.refused).toMatch(/#10 retry 10: 400/);
    expect(detail['lost-ack']).toMatch(/#1 first, ack lost: no answer .*#2 retry 2: 200/);
    // Issue 27 item 4: every attempt was announced as it was recorded, filed under the scenario
    // counterparty (the Scenarios page shows the progress; the Sandbox page leaves them out).
    expect(new Set(announced.map((d) => d.counterparty_guid))).toEqual(new Set([SCENARIO_COUNTERPARTY_GUID]));
    const refused = announced.filter((d) => d.event === 'pay-in').map((d) => d.attempts.length);
    // Announced once stored (no attempt yet), then after each of the ten attempts.
    expect([...new Set(refused)]).toEqual(Array.from({ length: 11 }, (_, i) => i));
    expect(announced.filter((d) => d.event === 'pay-in').at(-1)!.state).toBe('escalated');
  }, 60_000);
});
