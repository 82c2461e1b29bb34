import { InspectInput, InspectReport } from '../schemas/inspector';
import { method } from './method';

/** `inspector.*` methods. */
export const inspectorMethods = {
  'inspector.inspect': method({
    summary:
      'Decode a compact JWS and run every check on it (structure, alg, kid, signature, times, claims).',
    input: InspectInput,
    output: InspectReport,
  }),
} as const;
