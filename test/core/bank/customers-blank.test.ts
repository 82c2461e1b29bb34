/**
 * A test customer whose obj or sub is only white space (issue 24 item 11) names no one: the
 * engine fails a blank obj or sub before any customer is looked up, so no token could ever match
 * it. `--users` and the Bank page's customer editing (the same code, bank/customers.ts) refuse
 * it naming the entry and the field, and lose nothing already stored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseCustomer, parseCustomers } from '../../../electron/core/bank/customers';
import { CUSTOMER, cleanup, startBank } from './helpers';

afterEach(cleanup);

const base = { external_id: 'ext', phone: '+49 30 1', key: 'k' };
const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err as { code: string; message: string; details?: { field?: string } };
  }
  throw new Error('expected a refusal');
};

describe('customers whose obj or sub is only white space', () => {
  it.each([
    ['obj of spaces', { obj: '   ' }, 'obj', '"   "'],
    ['obj of a tab and a newline', { obj: '\t\n' }, 'obj', '"\\t\\n"'],
    [
      'obj of a no-break space (String.prototype.trim removes it, as the engine does)',
      { obj: '\u00a0' },
      'obj',
      '"\u00a0"',
    ],
    ['sub of spaces', { obj: 'DE777', sub: '  ' }, 'sub', '"  "'],
  ] as const)('--users refuses %s naming the entry and the field', (_name, identity, field, shown) => {
    const err = refusal(() => parseCustomers([{ ...CUSTOMER }, { ...base, ...identity }]));
    expect(err.code).toBe('BAD_ARGUMENT');
    expect(err.message).toBe(
      `customers[1].${field} is only white space (${shown}): no token can match it, as a token whose ${field} is blank fails the ${field} check`,
    );
    expect(err.details?.field).toBe(field);
  });

  it('one customer (the Bank page) is refused the same way', () => {
    const err = refusal(() => parseCustomer({ ...base, obj: 'DE778', sub: ' \u3000 ' }));
    expect(err.message).toMatch(/^customer\.sub is only white space \(/);
  });

  it('keeps an obj or sub with white space around other characters: compared exactly, not blank', () => {
    expect(parseCustomers([{ ...base, obj: ' DE89 ', sub: ' ops ' }])).toHaveLength(1);
  });

  it('the bank refuses it on save and import, and loses nothing stored', async () => {
    const fx = await startBank({ customers: [CUSTOMER] });
    await expect(fx.bank.saveCustomer({ ...base, obj: '  ' })).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/^customer\.obj is only white space/),
    });
    await expect(fx.bank.importCustomers([{ ...base, obj: 'DE2', sub: '\t' }])).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/^customers\[0\]\.sub is only white space/),
    });
    expect((await fx.bank.customers()).map((c) => c.obj)).toEqual([CUSTOMER.obj]);
  });
});
