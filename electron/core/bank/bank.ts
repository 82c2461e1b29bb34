import type { BankEndpoints, BankOptions } from './types';

/** Placeholder until the bank endpoints land (issue 5). */
export async function createBankEndpoints(_options: BankOptions): Promise<BankEndpoints> {
  throw new Error('not implemented');
}
