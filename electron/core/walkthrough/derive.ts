/**
 * The walkthrough's state, derived from facts (issue 6: "state from real events, never from
 * checkboxes"). A pure function: the handlers gather the facts (the key store, the service's
 * exchange history, the sandbox, the event store, the walkthrough's own small file) and this
 * decides, for each step, whether the event that proves it exists (done), its last attempt
 * failed (failed, with the reason and the fix), nothing happened yet (pending), or the console
 * waits for the service (waiting). A reset ignores every event before it.
 */
import type { KeyInfo } from '../../contract/schemas/keys';
import type { Counterparty, Trace } from '../../contract/schemas/sandbox';
import type { Environment, Exchange, Rotation } from '../../contract/schemas/service';
import type { InspectReport } from '../../contract/schemas/inspector';
import {
  WALKTHROUGH_STEP_IDS,
  type ComposedToken,
  type StepFact,
  type StepId,
  type WalkthroughReach,
  type WalkthroughStep,
} from '../../contract/schemas/walkthrough';
import type { ProbeResult } from '../../contract/schemas/tunnel';
import { STEP_TEXT } from './steps';
import { serviceWords } from '../service';

export const NOTIFY_ROUTES = ['pay-in', 'pay-out', 'transfer'] as const;
export type NotifyRoute = (typeof NOTIFY_ROUTES)[number];

/** A GET /user_auth the bank endpoints recorded. */
export interface CallbackFact {
  id: string;
  at: string;
  status: number | null;
  failed_check: string | null;
  obj: string | null;
  sub: string | null;
  /** The failed check's recorded words (the 401's detail, the answer judge's), or a forward verdict that failed. */
  detail: string | null;
  /** Forward mode: did the engineer's backend pass every verdict? null when not forwarded. */
  forward_ok: boolean | null;
  duration_ms: number | null;
}

/** A notification the bank endpoints recorded. */
export interface NotificationFact {
  id: string;
  at: string;
  route: NotifyRoute;
  status: number | null;
  outcome: 'accepted' | 'repeat' | 'rejected' | null;
  transaction_id: string | null;
}

/** The last run of a step's action that failed before any event could say so (or succeeded). */
export interface Attempt {
  at: string;
  ok: boolean;
  reason: string | null;
  fix: string | null;
}

export interface WalkthroughFacts {
  env: Environment;
  resetAt: string | null;
  keys: KeyInfo[];
  keysError: string | null;
  /** Sandbox environment: the counterparty of env.counterparty_guid as the sandbox knows it. */
  sandbox: { counterparty: Counterparty | null; error: string | null } | null;
  /** The URL the service calls the bank at (a real environment's public URL, else the listener). */
  bankUrl: string | null;
  /** This environment's exchanges with the service, newest first. */
  exchanges: Exchange[];
  composed: ComposedToken | null;
  session: { exchange_id: string; report: InspectReport | null } | null;
  /** GET /user_auth callbacks for the walkthrough's obj, newest first. */
  callbacks: CallbackFact[];
  /** Sandbox sign-in and notify traces for the counterparty, newest first. */
  traces: Trace[];
  /** Notifications, newest first. */
  notifications: NotificationFact[];
  rotation: Rotation | null;
  attempts: Partial<Record<StepId, Attempt>>;
  /** A real environment: the public URL, what to register, the probe from outside, forward mode. */
  reach: WalkthroughReach | null;
  obj: string;
  sub: string;
  /** Where notifications are posted under the bank URL (spec 4.3's /api/svc/notify by default). */
  notifyPrefix?: string;
  /**
   * Other traffic since the reset that is not the walkthrough's (the Sandbox page's sign-ins, a
   * POST from outside): shown beside the steps, never deciding them (issue 13 item 4).
   */
  outside?: { traces: number; callbacks: number; notifications: number };
}

type Draft = Omit<WalkthroughStep, 'id' | 'number' | 'title' | 'explanation' | 'spec' | 'needs'>;

const quote = (s: string) => JSON.stringify(s);
const ms = (iso: string) => Date.parse(iso);
const later = (a: string, b: string | null | undefined) => b == null || ms(a) > ms(b);

function draft(state: Draft['state'], summary: string, extra: Partial<Draft> = {}): Draft {
  return {
    state,
    summary,
    reason: null,
    fix: null,
    waiting_for: null,
    at: null,
    action: null,
    action_input: null,
    facts: [],
    event_ids: [],
    ...extra,
  };
}

/** What the service said, in one line: status and its own words (or the network error). */
export function serviceAnswer(exchange: Exchange): string {
  if (!exchange.response) return `the service could not be reached: ${exchange.error ?? 'no answer'}`;
  const words = serviceWords(exchange.response.body) ?? exchange.error;
  return `the service answered ${exchange.response.status}${words ? `: ${words}` : ''}`;
}

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

const CHECK_FIXES: Record<string, string> = {
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

const TRACE_FIXES: Record<string, string> = {
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

/** The failed step of a trace: its id and detail. */
function traceFailure(trace: Trace): { id: string; detail: string } {
  const step = trace.steps.find((s) => s.status === 'failed');
  return { id: step?.id ?? trace.failed ?? 'unknown', detail: step?.detail ?? 'a step failed' };
}

/** A real environment's steps 6 and 7 before the probe from outside has passed (issue 14 item 5). */
const UNREACHED =
  'Not yet: the service must be able to reach the bank endpoints first (step 5, the test from outside).';

const PROBE_FIXES: Record<ProbeResult['outcome'], string> = {
  reachable: '',
  unreachable:
    'Start the tunnel (Bank page, or serve --tunnel) or your own front, check that it forwards to this console’s bank listener, then test again.',
  foreign:
    'The public URL is served by something other than this console: point the tunnel or your front at this console’s bank listener, then test again.',
  no_public_url:
    'Start a tunnel (Bank page, or serve --tunnel ssh:HOST|cloudflared|ngrok), or enter the URL of your own front that forwards to the bank listener, then test again.',
};

/**
 * Step 5 on a real environment: what to register, and whether the service can reach it there.
 * Done only when the tunnel's probe from outside came back through this console (issue 14 item 3).
 */
function reachStep(reach: WalkthroughReach | null, since: (at: string | null | undefined) => boolean): Draft {
  if (!reach?.bank_auth_url) {
    return draft('failed', 'The bank endpoints are not listening.', {
      reason: reach?.warning ?? 'no bank endpoints listener in this process',
      fix: 'Start `dets-console serve` or the desktop app.',
    });
  }
  const url = reach.bank_auth_url;
  const probe = reach.probe && since(reach.probe.at) ? reach.probe : null;
  const facts: StepFact[] = [
    { label: 'bank_auth_url', value: url },
    ...reach.notification_urls.map((n) => ({ label: 'notification URL', value: n })),
  ];
  let d: Draft;
  if (probe?.outcome === 'reachable') {
    d = draft(
      'done',
      `Reachable from outside: the probe sent to ${url} came back through this console in ${probe.rtt_ms ?? '?'} ms. Register ${url} with the service.`,
      { at: probe.at },
    );
  } else if (probe) {
    d = draft('failed', `The test from outside of ${reach.public_url ?? url} did not pass.`, {
      reason: probe.detail,
      fix: PROBE_FIXES[probe.outcome],
      at: probe.at,
    });
  } else {
    d = draft(
      'pending',
      `Register ${url} with the service as bank_auth_url and notification host, then test it from outside.`,
      reach.warning ? { fix: reach.warning } : {},
    );
  }
  d.facts.push(...facts);
  if (probe) {
    d.facts.push({
      label: 'test from outside',
      value: `${probe.outcome}${probe.rtt_ms !== null ? `, ${probe.rtt_ms} ms` : ''} at ${probe.at}`,
    });
  }
  return d;
}

const traceEnd = (t: Trace) => new Date(ms(t.at) + Math.ceil(t.duration_ms)).toISOString();

/**
 * Derives the eight steps from the facts. `nowMs` only words expiry ("in 364 days").
 *
 * @example
 * const steps = deriveSteps(facts, Date.now());
 * steps.find((s) => s.id === 'authenticate')?.state; // 'failed'
 */
export function deriveSteps(facts: WalkthroughFacts, nowMs: number): WalkthroughStep[] {
  const { env } = facts;
  const sandbox = env.kind === 'sandbox';
  const since = (at: string | null | undefined) =>
    !!at && (facts.resetAt === null || ms(at) >= ms(facts.resetAt));
  const active = facts.keys.find((k) => k.kid === env.active_kid) ?? null;
  const exchanges = facts.exchanges.filter((e) => since(e.at));
  const drafts = {} as Record<StepId, Draft>;

  // 1. The key: a stored key, active for this environment. A fact of the profile: a reset keeps it.
  {
    let d: Draft;
    if (facts.keysError) {
      d = draft('failed', 'The key store cannot be read.', {
        reason: facts.keysError,
        fix: 'Unlock or set up the vault (the banner at the top says how), then run this step again.',
      });
    } else if (env.active_kid && !active) {
      d = draft('failed', `The active key ${quote(env.active_kid)} is not in the key store.`, {
        reason: `kid ${quote(env.active_kid)} is this environment's active_kid, but no such key is stored`,
        fix: 'Create a key with this step (it becomes the active key), or set active_kid on the Environments page.',
      });
    } else if (active && active.expires_in_days !== null && active.expires_in_days < 0) {
      d = draft('failed', `kid ${quote(active.kid)} expired on ${active.expires}.`, {
        reason: `the active key expired on ${active.expires}: it no longer signs`,
        fix: 'Create a new key with this step and register it (step 2).',
        at: active.created_at,
      });
    } else if (active) {
      d = draft(
        'done',
        `kid ${quote(active.kid)} (${active.alg}, ${active.bits} bits) is in the vault and active for this environment.`,
        { at: active.created_at },
      );
    } else {
      d = draft('pending', 'No signing key for this environment yet.');
    }
    if (active) {
      d.facts.push(
        { label: 'kid', value: active.kid },
        { label: 'fingerprint (RFC 7638)', value: active.fingerprint },
        {
          label: 'expires',
          value: active.expires ? `${active.expires} (in ${active.expires_in_days} days)` : 'no expiry date',
        },
      );
    }
    d.action = active ? 'Create a new key' : 'Create the signing key';
    drafts.key = d;
  }

  // 2. Registration: the sandbox knows the active key; a real service gave a counterparty_guid.
  {
    let d: Draft;
    if (sandbox) {
      const cp = facts.sandbox?.counterparty ?? null;
      if (facts.sandbox?.error) {
        d = draft('failed', 'The sandbox is not available.', {
          reason: facts.sandbox.error,
          fix: 'Fix the sandbox (the Sandbox page says what is wrong), then run this step again.',
        });
      } else if (!env.counterparty_guid) {
        d = draft('pending', 'The bank is not onboarded with the sandbox yet.');
      } else if (!cp) {
        d = draft('failed', `Counterparty ${env.counterparty_guid} is unknown to the sandbox.`, {
          reason: `the sandbox has no counterparty ${env.counterparty_guid} (its state was reset or moved)`,
          fix: 'Run this step: it onboards the bank with the sandbox again.',
        });
      } else {
        const registered = active
          ? cp.jwks.find((j) => j.jwk.kid === active.kid && j.jwk.n === active.public_jwk.n)
          : undefined;
        if (registered) {
          d = draft(
            'done',
            `kid ${quote(registered.jwk.kid ?? '')} is registered for counterparty ${cp.counterparty_guid} (${registered.via === 'onboarding' ? 'at onboarding' : `with ${registered.via.toUpperCase()}`}).`,
            { at: registered.registered_at },
          );
          d.facts.push({ label: 'jwk_guid', value: registered.jwk_guid });
        } else {
          const kids = cp.jwks.map((j) => j.jwk.kid ?? '?').join(', ') || 'none';
          d = draft(
            'pending',
            active
              ? `The active key ${quote(active.kid)} is not registered for counterparty ${cp.counterparty_guid} (registered: ${kids}).`
              : 'No active key to register.',
            active
              ? {
                  fix: 'Run this step: the console registers it with PUT …/jwk/{jwk_guid}, signed by a key already registered.',
                }
              : {},
          );
        }
      }
      d.action = 'Register with the sandbox';
    } else if (env.counterparty_guid) {
      d = draft(
        'done',
        `counterparty_guid ${env.counterparty_guid} saved: the service registered the JWK at onboarding.`,
      );
      d.action = 'Save the counterparty_guid';
      d.action_input = 'counterparty_guid';
    } else {
      d = draft(
        'waiting',
        'Send the public JWK to the service’s onboarding, then enter the counterparty_guid it answers.',
        {
          waiting_for: 'the counterparty_guid the service’s onboarding answers for this JWK',
          action: 'Save the counterparty_guid',
          action_input: 'counterparty_guid',
        },
      );
    }
    if (env.counterparty_guid) d.facts.unshift({ label: 'counterparty_guid', value: env.counterparty_guid });
    drafts.register = d;
  }

  // 3. A bank JWT the console composed for the walkthrough.
  {
    const c = facts.composed && since(facts.composed.at) ? facts.composed : null;
    let d: Draft;
    if (c) {
      const note =
        active && c.kid !== active.kid
          ? ` The active key is now ${quote(active.kid)}: the next steps sign with it.`
          : '';
      d = draft(
        'done',
        `flow sign-in, obj ${quote(c.obj)}, sub ${quote(c.sub)}, signed by kid ${quote(c.kid)}.${note}`,
        {
          at: c.at,
        },
      );
      const exp = c.payload.exp;
      d.facts.push(
        { label: 'obj', value: c.obj },
        { label: 'sub', value: c.sub },
        { label: 'kid', value: c.kid },
        {
          label: 'exp',
          value: typeof exp === 'number' ? new Date(exp * 1000).toISOString() : String(exp),
        },
      );
    } else {
      d = draft(
        'pending',
        `Not composed yet: obj ${quote(facts.obj)} (a test customer of the bank endpoints), sub ${quote(facts.sub)}.`,
      );
    }
    d.action = 'Compose a bank JWT';
    drafts.compose = d;
  }

  // 4. authenticate: a 200 with a session_token for the active key; the last refusal explained.
  {
    const auths = exchanges.filter((e) => e.operation === 'authenticate');
    const last = auths[0] ?? null;
    const okActive = auths.find((e) => e.ok && active !== null && e.signing_kid === active.kid) ?? null;
    let d: Draft;
    if (last && !last.ok && (!okActive || later(last.at, okActive.at))) {
      d = draft('failed', `POST …/jwk/authenticate with kid ${quote(last.signing_kid ?? '?')} was refused.`, {
        reason: serviceAnswer(last),
        fix:
          last.response?.status === 401 && drafts.register.state !== 'done'
            ? `Register the JWK first: run step 2 (${
                sandbox
                  ? 'the console registers the active key with the sandbox'
                  : 'send it to the service’s onboarding, or register it with PUT …/jwk/{jwk_guid} signed by a key already registered'
              }), then authenticate again.`
            : (last.explanation ?? 'See the exchange on the Service page.'),
        at: last.at,
        event_ids: [last.id],
      });
    } else if (okActive) {
      d = draft(
        'done',
        `The service answered ${okActive.response?.status ?? 200} with a session_token for kid ${quote(okActive.signing_kid ?? '')}.`,
        { at: okActive.at, event_ids: [okActive.id] },
      );
      const report = facts.session?.exchange_id === okActive.id ? facts.session.report : null;
      if (report) {
        const passed = report.checks.filter((c) => c.status === 'passed').length;
        const failed = report.checks.filter((c) => c.status === 'failed').length;
        d.facts.push({
          label: 'session_token checks',
          value: `${passed} passed, ${failed} failed, ${report.checks.length - passed - failed} skipped`,
        });
      }
    } else if (last?.ok) {
      d = draft(
        'pending',
        `Authenticated with kid ${quote(last.signing_kid ?? '?')}; the active key is now ${quote(env.active_kid ?? '?')}: authenticate again.`,
        { at: last.at },
      );
    } else {
      d = draft('pending', 'Not checked with the service yet.');
    }
    d.action = 'Authenticate';
    drafts.authenticate = d;
  }

  // 5. The callback endpoints, and the service knowing where they are.
  {
    let d: Draft;
    const url = facts.bankUrl;
    if (sandbox) {
      const cp = facts.sandbox?.counterparty ?? null;
      if (!url) {
        d = draft('failed', 'The bank endpoints are not listening.', {
          reason: 'no bank endpoints listener in this process',
          fix: 'Start them: the desktop app and `dets-console serve` do (--bank-port).',
        });
      } else if (!cp) {
        d = draft(
          'pending',
          `The bank endpoints listen at ${url}; the sandbox is given the URL once the bank is onboarded (step 2).`,
        );
      } else {
        const stale = (['bank_auth_url', 'bank_sender_url', 'bank_receiver_url'] as const).filter(
          (f) => cp[f] !== url,
        );
        d =
          stale.length === 0
            ? draft('done', `The sandbox calls the bank endpoints at ${url} (callbacks and notifications).`, {
                at: facts.attempts.callbacks?.ok ? facts.attempts.callbacks.at : cp.created_at,
              })
            : stale.every((f) => cp[f] === null)
              ? draft(
                  'pending',
                  `The bank endpoints listen at ${url}; the sandbox does not know where to call them yet.`,
                  {
                    fix: 'Run this step: the console gives the sandbox the URL (no typing: it knows its own listener).',
                  },
                )
              : draft(
                  'pending',
                  `The bank endpoints listen at ${url}, but the sandbox has ${stale.map((f) => `${f} ${cp[f] ?? 'unset'}`).join(', ')}.`,
                  { fix: 'Run this step: the console gives the sandbox the current URL.' },
                );
      }
      d.action = 'Give the sandbox the bank URL';
    } else {
      d = reachStep(facts.reach, since);
      d.action = 'Test from outside';
      d.action_input = 'bank_url';
    }
    if (url && sandbox) d.facts.push({ label: 'bank URL', value: url });
    drafts.callbacks = d;
  }

  // 6. The sign-in: a GET /user_auth that passed every check: the event's one verdict, failed_check,
  // the token's and the answer judge's on what was answered (the console's own answer or the
  // forward target's, issue 24). forward_ok covers events stored before the answer judge.
  {
    const cbs = facts.callbacks.filter((c) => since(c.at));
    const passed =
      cbs.find((c) => c.status === 200 && c.failed_check === null && c.forward_ok !== false) ?? null;
    const failedCb =
      cbs.find((c) => !(c.status === 200 && c.failed_check === null && c.forward_ok !== false)) ?? null;
    const failedTrace = facts.traces.find((t) => t.kind === 'sign-in' && since(t.at) && !t.ok) ?? null;
    const lastTrace = facts.traces.find((t) => t.kind === 'sign-in' && since(t.at)) ?? null;
    let d: Draft;
    if (failedTrace && failedTrace === lastTrace && later(traceEnd(failedTrace), passed?.at)) {
      const f = traceFailure(failedTrace);
      d = draft('failed', `The sign-in stopped at ${f.id}.`, {
        reason: f.detail,
        fix: TRACE_FIXES[f.id] ?? 'See the trace on the Sandbox page.',
        at: failedTrace.at,
        event_ids: failedCb && later(failedCb.at, passed?.at) ? [failedCb.id] : [],
      });
    } else if (failedCb && later(failedCb.at, passed?.at)) {
      const check = failedCb.failed_check;
      d = draft('failed', `GET /user_auth answered ${failedCb.status ?? '?'}.`, {
        reason: check
          ? `check ${check} failed${failedCb.detail ? `: ${failedCb.detail}` : ''}`
          : (failedCb.detail ?? `the answer was ${failedCb.status ?? 'missing'}`),
        fix: (check && CHECK_FIXES[check]) ?? 'See the callback on the Callbacks page.',
        at: failedCb.at,
        event_ids: [failedCb.id],
      });
    } else if (passed) {
      d = draft(
        'done',
        `The service called GET /user_auth with X-Session-ID; every check passed and the bank answered 200${passed.duration_ms !== null ? ` in ${Math.round(passed.duration_ms)} ms` : ''}.`,
        { at: passed.at, event_ids: [passed.id] },
      );
      d.facts.push({ label: 'obj', value: passed.obj ?? '' }, { label: 'sub', value: passed.sub ?? '' });
    } else if (sandbox) {
      d = draft('pending', 'No sign-in yet.');
    } else if (drafts.callbacks.state !== 'done') {
      d = draft('pending', UNREACHED);
    } else {
      d = draft(
        'waiting',
        `Waiting for the service to call GET ${facts.bankUrl ?? '{bank_auth_url}'}/user_auth.`,
        {
          waiting_for: `the service calling GET /user_auth with X-Session-ID for obj ${quote(facts.obj)}, after the bank's request with its JWT (spec 4.4 #1, #5–7)`,
        },
      );
    }
    if (facts.outside && facts.outside.callbacks + (sandbox ? facts.outside.traces : 0) > 0) {
      d.facts.push({
        label: 'other traffic',
        value: `${facts.outside.callbacks} other /user_auth callback(s)${sandbox ? ` and ${facts.outside.traces} other sandbox trace(s)` : ''} since the reset: shown on the Callbacks and Sandbox pages, not the walkthrough's, so they do not decide this step`,
      });
    }
    d.action = sandbox ? 'Run the sign-in' : 'Check again';
    drafts['sign-in'] = d;
  }

  // 7. Notifications: one stored 200 per route.
  {
    const notes = facts.notifications.filter((n) => since(n.at));
    const good = (n: NotificationFact) => n.status === 200 && n.outcome !== 'rejected';
    const received: NotifyRoute[] = [];
    const failed: string[] = [];
    const ids: string[] = [];
    let at: string | null = null;
    for (const route of NOTIFY_ROUTES) {
      const mine = notes.filter((n) => n.route === route);
      const ok = mine.find(good);
      const last = mine[0];
      // The walkthrough's own notifications (sandbox): its latest attempt per route decides. A real
      // service's are not the walkthrough's to send: a route once received stays received, and a
      // refused POST (from anyone) fails it only while nothing good has arrived.
      const refusedLast = sandbox
        ? last && !good(last) && later(last.at, ok?.at)
        : last && !ok && !good(last);
      if (refusedLast && last) {
        failed.push(`${route}: answered ${last.status ?? '?'} (${last.outcome ?? 'not stored'})`);
        ids.push(last.id);
      } else if (ok) {
        received.push(route);
        ids.push(ok.id);
        if (at === null || later(ok.at, at)) at = ok.at;
      }
    }
    const lastReceived = at;
    const failedTrace = facts.traces.find((t) => t.kind === 'notify' && since(t.at) && !t.ok) ?? null;
    const lastNotify = facts.traces.find((t) => t.kind === 'notify' && since(t.at)) ?? null;
    let d: Draft;
    if (failed.length > 0) {
      d = draft('failed', `The bank endpoints refused ${failed.length} notification(s).`, {
        reason: failed.join('; '),
        fix: 'A notification is {"transaction_id": "<uuid>"} answered 200 (spec 4.3): see the Notifications page, and the Bank page for behaviours or forward mode.',
        event_ids: ids,
      });
    } else if (failedTrace && failedTrace === lastNotify && later(traceEnd(failedTrace), lastReceived)) {
      const f = traceFailure(failedTrace);
      d = draft('failed', 'The sandbox could not deliver a notification.', {
        reason: f.detail,
        fix: TRACE_FIXES[f.id] ?? 'See the trace on the Sandbox page.',
        at: failedTrace.at,
      });
    } else if (received.length === NOTIFY_ROUTES.length) {
      d = draft('done', 'pay-in, pay-out and transfer were each stored and answered 200.', {
        at,
        event_ids: ids,
      });
    } else {
      const missing = NOTIFY_ROUTES.filter((r) => !received.includes(r));
      const got = received.length > 0 ? `Received ${received.join(', ')}; ` : '';
      d = sandbox
        ? draft('pending', `${got}not yet ${missing.join(', ')}.`, { event_ids: ids })
        : drafts.callbacks.state !== 'done'
          ? draft('pending', `${got}${UNREACHED}`, { event_ids: ids })
          : draft(
              'waiting',
              `${got}${got ? 'waiting' : 'Waiting'} for ${missing.join(', ')} from the service.`,
              {
                waiting_for: `the service's ${missing.join(', ')} notification(s) at ${facts.bankUrl ?? '{bank url}'}${facts.notifyPrefix ?? '/api/svc/notify'}/…`,
                event_ids: ids,
              },
            );
    }
    for (const route of NOTIFY_ROUTES) {
      d.facts.push({ label: route, value: received.includes(route) ? 'received' : 'not yet' });
    }
    if (sandbox && facts.outside && facts.outside.notifications > 0) {
      d.facts.push({
        label: 'other traffic',
        value: `${facts.outside.notifications} other notification(s) since the reset: on the Notifications page, not the walkthrough's, so they do not decide this step`,
      });
    }
    d.action = sandbox ? 'Send pay-in, pay-out and transfer' : 'Check again';
    drafts.notifications = d;
  }

  // 8. Rotation: the next key registered, proven and active. The proof is the rotation's own
  // record (the `service.rotated` event, from the walkthrough or the Service page): a key that
  // was merely registered by hand and authenticated with is not a rotation of the old one.
  {
    const r =
      facts.rotation && facts.rotation.environment_id === env.id && since(facts.rotation.finished_at)
        ? facts.rotation
        : null;
    let d: Draft;
    if (r && r.state === 'failed') {
      const step = r.steps.find((s) => s.status === 'failed');
      const put = step?.exchange_id ? exchanges.find((e) => e.id === step.exchange_id) : undefined;
      d = draft(
        'failed',
        `The rotation from ${quote(r.from_kid)} stopped at "${step?.title ?? 'a step'}"; ${quote(r.from_kid)} is still active.`,
        {
          reason:
            put && !put.ok
              ? `${serviceAnswer(put)} (${step?.detail ?? ''})`
              : (step?.detail ?? 'a step failed'),
          fix: 'Fix the cause and run this step again: it resumes with the same next key.',
          at: r.finished_at,
          event_ids: step?.exchange_id ? [step.exchange_id] : [],
        },
      );
    } else if (r) {
      const to = r.to_kid ?? '?';
      d = draft(
        'done',
        `Rotated from ${quote(r.from_kid)} to ${quote(to)}: registered with PUT, proven with authenticate, now active.`,
        {
          at: r.finished_at,
          event_ids: r.steps.flatMap((s) => (s.exchange_id ? [s.exchange_id] : [])),
        },
      );
      d.facts.push({ label: 'from', value: r.from_kid }, { label: 'to', value: to });
    } else {
      const when =
        active?.expires != null
          ? `The active key expires on ${active.expires} (in ${active.expires_in_days} days).`
          : active
            ? 'The active key has no expiry date.'
            : 'No active key yet.';
      d = draft('pending', `${when} Rotate it before then.`);
    }
    if (active?.expires && d.state !== 'pending') {
      d.facts.push({
        label: 'active key expires',
        value: `${active.expires} (in ${active.expires_in_days} days)`,
      });
    }
    void nowMs;
    d.action = 'Rotate the key';
    drafts.rotate = d;
  }

  // A failed action that left no event behind (a locked vault, a missing counterparty_guid) is
  // the step's latest word until something newer proves the step.
  for (const id of WALKTHROUGH_STEP_IDS) {
    const attempt = facts.attempts[id];
    const d = drafts[id];
    if (attempt && !attempt.ok && since(attempt.at) && d.state !== 'failed' && later(attempt.at, d.at)) {
      Object.assign(d, {
        state: 'failed',
        summary: 'The last attempt failed.',
        reason: attempt.reason,
        fix: attempt.fix,
        at: attempt.at,
      });
    }
  }

  return WALKTHROUGH_STEP_IDS.map((id) => {
    const text = STEP_TEXT[id];
    const d = drafts[id];
    const needs = d.state === 'done' ? null : (text.needs.find((n) => drafts[n].state !== 'done') ?? null);
    return {
      id,
      number: text.number,
      title: text.title,
      explanation: text.explanation,
      spec: text.spec,
      needs,
      ...d,
    };
  });
}

/** A fact list entry, for callers that add their own. */
export const fact = (label: string, value: string): StepFact => ({ label, value });
