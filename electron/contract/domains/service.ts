import { z } from 'zod';
import {
  AuthenticateInput,
  AuthenticateResult,
  Exchange,
  JwkOperationInput,
  RotateInput,
  Rotation,
} from '../schemas/service';
import { method, NoInput } from './method';

/** `service.*` methods: the client for the active environment (spec 4.1) and rotation. */
export const serviceMethods = {
  'service.authenticate': method({
    summary: 'POST authenticate with CX-Authorization; the session_token is decoded and checked in place.',
    input: AuthenticateInput,
    output: AuthenticateResult,
  }),
  'service.registerJwk': method({
    summary: "Register a key's public JWK (POST …/jwk, the guide's endpoint).",
    input: JwkOperationInput,
    output: Exchange,
  }),
  'service.updateJwk': method({
    summary: 'Register a new JWK through PUT …/jwk/{jwk_guid} (spec 4.1 #1), signed by the current key.',
    input: JwkOperationInput,
    output: Exchange,
  }),
  'service.listJwks': method({
    summary: 'List the JWKs registered for the counterparty (GET …/jwk).',
    input: NoInput,
    output: Exchange,
  }),
  'service.fetchJwks': method({
    summary: "Fetch the service's JWKS (spec 4.1 #3).",
    input: NoInput,
    output: Exchange,
  }),
  'service.exchanges': method({
    summary: 'The recorded exchanges with the service, newest first.',
    input: z.object({ limit: z.number().int().min(1).max(1000).optional() }).optional(),
    output: z.array(Exchange),
  }),
  'service.rotate': method({
    summary:
      'Rotate the signing key: generate next → PUT it signed by the current key → authenticate with it → ' +
      'activate → retire the old. Stops at the first refusal with the old key still active; ' +
      'rotate({next_kid}) resumes.',
    input: RotateInput,
    output: Rotation,
  }),
} as const;

/** `service.*` events. */
export const serviceEvents = {
  'service.exchanged': Exchange,
  'service.rotated': Rotation,
} as const;
