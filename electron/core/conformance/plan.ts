/**
 * The conformance plan: every case's stable id, title (citing the spec section it checks) and
 * route, in the order they run.
 *
 * Order matters. A bank must refetch the service JWKS for an unknown kid, and a careful bank
 * rate-limits that (the console's own bank: one fetch per second; others up to 10 s), so the key-rotation case runs
 * right after the valid calls and before anything that shows the bank an unknown kid; the
 * negative cases sign with the first key, which the bank has certainly loaded by then.
 */
import { CALLBACK_ROUTES, TOKEN_FLAWS } from '../../contract/schemas/scenario';

export const ROUTES = CALLBACK_ROUTES;
export type RouteName = (typeof ROUTES)[number];

/** The flaws, in run order: the scenario vocabulary's token flaws (one list, in the contract). */
export const NEGATIVE_KINDS = TOKEN_FLAWS;
export type NegativeKind = (typeof NEGATIVE_KINDS)[number];

export type PlannedCase =
  | { id: string; title: string; spec: string; route: RouteName; kind: 'valid' }
  | { id: string; title: string; spec: string; route: RouteName; kind: 'budget' }
  | { id: string; title: string; spec: string; route: RouteName; kind: 'rotation' }
  | { id: string; title: string; spec: string; route: RouteName; kind: 'negative'; negative: NegativeKind };

const VALID_TITLES: Record<RouteName, [string, string]> = {
  user_auth: [
    'a valid X-Session-ID is answered 200 with JSON user data: external_id (a string of up to 500 symbols), phone and key, strings (spec 2.5, 4.2, 8)',
    '2.5, 4.2, 8',
  ],
  key: ['a valid X-Session-ID is answered 200 with JSON {key}, a string (spec 2.6, 4.2)', '2.6, 4.2'],
  external_id: [
    'a valid X-Session-ID is answered 200 with JSON {external_id}, a string of up to 500 symbols (spec 2.6, 4.2, 8)',
    '2.6, 4.2, 8',
  ],
};

const NEGATIVE_TITLES: Record<NegativeKind, [string, string]> = {
  'no-header': ['no X-Session-ID header is answered 401 (spec 4.2, 5.5, 7)', '4.2, 5.5, 7'],
  'not-jwt': ['an X-Session-ID that is not a JWT is answered 401 (spec 5.5, 7)', '5.5, 7'],
  'alg-none': ['an unsigned token (alg none) is answered 401 (spec 5.5, 7)', '5.5, 7'],
  'hs256-public-key': [
    "an HS256 token keyed with the service's public key (algorithm confusion) is answered 401 (spec 5.5, 7)",
    '5.5, 7',
  ],
  'wrong-key': [
    'a token with the right kid but signed with another key is answered 401 (spec 5.5, 7)',
    '5.5, 7',
  ],
  'unknown-kid': [
    'a token whose kid is not in the service JWKS is answered 401 (spec 4.1 #3, 5.5, 7)',
    '4.1, 5.5, 7',
  ],
  expired: ['a token expired 2 minutes ago (beyond a 60 s leeway) is answered 401 (spec 2.4, 7)', '2.4, 7'],
  'iat-future': [
    'a token issued 2 minutes in the future (beyond a 60 s leeway) is answered 401 (spec 2.4, 7)',
    '2.4, 7',
  ],
  flow: ['a token with flow sign-up instead of sign-in is answered 401 (spec 2.4, 7)', '2.4, 7'],
  'unknown-obj': [
    'a token for an obj the bank does not know is answered 401 (spec 2.4, 5.5, 7)',
    '2.4, 5.5, 7',
  ],
  'foreign-sub': [
    'a token with the right obj but a foreign sub is answered 401 (spec 2.4, 5.5, 7)',
    '2.4, 5.5, 7',
  ],
};

/** The cases in run order. `budgetCalls` only goes into the budget cases' titles. */
export function planCases(budgetCalls: number): PlannedCase[] {
  const plan: PlannedCase[] = [];
  for (const route of ROUTES) {
    const [title, spec] = VALID_TITLES[route];
    plan.push({ id: `${route}.valid`, title: `GET /${route}: ${title}`, spec, route, kind: 'valid' });
  }
  for (const route of ROUTES) {
    plan.push({
      id: `${route}.budget`,
      title: `GET /${route}: each of ${budgetCalls} valid calls is answered within 1 second (spec 4.2, 8)`,
      spec: '4.2, 8',
      route,
      kind: 'budget',
    });
  }
  plan.push({
    id: 'jwks.rotation',
    title:
      'GET /user_auth: after the service rotates its key, a token with the new kid is accepted: the bank fetches the service JWKS again for an unknown kid (spec 4.1 #3, 5.3, 5.5)',
    spec: '4.1, 5.3, 5.5',
    route: 'user_auth',
    kind: 'rotation',
  });
  for (const route of ROUTES) {
    for (const negative of NEGATIVE_KINDS) {
      const [title, spec] = NEGATIVE_TITLES[negative];
      plan.push({
        id: `${route}.${negative}`,
        title: `GET /${route}: ${title}`,
        spec,
        route,
        kind: 'negative',
        negative,
      });
    }
  }
  return plan;
}
