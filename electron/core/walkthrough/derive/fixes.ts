/**
 * The fixes a failed step offers, by the id of the check that failed: the token checks and the
 * one answer judge's (core/answer; issue 24), the sandbox trace steps, and the probe from outside.
 * One table per source, so a check's fix is written once.
 */
import type { ProbeResult } from '../../../contract/schemas/tunnel';

/** The sandbox's `deadline` step and the bank's `budget` verdict are one rule (http/budget.ts): one fix. */
const CHECK_FIXES_BUDGET =
  'Answer within 1 second (spec 4.2, 8): remove the delay behaviour on the Bank page, or speed up the forward target.';

/**
 * The answer judge's checks (core/answer; issue 24): the same ids whether a callback's event
 * (the console's own answer, or a forward target's) or a sandbox sign-in's trace failed them.
 */
const ANSWER_FIXES: Record<string, string> = {
  reachable: 'The bank endpoints could not be reached: run step 5 (the URL the service has is out of date?).',
  budget: CHECK_FIXES_BUDGET,
  status:
    'The bank answered a valid token with other than 200: see the callback on the Callbacks page (a fixed status behaviour on the Bank page, or the forward target).',
  json: 'Answer a JSON object with the user data (spec 2.5).',
  external_id:
    'Answer external_id, a non-empty string (spec 2.5): remove the Bank page’s omit-external_id behaviour, or check the forward target.',
  external_id_length:
    'external_id must be at most 500 symbols (spec 8): remove the Bank page’s over-long external_id behaviour, or check the forward target.',
  key: 'Answer the user secret key in key, a non-empty string (spec 2.5, 5.7): remove the Bank page’s omit-key behaviour, or check the forward target.',
  phone:
    'Answer phone, a non-empty string (spec 2.5): remove the Bank page’s omit-phone behaviour, or check the forward target.',
  fields: 'first_name, last_name and email, when present, must be strings (spec 2.5).',
};

export const CHECK_FIXES: Record<string, string> = {
  present: 'The service must send its JWT in the X-Session-ID header.',
  structure: 'X-Session-ID must be a compact JWS (header.payload.signature).',
  alg: 'The service signs with RS256/PS256 (never none or HMAC): check the token the service sent.',
  kid: 'The bank endpoints fetch the service’s JWKS (spec 4.1 #3): check the JWKS URL on the Bank page.',
  signature: 'The token was not signed by a key in the service’s JWKS: check the JWKS URL on the Bank page.',
  exp: 'The token has expired or its iat is in the future: check this machine’s clock.',
  iat: 'The token’s iat is in the future: check this machine’s clock.',
  flow: 'flow must be sign-in (spec 2.4).',
  obj: 'obj is not one of the bank’s test customers: add the customer on the Bank page, or compose with a known obj (step 3).',
  sub: 'sub must be the customer’s sub (or the one the console signed for this obj): compose again (step 3).',
  ...ANSWER_FIXES,
};

export const TRACE_FIXES: Record<string, string> = {
  bank_jwt:
    'The service refused the bank JWT: register the active key (step 2) and compose a fresh JWT (step 3).',
  bank_url: 'The service does not know the bank’s URL: run step 5.',
  ...ANSWER_FIXES,
  status:
    'The bank answered other than 200: see the callback on the Callbacks page for the check that failed.',
  // Traces stored before the one answer judge (issue 24) named the budget step `deadline`.
  deadline: CHECK_FIXES_BUDGET,
  delivered: 'The bank endpoints did not take the notification: run step 5 and check the Bank page.',
};

/** A real environment's steps 6 and 7 before the probe from outside has passed (issue 14 item 5). */
export const UNREACHED =
  'Not yet: the service must be able to reach the bank endpoints first (step 5, the test from outside).';

export const PROBE_FIXES: Record<ProbeResult['outcome'], string> = {
  reachable: '',
  unreachable:
    'Start the tunnel (Bank page, or serve --tunnel) or your own front, check that it forwards to this console’s bank listener, then test again.',
  foreign:
    'The public URL is served by something other than this console: point the tunnel or your front at this console’s bank listener, then test again.',
  no_public_url:
    'Start a tunnel (Bank page, or serve --tunnel ssh:HOST|cloudflared|ngrok), or enter the URL of your own front that forwards to the bank listener, then test again.',
};
