/**
 * Issue 25 item 4: every BAD_ARGUMENT names its field in `details.field` (contract/errors.ts
 * BadArgumentDetails), so a page puts it under that field and the CLI names that flag without
 * reading the message. Driven through the real core's dispatch: the contract's own validation
 * for every method, and the core's refusals past the schema.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleError, methods, METHOD_NAMES, type ErrorData } from '../../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';

let tmp: string;
let core: ConsoleCore;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'dets-bad-argument-'));
  core = await createConsoleCore({ dataDir: tmp, host: 'browser' });
});

afterAll(async () => {
  await core?.close();
  await rm(tmp, { recursive: true, force: true, maxRetries: 5 });
});

/** Hostile arguments: wrong types, wrong shapes, unknown members, an oversized string. */
const PROBES: unknown[] = [
  12345,
  'not-an-argument',
  [1, 2, 3],
  true,
  null,
  { __invalid__: [null] },
  { id: 'x'.repeat(100_000), url: 7, kid: '', name: {} },
];

/** The refusal of a call, which must be a BAD_ARGUMENT. */
async function refusal(method: string, input: unknown): Promise<ErrorData> {
  const envelope = await core.dispatch(method, input);
  if (envelope.ok) throw new Error(`${method} accepted ${JSON.stringify(input).slice(0, 80)}`);
  expect(envelope.error.code, `${method}: ${envelope.error.message}`).toBe('BAD_ARGUMENT');
  return envelope.error;
}

function fieldOf(error: ErrorData): unknown {
  return (error.details as { field?: unknown } | undefined)?.field;
}

describe('BAD_ARGUMENT names its field', () => {
  it("on every method's schema refusal, the field is the first issue's path (or the argument)", async () => {
    let refused = 0;
    for (const name of METHOD_NAMES) {
      for (const probe of PROBES) {
        const parsed = methods[name].input.safeParse(probe);
        if (parsed.success) continue; // would run the method: only refusals are probed here
        const error = await refusal(name, probe);
        const issues = (error.details as { issues?: Array<{ path: string[] }> }).issues;
        expect(issues?.length, name).toBeGreaterThan(0);
        const expected = issues?.[0]?.path.join('.') || 'argument';
        expect(fieldOf(error), `${name} ${JSON.stringify(probe).slice(0, 40)}`).toBe(expected);
        expect(error.message).toContain(`${name}: ${expected}:`);
        refused += 1;
      }
    }
    // Every method refuses at least one probe (routes-contract.test.ts relies on that too).
    expect(refused).toBeGreaterThanOrEqual(METHOD_NAMES.length);
  });

  it.each([
    ['bank.setNotifyPrefix', { prefix: '/user_auth' }, 'prefix'],
    ['bank.setNotifyPrefix', { prefix: 'no/leading/slash' }, 'prefix'],
    ['bank.setForward', { url: 'http://127.0.0.1:9/cb?token=1' }, 'url'],
    ['bank.importCustomers', { text: '{"obj": "not an array"}' }, 'customers'],
    ['events.query', { after: 'not-an-event-id' }, 'after'],
    ['events.query', { before: 'not-an-event-id' }, 'before'],
  ] as const)("the core's own refusal of %s %j names %s", async (method, input, field) => {
    expect(methods[method].input.safeParse(input).success).toBe(true);
    const error = await refusal(method, input);
    expect(fieldOf(error)).toBe(field);
  });

  it('a customer file names the entry and member at fault', async () => {
    const customer = { obj: 'c1', external_id: 'e1', phone: '+10000000000', key: 'k1' };
    const error = await refusal('bank.importCustomers', { text: JSON.stringify([customer, customer]) });
    expect(fieldOf(error)).toBe('customers.1.obj');
    const bad = await refusal('bank.importCustomers', { text: JSON.stringify([{ ...customer, phone: 5 }]) });
    expect(fieldOf(bad)).toBe('customers.0.phone');
  });

  it('a BAD_ARGUMENT without its field does not compile', () => {
    // @ts-expect-error BAD_ARGUMENT requires { field } (contract/errors.ts ErrorDetailsByCode)
    const untyped = new ConsoleError('BAD_ARGUMENT', 'no field');
    expect(untyped.details).toBeUndefined();
    // @ts-expect-error a field is a string, not a number
    expect(new ConsoleError('BAD_ARGUMENT', 'numeric field', { field: 1 }).code).toBe('BAD_ARGUMENT');
    expect(new ConsoleError('NOT_FOUND', 'other codes carry what they like').details).toBeUndefined();
  });
});
