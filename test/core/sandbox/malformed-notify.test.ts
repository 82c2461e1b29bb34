/**
 * A malformed notification on demand (issue 13, item 6): the sandbox sends it over real HTTP to
 * the console's own bank listener, which must answer 400 and record it as rejected with its
 * reason, while the sandbox's trace calls the refusal a pass.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { methods, type MethodOutput } from '../../../electron/contract';
import type { MalformedNotification } from '../../../electron/contract/schemas/sandbox';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';
import { cleanup, makeBankKey, tempDir } from './helpers';

let core: ConsoleCore | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
  await cleanup();
});

async function call<M extends keyof typeof methods>(c: ConsoleCore, method: M, input?: unknown) {
  const envelope = await c.dispatch(method, input);
  if (!envelope.ok) throw new Error(`${method}: ${envelope.error.code} ${envelope.error.message}`);
  return methods[method].output.parse(envelope.value) as MethodOutput<M>;
}

async function setup() {
  core = await createConsoleCore({
    dataDir: await tempDir(),
    host: 'cli',
    env: { DETS_VAULT_PASSPHRASE: 'malformed notification test' },
  });
  await core.listenSandbox({ host: '127.0.0.1', port: 0 });
  const bank = await core.listenBank({ host: '127.0.0.1', port: 0 });
  const { counterparty_guid } = await call(core, 'sandbox.onboard', { jwk: (await makeBankKey()).jwk });
  await call(core, 'sandbox.updateCounterparty', {
    counterparty_guid,
    bank_receiver_url: bank.url,
    bank_sender_url: bank.url,
  });
  return { c: core, guid: counterparty_guid };
}

const REASONS: Record<MalformedNotification, RegExp> = {
  'not-json': /not valid JSON/,
  'no-transaction-id': /no transaction_id/,
  'bad-uuid': /is not a UUID/,
};

describe('sandbox.notify with malformed', () => {
  it('sends each malformed body; the bank answers 400 and records it rejected with the reason', async () => {
    const { c, guid } = await setup();
    for (const malformed of Object.keys(REASONS) as MalformedNotification[]) {
      const result = await call(c, 'sandbox.notify', { counterparty_guid: guid, event: 'pay-in', malformed });
      expect(result.status, malformed).toBe(400);
      expect(result.trace.ok, malformed).toBe(true);
      const status = result.trace.steps.find((s) => s.id === 'status')!;
      expect(status).toMatchObject({ status: 'passed', title: 'refused with HTTP 400' });
      expect(result.trace.steps[0]!.request!.headers['Content-Type']).toBe('application/json');
    }
    await (await c.store()).flush();
    const page = await call(c, 'events.query', { kind: 'notification' });
    expect(page.total).toBe(3);
    expect(page.events.map((e) => e.outcome)).toEqual(['rejected', 'rejected', 'rejected']);
    // Newest first: bad-uuid, no-transaction-id, not-json; each with the bank's reason.
    const order: MalformedNotification[] = ['bad-uuid', 'no-transaction-id', 'not-json'];
    for (const [i, e] of page.events.entries()) {
      const detail = await call(c, 'events.get', { id: e.id });
      expect(detail.response?.status).toBe(400);
      expect(detail.response?.body ?? '').toMatch(REASONS[order[i]!]);
    }
  });

  it('a well-formed notification is still accepted, and malformed with a transaction_id is refused naming it', async () => {
    const { c, guid } = await setup();
    const ok = await call(c, 'sandbox.notify', { counterparty_guid: guid, event: 'pay-in' });
    expect([ok.status, ok.trace.ok]).toEqual([200, true]);
    const both = await c.dispatch('sandbox.notify', {
      counterparty_guid: guid,
      event: 'pay-in',
      malformed: 'bad-uuid',
      transaction_id: crypto.randomUUID(),
    });
    expect(both).toMatchObject({
      ok: false,
      error: { code: 'BAD_ARGUMENT', message: expect.stringMatching(/^transaction_id/) },
    });
    const unknown = await c.dispatch('sandbox.notify', {
      counterparty_guid: guid,
      event: 'pay-in',
      malformed: 'huge',
    });
    expect(unknown).toMatchObject({
      ok: false,
      error: { code: 'BAD_ARGUMENT', message: expect.stringMatching(/malformed/) },
    });
  });
});
