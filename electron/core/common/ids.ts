/**
 * GUIDs for the core: the contract's one pattern (contract/schemas/ids.ts; the pages use it
 * too), so the sandbox, the bank's notification rules and the schemas agree on what a GUID is.
 */
export { GUID_PATTERN, GUID_SOURCE, Guid, isGuid } from '../../contract/schemas/ids';
