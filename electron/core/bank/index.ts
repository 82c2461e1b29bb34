export type { BankEndpoints, BankListener, BankOptions } from './types';
export { createBankEndpoints } from './bank';
