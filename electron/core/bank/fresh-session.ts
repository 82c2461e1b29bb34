/**
 * A fresh X-Session-ID for a stored sandbox callback (issue 26 item 5, "copy that stays true"):
 * "Copy as curl" repeats the recorded token, which the bank answers 401 `exp` a few minutes
 * later. Where the console holds the signing key, the sandbox's, the same claims (flow, obj,
 * sub) are signed again with a fresh iat and exp by the sandbox's own signer (the one that signs
 * every service JWT it sends, sandbox/engine.ts signServiceToken): no second signer.
 *
 * Threat model: the callback is the console's own stored event; nothing is signed for a callback
 * another environment's service signed (the console does not hold that key, and signing its
 * claims with the sandbox's would pass as the sandbox's), nor for one whose token was never
 * proven (a compact record: its claims are whatever a sender wrote).
 */
import { ConsoleError } from '../../contract/errors';
import type { FreshSession } from '../../contract/schemas/bank';
import { SANDBOX_ENVIRONMENT_ID } from '../../contract/schemas/service';
import { badArgument } from '../common';
import { decodeCompact } from '../jwt';
import { storedAsRefused } from '../store';
import { storedCallback } from './replay';
import type { BankState } from './state';

/**
 * The stored callback `id`'s claims signed again by the sandbox, with their new expiry.
 *
 * @example
 * const { token, expires_at } = await freshSession(state, 'e000000000042');
 */
export async function freshSession(state: BankState, id: string): Promise<FreshSession> {
  const event = await storedCallback(state, id);
  if (event.environment?.id !== SANDBOX_ENVIRONMENT_ID)
    throw new ConsoleError(
      'CONFLICT',
      event.environment
        ? `event ${id} was signed by ${event.environment.name}'s service, whose key the console does not hold: ask that service for a new callback (a sign-in)`
        : `event ${id}'s token names a kid no environment's service published: the console cannot sign it again`,
      { field: 'id' },
    );
  if (storedAsRefused(event) || !event.obj || !event.sub)
    throw badArgument(
      `event ${id}'s token was not proven (it failed ${event.failed_check ?? 'before its claims were read'}): there are no claims to sign again`,
      'id',
    );
  const sign = state.options.signServiceToken;
  if (!sign)
    throw new ConsoleError(
      'CONFLICT',
      'the sandbox is not running in this console: start it to sign a fresh token',
    );
  const token = await sign({ obj: event.obj, sub: event.sub });
  const decoded = decodeCompact(token);
  const exp = decoded.payload?.exp;
  const kid = decoded.header?.kid;
  if (typeof exp !== 'number') throw new ConsoleError('INTERNAL', 'the sandbox signed a token without exp');
  return { token, expires_at: new Date(exp * 1000).toISOString(), kid: typeof kid === 'string' ? kid : null };
}
