/**
 * The `notify.*` cases (issue 27 item 4) against real receivers on 127.0.0.1: a correct one passes
 * every case; each planted fault is caught by its case, and a receiver that applies repeats twice
 * only through the probe.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { NOTIFY_CASES, runNotifyCases } from '../../../electron/core/conformance';
import { startReceiver, type Receiver, type ReceiverFault } from './notify-receiver';

const open: Receiver[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

async function run(fault: ReceiverFault, probe: boolean) {
  const receiver = await startReceiver(fault);
  open.push(receiver);
  const cases = await runNotifyCases({
    notifyUrl: receiver.url,
    prefix: '/api/svc/notify',
    giveUpMs: 5000,
    ...(probe ? { probeUrl: receiver.probe } : {}),
  });
  return { receiver, failed: cases.filter((c) => c.status === 'failed').map((c) => c.id), cases };
}

describe('notify.* conformance', () => {
  it('a correct receiver passes every case, with and without the probe', async () => {
    const withProbe = await run('none', true);
    expect(withProbe.cases.map((c) => c.id)).toEqual(NOTIFY_CASES.map((c) => c.id));
    expect(withProbe.failed).toEqual([]);
    expect(withProbe.cases.find((c) => c.id === 'notify.concurrent')!.detail).toContain('applied once');
    // 3 valid + 2 repeat + 2 upper-case + 5 concurrent + 2 lost-ack + 3 malformed.
    expect(withProbe.receiver.posts).toBe(17);
    const without = await run('none', false);
    expect(without.failed).toEqual([]);
    expect(without.cases.find((c) => c.id === 'notify.repeat')!.detail).toContain('not checked');
  });

  it.each([
    [
      'conflict-on-repeat',
      ['notify.repeat', 'notify.repeat.upper-case', 'notify.concurrent', 'notify.lost-ack'],
    ],
    ['concurrent-500', ['notify.concurrent']],
    ['case-sensitive', ['notify.repeat.upper-case']],
    ['garbage-200', ['notify.not-json', 'notify.no-transaction-id', 'notify.bad-uuid']],
  ] as const)('%s is caught by its case', async (fault, expected) => {
    const { failed } = await run(fault, false);
    expect(failed).toEqual(expected);
  });

  it('a 1.5 s answer fails the budget of the valid cases', async () => {
    const { failed, cases } = await run('slow', false);
    expect(failed).toEqual(
      expect.arrayContaining(['notify.pay-in.valid', 'notify.pay-out.valid', 'notify.transfer.valid']),
    );
    expect(cases.find((c) => c.id === 'notify.pay-in.valid')!.detail).toMatch(/^the notification: budget/);
  }, 60_000);

  it('a receiver that applies repeats twice passes without the probe and is caught with it', async () => {
    expect((await run('applies-twice', false)).failed).toEqual([]);
    const { failed, cases } = await run('applies-twice', true);
    expect(failed).toEqual([
      'notify.repeat',
      'notify.repeat.upper-case',
      'notify.concurrent',
      'notify.lost-ack',
    ]);
    expect(cases.find((c) => c.id === 'notify.concurrent')!.detail).toMatch(/applied .* 5 times, not once/);
  });
});
