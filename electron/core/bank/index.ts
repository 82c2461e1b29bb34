export type { BankEndpoints, BankListener, BankListenOptions, BankOptions } from './types';
export { createBankEndpoints } from './bank';
