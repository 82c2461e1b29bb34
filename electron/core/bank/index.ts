/** The bank's side of the service (DESIGN.md "Bank endpoints"): callbacks, notifications, the pairs the console signed. */
export type {
  BankEndpoints,
  BankListener,
  BankListenOptions,
  BankOptions,
  CallbackRelay,
  RelayOutcome,
  RelayRequest,
  SignedPairs,
} from './types';
export { createSignedPairs, type SignedPairsOptions } from './signed-pairs';
export { createBankEndpoints } from './bank';
export { SESSION_HEADER } from './verify';
export { rebuildCallbackDetail, rebuildingReader } from './callback-detail';
export { originRefusedEvent } from './intake';
export {
  privateBankCopy,
  type PrivateBank,
  type PrivateBankOptions,
  type PrivateBankSeed,
} from './private-copy';
