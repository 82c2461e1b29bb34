/**
 * The service client (spec 4.1 and the guide's extra jwk endpoints, DESIGN.md): every call goes
 * to the ACTIVE environment, carries a bank JWT signed by one of the console's keys in
 * CX-Authorization (spec 5.1), and is recorded as an exchange (request, answer, timing, the raw
 * error text, an explanation when the cause is known, a curl command), appended to the history
 * and emitted as `service.exchanged`. A refusal by the service is an exchange with ok = false,
 * never a thrown error; only missing configuration (no base_url, counterparty_guid or key) is
 * thrown, as a ConsoleError saying what to set and where.
 *
 * Threat model: the private keys never leave the key store (it signs; we get a compact JWS).
 * What is recorded and shown (tokens, public JWKs, the service's answers) is what the user can
 * already see; the history file is 0600.
 *
 * This file only wires: the operations are functions over one ClientContext (client-context.ts)
 * in authenticate.ts, jwk-operations.ts and rotation.ts.
 */
import type { z } from 'zod';
import { AuthenticateInput, JwkOperationInput, RotateInput } from '../../contract/schemas/service';
import { badArgument, invalidArgument } from '../common';
import { authenticate } from './authenticate';
import { createClientContext } from './client-context';
import { fetchJwks, listJwks, sendJwk } from './jwk-operations';
import { runRotation } from './rotation';
import { activeKid } from './signing';
import { requireTarget } from './target';
import type { ServiceClient, ServiceOptions } from './types';

export { specJwk } from './jwk-operations';
export { MANAGEMENT_SUB } from './signing';

/** The input parsed by its contract schema (absent counts as {}); BAD_ARGUMENT naming `what` otherwise. */
function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  throw invalidArgument(parsed.error, what);
}

/**
 * Creates the client of one profile.
 *
 * @example
 * const client = createServiceClient({ dataDir, events, keys, environments, composer, fetch });
 * const { exchange, session_report } = await client.authenticate({ obj: 'DE02…', sub: 'ops@bank.example' });
 * exchange.curl; // curl -sS -X POST 'https://…/jwk/authenticate' -H 'CX-Authorization: eyJ…' …
 */
export function createServiceClient(options: ServiceOptions): ServiceClient {
  const ctx = createClientContext(options);
  let rotating: Promise<unknown> = Promise.resolve();

  return {
    async authenticate(rawInput) {
      return authenticate(ctx, parseInput(AuthenticateInput, rawInput, 'authenticate input'));
    },

    async registerJwk(rawInput) {
      const input = parseInput(JwkOperationInput, rawInput, 'registerJwk input');
      if (input.jwk_guid !== undefined) {
        throw badArgument(
          'POST …/jwk lets the service choose the jwk_guid (it answers {guid}); to register under a jwk_guid of your own, use updateJwk (PUT, spec 4.1 #1)',
          'jwk_guid',
        );
      }
      const target = requireTarget(await options.environments.get());
      const signingKid = activeKid(target.env, input.signing_kid, 'signing_kid');
      return sendJwk(ctx, target, { via: 'post', kid: input.kid, signingKid });
    },

    async updateJwk(rawInput) {
      const input = parseInput(JwkOperationInput, rawInput, 'updateJwk input');
      const target = requireTarget(await options.environments.get());
      const signingKid = activeKid(target.env, input.signing_kid, 'signing_kid');
      return sendJwk(ctx, target, {
        via: 'put',
        kid: input.kid,
        signingKid,
        ...(input.jwk_guid !== undefined ? { jwkGuid: input.jwk_guid } : {}),
      });
    },

    listJwks: () => listJwks(ctx),
    fetchJwks: () => fetchJwks(ctx),

    async exchanges(limit) {
      return ctx.history.list(limit ?? 100);
    },

    async rotate(rawInput) {
      const input = parseInput(RotateInput, rawInput, 'rotate input');
      // One rotation at a time: two at once would both generate and race to activate.
      const run = rotating.then(() => runRotation(ctx, input));
      rotating = run.catch(() => undefined);
      return run;
    },
  };
}
