/**
 * Each step's one action, done with the same services the pages use (keys, environments, the
 * service client, the sandbox, the bank endpoints), so what the walkthrough proves is what the
 * console really does. An action never marks a step done itself: the state is derived afterwards
 * from the events the action caused. What failed before any event could record it (a locked
 * vault, a missing counterparty_guid) is kept as the step's last attempt, with the fix.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import type { KeyInfo } from '../../contract/schemas/keys';
import type { Environment } from '../../contract/schemas/service';
import type { ComposedToken, RunStepInput, StepId } from '../../contract/schemas/walkthrough';
import type { CoreDeps } from '../core-types';
import type { Sandbox } from '../sandbox';
import { DEFAULT_OBJ, DEFAULT_SUB } from './facts';
import { NOTIFY_ROUTES } from './fact-types';
import { quote, serviceAnswer } from './derive/shared';
import { adoptDefaults } from './env-defaults';
import { messageOf } from './message';
import { rehearseStep } from './rehearse';
import { OWN_KEEP, type Own, type Progress, type ProgressStore } from './progress';
import { specJwk } from '../service';
import { defaultExpiry } from '../keys';

export interface ActionResult {
  ok: boolean;
  message: string;
}

/** A bank JWT is recomposed when it has less than this left. */
const FRESH_SECONDS = 60;
/** The walkthrough's tokens live this long (the sandbox accepts up to an hour). */
const TOKEN_TTL_SECONDS = 600;

/** What to do when an action fails before the service or the bank could record anything. */
const THROWN_FIXES: Record<StepId, string> = {
  key: 'Unlock or set up the vault (the banner at the top), then create the key again.',
  register: 'Create the key first (step 1); for the sandbox, the sandbox must be running.',
  compose: 'Create the key first (step 1), and unlock the vault if it is locked.',
  authenticate: 'Register the key first (step 2: it saves the counterparty_guid), then authenticate again.',
  callbacks: 'Register with the service first (step 2), and start the bank endpoints.',
  'sign-in': 'Register (step 2) and compose a JWT (step 3) first.',
  notifications: 'Register (step 2) and give the service the bank URL (step 5) first.',
  rotate: 'Authenticate with the current key first (step 4): rotation is signed by it.',
};

export interface ActionContext {
  deps: CoreDeps;
  progress: ProgressStore;
  env: Environment;
  input: z.output<typeof RunStepInput>;
  now: () => number;
}

async function activeKey(ctx: ActionContext): Promise<KeyInfo> {
  const kid = ctx.env.active_kid;
  if (!kid)
    throw new ConsoleError('BAD_ARGUMENT', 'this environment has no signing key yet: create it (step 1)', {
      field: 'active_kid',
    });
  return ctx.deps.services.keys().get(kid);
}

/** The customer the walkthrough signs in: the chosen one, the bank's first, or a default test customer. */
async function ensureCustomer(ctx: ActionContext, p: Progress): Promise<{ obj: string; sub: string }> {
  const bank = await ctx.deps.bank();
  const customers = await bank.customers();
  const wanted = p.obj ?? ctx.env.default_obj;
  const chosen =
    (wanted ? customers.find((c) => c.obj === wanted) : undefined) ?? (wanted ? undefined : customers[0]);
  if (chosen) return { obj: chosen.obj, sub: chosen.sub ?? p.sub ?? ctx.env.default_sub ?? DEFAULT_SUB };
  const obj = wanted ?? DEFAULT_OBJ;
  const sub = p.sub ?? ctx.env.default_sub ?? DEFAULT_SUB;
  // A test customer of the bank endpoints, so /user_auth can answer (spec 2.5); its secret key is
  // random and sealed by the vault, never shown.
  await bank.saveCustomer({
    obj,
    sub,
    external_id: 'walkthrough-customer-0001',
    phone: '+4915112345678',
    key: randomBytes(18).toString('base64url'),
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: 'ada.lovelace@example.com',
  });
  return { obj, sub };
}

async function compose(ctx: ActionContext): Promise<ComposedToken> {
  const key = await activeKey(ctx);
  const p = await ctx.progress.read(ctx.env.id);
  const { obj, sub } = await ensureCustomer(ctx, p);
  const signed = await ctx.deps.services.composer().sign({ kid: key.kid, obj, sub, ttl: TOKEN_TTL_SECONDS });
  const composed: ComposedToken = {
    at: new Date(ctx.now()).toISOString(),
    kid: key.kid,
    obj,
    sub,
    token: signed.token,
    header: signed.header,
    payload: signed.payload,
  };
  await ctx.progress.update(ctx.env.id, (q) => {
    q.composed = composed;
    q.obj = obj;
    q.sub = sub;
  });
  await adoptDefaults(ctx.deps, ctx.env, obj, sub);
  return composed;
}

/** The composed JWT when it is signed by the active key and still fresh; else a new one. */
async function freshToken(ctx: ActionContext): Promise<ComposedToken> {
  const p = await ctx.progress.read(ctx.env.id);
  const c = p.composed;
  const exp = typeof c?.payload.exp === 'number' ? c.payload.exp : 0;
  if (c && c.kid === ctx.env.active_kid && exp - ctx.now() / 1000 > FRESH_SECONDS) return c;
  return compose(ctx);
}

function requireGuid(env: Environment): string {
  if (!env.counterparty_guid) {
    throw new ConsoleError(
      'BAD_ARGUMENT',
      'this environment has no counterparty_guid yet: register first (step 2)',
      {
        field: 'counterparty_guid',
      },
    );
  }
  return env.counterparty_guid;
}

/** How long, after the sandbox's sign-in returned, the bank may take to record its callback. */
const RECORD_WAIT_MS = 5000;

/**
 * Watches for the /user_auth the bank endpoints record for the walkthrough's own sign-in (its
 * obj and sub): they record just after answering. `id()` waits (briefly) for it.
 */
function watchCallback(
  deps: CoreDeps,
  token: { obj: string; sub: string },
): { id(): Promise<string | null>; cancel(): void } {
  let found: string | null = null;
  let wake: (() => void) | null = null;
  const off = deps.events.on('events.appended', (e) => {
    if (
      found === null &&
      e.kind === 'callback' &&
      e.path === '/user_auth' &&
      e.obj === token.obj &&
      e.sub === token.sub
    ) {
      found = e.id;
      wake?.();
    }
  });
  return {
    async id() {
      if (found === null) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, RECORD_WAIT_MS);
        });
        clearTimeout(timer);
      }
      off();
      return found;
    },
    cancel: off,
  };
}

/** Keeps what a walkthrough action sent, newest first, bounded (progress.ts `own`). */
function remember(ctx: ActionContext, change: (own: Own) => void): Promise<unknown> {
  return ctx.progress.update(ctx.env.id, (p) => {
    change(p.own);
    p.own.sign_ins = p.own.sign_ins.slice(0, OWN_KEEP);
    p.own.notifications = p.own.notifications.slice(0, OWN_KEEP * NOTIFY_ROUTES.length);
    p.own.exchange_ids = p.own.exchange_ids.slice(0, OWN_KEEP);
  });
}

/**
 * A real environment's steps 6 and 7 wait for the service, which must reach the bank first: the
 * tunnel's probe from outside runs before the wait is claimed (issue 14 item 5).
 */
async function reachedFirst(ctx: ActionContext, waiting: string): Promise<ActionResult> {
  const probe = await ctx.deps.tunnel.probe();
  return probe.outcome === 'reachable'
    ? { ok: true, message: `reachable from outside in ${probe.rtt_ms ?? '?'} ms; ${waiting}` }
    : { ok: false, message: `the service cannot reach the bank endpoints yet: ${probe.detail}` };
}

const ACTIONS: Record<StepId, (ctx: ActionContext) => Promise<ActionResult>> = {
  async key(ctx) {
    const keys = ctx.deps.services.keys();
    const current = ctx.env.active_kid ? await keys.get(ctx.env.active_kid).catch(() => null) : null;
    const all = await keys.list();
    // "active" is the key store's default signer: take it over only when this environment's key
    // holds it (or none does), so another environment's key is not retired behind its back.
    const status =
      !all.some((k) => k.status === 'active') || current?.status === 'active' ? 'active' : 'next';
    const key = await keys.generate({
      label: `walkthrough key (${ctx.env.name})`,
      // Keys the walkthrough creates expire in a year (DEFAULT_KEY_DAYS): step 8 rotates before then.
      expires: defaultExpiry(ctx.now()),
      status,
    });
    await ctx.deps.services.environments().save({ id: ctx.env.id, active_kid: key.kid });
    return {
      ok: true,
      message: `generated kid ${quote(key.kid)} (${key.alg}, ${key.bits} bits, expires ${key.expires}); it is this environment's active key`,
    };
  },

  async register(ctx) {
    const key = await activeKey(ctx);
    if (ctx.env.kind === 'real') {
      const guid = ctx.input.counterparty_guid;
      if (!guid) {
        throw new ConsoleError(
          'BAD_ARGUMENT',
          'enter the counterparty_guid the service’s onboarding answered for this JWK',
          { field: 'counterparty_guid' },
        );
      }
      await ctx.deps.services.environments().save({ id: ctx.env.id, counterparty_guid: guid.toLowerCase() });
      return { ok: true, message: `counterparty_guid ${guid} saved on ${ctx.env.name}` };
    }
    const sb = await ctx.deps.sandbox();
    const status = await sb.status();
    const guid = ctx.env.counterparty_guid?.toLowerCase() ?? null;
    const cp = status.counterparties.find((c) => c.counterparty_guid === guid);
    if (cp) {
      if (cp.jwks.some((j) => j.jwk.kid === key.kid && j.jwk.n === key.public_jwk.n)) {
        return {
          ok: true,
          message: `kid ${quote(key.kid)} is already registered for ${cp.counterparty_guid}`,
        };
      }
      // Spec 4.1 #1: a new JWK is registered with PUT, signed by a key already registered.
      const keys = await ctx.deps.services.keys().list();
      const signer = keys.find(
        (k) =>
          k.kid !== key.kid &&
          (k.expires_in_days === null || k.expires_in_days >= 0) &&
          cp.jwks.some((j) => j.jwk.kid === k.kid && j.jwk.n === k.public_jwk.n),
      );
      if (signer) {
        const exchange = await ctx.deps.services
          .service()
          .updateJwk({ kid: key.kid, signing_kid: signer.kid });
        return exchange.ok
          ? {
              ok: true,
              message: `registered kid ${quote(key.kid)} with PUT …/jwk/${exchange.jwk_guid}, signed by ${quote(signer.kid)}`,
            }
          : { ok: false, message: serviceAnswer(exchange) };
      }
    }
    // Onboarding (spec 5.2; the sandbox's stand-in) with the initial JWK. The bank's URLs are
    // step 5's: the walkthrough shows them being given to the service, as a real onboarding does.
    const created = await sb.onboard({ jwk: specJwk(key) });
    await ctx.deps.services
      .environments()
      .save({ id: ctx.env.id, counterparty_guid: created.counterparty_guid });
    return {
      ok: true,
      message: `onboarded: counterparty_guid ${created.counterparty_guid}, jwk_guid ${created.jwk_guid}`,
    };
  },

  async compose(ctx) {
    const c = await compose(ctx);
    return {
      ok: true,
      message: `composed a bank JWT for obj ${quote(c.obj)}, sub ${quote(c.sub)}, kid ${quote(c.kid)}`,
    };
  },

  async authenticate(ctx) {
    requireGuid(ctx.env);
    const token = await freshToken(ctx);
    const result = await ctx.deps.services.service().authenticate({ token: token.token });
    await remember(ctx, (own) => own.exchange_ids.unshift(result.exchange.id));
    if (result.session_token) {
      await ctx.progress.update(ctx.env.id, (p) => {
        p.session = {
          exchange_id: result.exchange.id,
          token: result.session_token as string,
          report: result.session_report,
        };
      });
    }
    return result.exchange.ok
      ? { ok: true, message: 'the service answered a session_token' }
      : { ok: false, message: serviceAnswer(result.exchange) };
  },

  async callbacks(ctx) {
    const listener = ctx.deps.listeners().bank;
    if (ctx.env.kind === 'sandbox') {
      if (!listener) {
        throw new ConsoleError('CONFLICT', 'the bank endpoints are not listening in this process');
      }
      const guid = requireGuid(ctx.env);
      await (
        await ctx.deps.sandbox()
      ).updateCounterparty({
        counterparty_guid: guid,
        bank_auth_url: listener,
        bank_sender_url: listener,
        bank_receiver_url: listener,
      });
      return { ok: true, message: `the sandbox calls the bank endpoints at ${listener}` };
    }
    // A typed URL is this environment's public URL (the tunnel service's rule 3: a running
    // tunnel or --public-url still wins, and the state says which is in force).
    if (ctx.input.bank_url) {
      await ctx.deps.services.environments().save({ id: ctx.env.id, public_url: ctx.input.bank_url });
    }
    if (!listener) throw new ConsoleError('CONFLICT', 'the bank endpoints are not listening in this process');
    const probe = await ctx.deps.tunnel.probe();
    return { ok: probe.outcome === 'reachable', message: probe.detail };
  },

  async 'sign-in'(ctx) {
    if (ctx.env.kind === 'real') {
      return reachedFirst(
        ctx,
        'waiting for the service team to start a sign-in on their side (the message to send them is on this step); the service then calls GET /user_auth',
      );
    }
    const guid = requireGuid(ctx.env);
    const token = await freshToken(ctx);
    const watch = watchCallback(ctx.deps, token);
    let result: Awaited<ReturnType<Sandbox['signIn']>>;
    try {
      result = await (await ctx.deps.sandbox()).signIn({ counterparty_guid: guid, token: token.token });
    } catch (err) {
      watch.cancel();
      throw err;
    }
    // The callback exists only when the sandbox reached the bank (a late answer is recorded too).
    const reached = result.trace.steps.some((st) => st.id === 'reachable' && st.status === 'passed');
    const callbackId = reached ? await watch.id() : (watch.cancel(), null);
    await remember(ctx, (own) =>
      own.sign_ins.unshift({ at: result.trace.at, trace_id: result.trace.id, callback_id: callbackId }),
    );
    return result.ok
      ? { ok: true, message: 'the sandbox called /user_auth and every check passed' }
      : { ok: false, message: `the sign-in stopped at ${result.failed ?? 'a step'}` };
  },

  async notifications(ctx) {
    if (ctx.input.rehearse_retry) return rehearseStep(ctx.deps, ctx.progress, ctx.env, ctx.now);
    if (ctx.env.kind === 'real') {
      return reachedFirst(
        ctx,
        'waiting for the service team to send the notifications on their side (the message to send them is on this step)',
      );
    }
    const guid = requireGuid(ctx.env);
    const sb = await ctx.deps.sandbox();
    const problems: string[] = [];
    for (const event of NOTIFY_ROUTES) {
      const r = await sb.notify({
        counterparty_guid: guid,
        event,
        ...(event === 'transfer' ? { to: 'receiver' as const } : {}),
      });
      await remember(ctx, (own) =>
        own.notifications.unshift({
          at: r.trace.at,
          route: event,
          transaction_id: r.transaction_id,
          trace_id: r.trace.id,
        }),
      );
      if (r.status !== 200) problems.push(`${event}: ${r.status ?? r.error ?? 'no answer'}`);
    }
    return problems.length === 0
      ? { ok: true, message: 'pay-in, pay-out and transfer sent; the bank endpoints answered 200 to each' }
      : { ok: false, message: problems.join('; ') };
  },

  async rotate(ctx) {
    // A rotation that stopped earlier resumes with the same next key (it may be registered already).
    const last = (await ctx.progress.read(ctx.env.id)).rotation;
    const resume =
      last?.state === 'failed' && last.to_kid && last.from_kid === ctx.env.active_kid
        ? await ctx.deps.services
            .keys()
            .get(last.to_kid)
            .then((k) => (k.status === 'next' ? k.kid : null))
            .catch(() => null)
        : null;
    const rotation = await ctx.deps.services
      .service()
      .rotate(resume ? { next_kid: resume } : { expires: defaultExpiry(ctx.now()) });
    await ctx.progress.update(ctx.env.id, (p) => {
      p.rotation = rotation;
    });
    const failed = rotation.steps.find((s) => s.status === 'failed');
    return rotation.state === 'done'
      ? { ok: true, message: `rotated from ${quote(rotation.from_kid)} to ${quote(rotation.to_kid ?? '?')}` }
      : { ok: false, message: failed?.detail ?? 'the rotation stopped' };
  },
};

/**
 * Runs a step's action. Errors thrown before anything reached the service or the bank are kept
 * as the step's last attempt (with the fix) and answered as a failed result, not thrown: the page
 * shows them on the step.
 */
export async function runAction(ctx: ActionContext): Promise<ActionResult> {
  const step = ctx.input.step;
  try {
    const result = await ACTIONS[step](ctx);
    await ctx.progress.update(ctx.env.id, (p) => {
      p.attempts[step] = { at: new Date(ctx.now()).toISOString(), ok: true, reason: null, fix: null };
    });
    return result;
  } catch (err) {
    // Bad arguments of the method itself are the caller's to fix, not the step's.
    const reason = messageOf(err);
    await ctx.progress.update(ctx.env.id, (p) => {
      p.attempts[step] = {
        at: new Date(ctx.now()).toISOString(),
        ok: false,
        reason,
        fix: THROWN_FIXES[step],
      };
    });
    return { ok: false, message: reason };
  }
}
