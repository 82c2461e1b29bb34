/**
 * The bank's answers to the callbacks (spec 2.5, 2.6, 4.2; DESIGN.md "Bank endpoints"): a
 * customer's user data, key or external_id, the 401 of a refused token, and the answers a
 * behaviour (Bank page) fixes. Every one is a core {@link Reply} whose `key` is recorded masked.
 */
import type { Customer } from '../../contract/schemas/bank';
import { errorReply, jsonReply, type Reply } from '../http';
import type { BehavioursValue } from './settings';
import type { BankState, CallbackPath } from './state';
import type { Verdict } from './verify';

type Behaviour = BehavioursValue[string];

/**
 * external_id of exactly 501 symbols (one over spec 8's limit), starting with the real one.
 *
 * @example
 * [...longExternalId('abc')].length // 501
 */
export function longExternalId(base: string): string {
  const chars = [...base].slice(0, 501);
  return chars.join('') + 'x'.repeat(501 - chars.length);
}

/**
 * A callback's success body for `route`, shaped by the route's behaviour when one is set.
 *
 * @example
 * successBody('/key', customer, undefined) // { key: customer.key }
 */
export function successBody(
  route: CallbackPath,
  c: Customer,
  b: Behaviour | undefined,
): Record<string, string> {
  const externalId = b?.long_external_id ? longExternalId(c.external_id) : c.external_id;
  if (route === '/key') return { key: c.key };
  if (route === '/external_id') return { external_id: externalId };
  // Spec 2.5: external_id, phone, key required; names and email when the customer has them.
  const body: Record<string, string> = { external_id: externalId, phone: c.phone, key: c.key };
  if (c.first_name !== undefined) body.first_name = c.first_name;
  if (c.last_name !== undefined) body.last_name = c.last_name;
  if (c.email !== undefined) body.email = c.email;
  if (b?.omit_field) delete body[b.omit_field];
  return body;
}

/**
 * A customer's success answer per route, made once and sent again as it is (the body, its
 * masked record and the headers): a callback's answer costs a lookup, not a JSON of the
 * customer (issue 11). A customer changed or imported again is a new object, so an answer is
 * never stale; a behaviour set for the route (Bank page) makes its answer afresh each time.
 */
export function successReply(
  state: BankState,
  route: CallbackPath,
  c: Customer,
  b: Behaviour | undefined,
): Reply {
  if (b) return jsonReply(200, successBody(route, c, b), { maskKey: true });
  let byRoute = state.successReplies.get(c);
  if (!byRoute) state.successReplies.set(c, (byRoute = {}));
  return (byRoute[route] ??= jsonReply(200, successBody(route, c, undefined), { maskKey: true }));
}

/** The 401 of a token that failed a check: the check's id and its words (DESIGN.md). */
export function unauthorizedReply(verdict: Verdict): Reply {
  return jsonReply(401, { error: 'unauthorized', check: verdict.failed, detail: verdict.detail });
}

/** The answer a behaviour's fixed status gives `route` (`/user_auth`, `pay-in`…). */
export function fixedStatusReply(status: number, route: string): Reply {
  return errorReply(
    status,
    'behaviour',
    `a fixed status ${status} is set for ${route} (Bank page, behaviours)`,
  );
}
