/**
 * `dets-console conformance --notify-url` as a CI job runs it (issue 27 item 4): the built CLI
 * against real receivers on 127.0.0.1: exit 0 and a JUnit file whose test case names are the case
 * ids; a broken receiver exits 1; `--expected-failures` in both directions (a listed failure does
 * not fail the run, a listed case that passes is named); bad flags exit 2 naming them.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../core/conformance/notify-receiver';
import { runBuiltCli } from './helpers';
import { jsonReport } from './support/cli-report';
import { cliTestFile } from './support/spawn-cli';

const cli = cliTestFile('dets-conformance-notify-');
const open: Receiver[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

async function receiver(fault: Parameters<typeof startReceiver>[0] = 'none') {
  const r = await startReceiver(fault);
  open.push(r);
  return r;
}

describe('conformance --notify-url', () => {
  it('a correct receiver: exit 0, every notify.* case passed, JUnit names are case ids', async () => {
    const r = await receiver();
    const junit = path.join(cli.tmp, 'notify.xml');
    const run = await runBuiltCli([
      'conformance',
      '--notify-url',
      r.url,
      '--notify-probe',
      r.probe,
      '--json',
      '--junit',
      junit,
    ]);
    expect(run.stderr).toContain('notify.concurrent');
    expect(run.code).toBe(0);
    const summary = jsonReport(run.stdout);
    expect(summary.failed).toBe(0);
    expect(summary.passed).toBe(10);
    expect(summary.cases.every((c) => c.id.startsWith('notify.'))).toBe(true);
    const xml = await readFile(junit, 'utf8');
    const names = [...xml.matchAll(/<testcase name="([^"]+)"/g)].map((m) => m[1]);
    expect(names).toEqual(summary.cases.map((c) => c.id));
    expect(names.some((n) => n!.includes('http'))).toBe(false);
  });

  it('a receiver answering 409 to repeats: exit 1; listed as expected: exit 0; a listed pass is named', async () => {
    const r = await receiver('conflict-on-repeat');
    const failing = await runBuiltCli(['conformance', '--notify-url', r.url, '--json']);
    expect(failing.code).toBe(1);
    const failed = jsonReport(failing.stdout)
      .cases.filter((c) => c.status === 'failed')
      .map((c) => c.id);
    expect(failed).toEqual([
      'notify.repeat',
      'notify.repeat.upper-case',
      'notify.concurrent',
      'notify.lost-ack',
    ]);

    const file = path.join(cli.tmp, 'known.json');
    await writeFile(
      file,
      JSON.stringify({
        ...Object.fromEntries(failed.map((id) => [id, 'BANK-7: repeats answered 409'])),
        'notify.bad-uuid': 'BANK-8: fixed last sprint',
      }),
    );
    const junit = path.join(cli.tmp, 'xfail.xml');
    const listed = await runBuiltCli([
      'conformance',
      '--notify-url',
      r.url,
      '--expected-failures',
      file,
      '--json',
      '--junit',
      junit,
    ]);
    expect(listed.code).toBe(0);
    const body = jsonReport<{
      expected_failures: { expected: Array<{ id: string }>; now_passing: Array<{ id: string }> };
    }>(listed.stdout);
    expect(body.expected_failures.expected.map((e) => e.id)).toEqual(failed);
    expect(body.expected_failures.now_passing.map((e) => e.id)).toEqual(['notify.bad-uuid']);
    expect(listed.stderr).toContain('now passing');
    expect(await readFile(junit, 'utf8')).toContain('expected failure (BANK-7');

    // Only some listed: the others still fail the run.
    await writeFile(file, JSON.stringify({ 'notify.repeat': 'BANK-7' }));
    const partly = await runBuiltCli(['conformance', '--notify-url', r.url, '--expected-failures', file]);
    expect(partly.code).toBe(1);
    expect(partly.stdout).toContain('Unexpected failures (3)');
  });

  it('bad flags exit 2 naming them', async () => {
    const none = await runBuiltCli(['conformance']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--bank-auth-url');
    const probeAlone = await runBuiltCli([
      'conformance',
      '--bank-auth-url',
      'http://127.0.0.1:9',
      '--obj',
      'o',
      '--sub',
      's',
      '--notify-probe',
      'http://127.0.0.1:9',
    ]);
    expect(probeAlone.code).toBe(2);
    expect(probeAlone.stderr).toContain('--notify-probe: needs --notify-url');
    const badPrefix = await runBuiltCli([
      'conformance',
      '--notify-url',
      'http://127.0.0.1:9',
      '--notify-prefix',
      'api/',
    ]);
    expect(badPrefix.code).toBe(2);
    expect(badPrefix.stderr).toContain('--notify-prefix');
    const missing = await runBuiltCli([
      'conformance',
      '--notify-url',
      'http://127.0.0.1:9',
      '--expected-failures',
      path.join(cli.tmp, 'nope.json'),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--expected-failures');
    const notJson = path.join(cli.tmp, 'bad.json');
    await writeFile(notJson, '["notify.repeat"]');
    const wrong = await runBuiltCli([
      'conformance',
      '--notify-url',
      'http://127.0.0.1:9',
      '--expected-failures',
      notJson,
    ]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('JSON object');
  });
});
