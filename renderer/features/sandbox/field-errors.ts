/** Moved to renderer/shared (the Keys, Environments and Service pages map refusals to fields too). */
export { fieldOfError, problemOf } from '../../shared/field-errors';
