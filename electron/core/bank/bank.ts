/**
 * The bank's side (issue 5; DESIGN.md "Bank endpoints"; spec 4.2, 4.3, 5, 7, 8): GET /user_auth,
 * /key and /external_id verifying X-Session-ID (verify.ts) and answering from the test customers;
 * POST {prefix}/pay-in, /pay-out and /transfer storing each notification durably before its 200;
 * every request recorded as an event; deliberate misbehaviours; forward mode.
 *
 * Threat model: everything a request carries is untrusted. The listener binds where the host
 * says (127.0.0.1 by default), bounds headers (431), bodies (413) and time (timeouts in
 * server.ts); a slow client holds only its own connection. The customers' secret keys leave the
 * process only in the callbacks' answers; in events they are masked to their length, and
 * Authorization and Cookie headers are masked (X-Session-ID is kept: it is what is under test).
 *
 * Durability: a notification's event is appended with `durable: true` (fsync'd) before its 200,
 * so an acknowledged notification survives a crash. Callback events are appended after the
 * answer, without waiting for the disk: the 1 s budget is the service's, not ours to spend.
 *
 * Speed (issue 11): a callback costs about its one RSA verification. Its event is built and
 * appended only once the answers of the current turn of the event loop are written
 * (setImmediate, in a batch), and it is small: the raw token (in the request's headers), the
 * failed check and its detail, the summary, the response as recorded and the JWKS state; the
 * decoded token and the list of checks are rebuilt when the event is read (callback-detail.ts).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import { ServiceJwksSetting, type Customer, type CustomerView } from '../../contract/schemas/bank';
import type { EventDetail, EventSummary } from '../../contract/schemas/events';
import { blankEvent, type NewEvent } from '../store';
import { createCustomerDirectory, parseCustomers, toView } from './customers';
import { CALLBACK_BUDGET_MS, forwardRequest, type ForwardOutcome } from './forward';
import { JwksClient, type JwksState } from '../jwt';
import { answerOfExchange, judgeNotificationAnswer, type AnswerRoute } from '../answer';
import { judgeCallback } from './callback-verdict';
import { rebuildCallbackDetail, recordVerdict } from './callback-detail';
import { checkBehaviours, checkNotifyPrefix, createSettingsStore, type BehavioursValue } from './settings';
import {
  KID_WAIT_MS,
  KID_WAIT_NOTE,
  REPLAY_HEADER,
  judgeNotificationBody,
  originRefusedEvent,
  recordHeaders,
} from './intake';
import type { BankEndpoints, BankOptions } from './types';
import { verifySessionToken, type Verdict } from './verify';
import {
  type ClientErrorInfo,
  exchange,
  HttpError,
  originRefusal,
  readBody,
  refusedRequest,
  type RunningServer,
  startServer,
} from '../http';

type CallbackPath = '/user_auth' | '/key' | '/external_id';
const CALLBACK_PATHS: readonly string[] = ['/user_auth', '/key', '/external_id'];
const NOTIFY_EVENTS: readonly string[] = ['pay-in', 'pay-out', 'transfer'];
const NO_URL_HINT =
  'start the sandbox, give --service-jwks-url, or set the active environment (its JWKS is {base_url}/api/v1/.well-known/jwks.json)';

interface Reply {
  status: number;
  headers: Record<string, string>;
  /** The body as sent. */
  text: string;
  /**
   * The body as recorded (secrets masked): computed when the event is built, after the answer
   * is written, so masking costs the request nothing.
   */
  recorded: () => string | null;
  /** The headers as sent, Content-Length included, when made with the reply (else send adds it). */
  wire?: Record<string, string>;
  /** The value `text` is the JSON of, when the bank built it: judged as it is (callback-verdict.ts). */
  value?: unknown;
}

const masked = (key: string) => `<masked: ${[...key].length} characters>`;

/** A reply's headers as they go on the wire: its own, and the Content-Length of its text. */
const wireHeaders = (headers: Record<string, string>, text: string): Record<string, string> => ({
  ...headers,
  'Content-Length': String(Buffer.byteLength(text)),
});

function jsonReply(
  status: number,
  body: unknown,
  maskKey = false,
  extra: Record<string, string> = {},
): Reply {
  const text = JSON.stringify(body);
  let masking: string | undefined;
  const recorded =
    maskKey && body && typeof body === 'object' && typeof (body as { key?: unknown }).key === 'string'
      ? () => (masking ??= JSON.stringify({ ...body, key: masked((body as { key: string }).key) }))
      : () => text;
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...extra,
  };
  return {
    status,
    headers,
    text,
    recorded,
    wire: wireHeaders(headers, text),
    value: body,
  };
}

function errorReply(
  status: number,
  error: string,
  detail: string,
  extra: Record<string, string> = {},
): Reply {
  return jsonReply(status, { error, detail }, false, extra);
}

/** A backend's answer, passed on as it is; a `key` in a JSON body is masked in the record. */
function passThrough(outcome: ForwardOutcome): Reply {
  const r = outcome.result;
  if (!r.ok) {
    return errorReply(502, 'forward_failed', `the backend at ${outcome.url} did not answer: ${r.message}`);
  }
  const text = r.body.toString('utf8');
  // Recorded whole: the event store bounds bodies (64 KiB) and keeps the size (http/bounds.ts).
  let recorded = text;
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && typeof (value as { key?: unknown }).key === 'string') {
      recorded = JSON.stringify({ ...value, key: masked((value as { key: string }).key) });
    }
  } catch {
    // not JSON: recorded as it is
  }
  const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
  if (r.headers['content-type']) headers['Content-Type'] = r.headers['content-type'];
  return { status: r.status, headers, text, recorded: () => recorded };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** external_id of exactly 501 symbols (one over spec 8's limit), starting with the real one. */
function longExternalId(base: string): string {
  const chars = [...base].slice(0, 501);
  return chars.join('') + 'x'.repeat(501 - chars.length);
}

/**
 * Builds the bank endpoints: loads `<dataDir>/bank/` (settings, customers), and answers requests
 * through `handle` (for any node:http server) or its own listeners (`listen`).
 *
 * @example
 * const bank = await createBankEndpoints({ dataDir, events, store, pairs, serviceJwksUrl, fetch });
 * const l = await bank.listen({ host: '127.0.0.1', port: 0 });
 */
export async function createBankEndpoints(options: BankOptions): Promise<BankEndpoints> {
  const now = options.now ?? Date.now;
  const dir = path.join(options.dataDir, 'bank');
  const settings = createSettingsStore(dir);
  await settings.load();
  const vault = options.vault;
  const customers = createCustomerDirectory({ dir, sealer: vault ? () => vault.sealer() : undefined });
  await customers.load();

  const servers = new Set<RunningServer>();
  const pending = new Set<Promise<unknown>>();
  const replayWaiters = new Map<string, (summary: EventSummary | Error) => void>();

  const statusNow = () => {
    const s = settings.get();
    const j = jwks.state();
    const warnings = [customers.warning(), settings.warning()].filter((w): w is string => w !== null);
    return {
      // Issue 13 item 3: the listener's URL is part of every status, so a `bank.changed` after a
      // settings change never tells the page "not running" while the listener answers.
      url: [...servers][0]?.url ?? null,
      notify_path_prefix: s.notify_path_prefix,
      service_jwks_url: j.url,
      service_jwks_setting: s.service_jwks_url,
      jwks: {
        kids: j.kids,
        fetched_at: j.fetched_at,
        stale: j.stale,
        error: j.error,
        rejected: j.rejected,
        duplicates: j.duplicates,
      },
      customers: customers.count(),
      behaviours: s.behaviours,
      forward: s.forward,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  };
  const changed = () => {
    try {
      options.events.emit('bank.changed', statusNow());
    } catch {
      // a listener's or schema's failure never breaks a request
    }
  };
  // The bank's own setting first (issue 13 item 6: the Conformance page points it at the
  // runner's JWKS), else what the host says (--service-jwks-url, the environment, the sandbox).
  const serviceJwksUrl = async () => settings.get().service_jwks_url ?? (await options.serviceJwksUrl());
  const jwks = new JwksClient({
    url: serviceJwksUrl,
    fetch: options.fetch,
    now,
    onChange: changed,
    waitNote: KID_WAIT_NOTE,
  });

  /**
   * `lean` on a callback's hot path; a recheck shows every check's words. `arrivedAt` (on the
   * `now` clock): a callback waits for a JWKS fetch until KID_WAIT_MS after it arrived, so it is
   * answered by 900 ms (intake.ts); a recheck is not a callback and waits the whole 1 s.
   */
  const verify = (header: string | string[] | undefined, lean = false, arrivedAt?: number) =>
    verifySessionToken(header, {
      lean,
      jwks,
      customer: (obj) => customers.get(obj),
      subsFor: (obj) => options.pairs.subsFor(obj),
      nowSeconds: () => Math.floor(now() / 1000),
      noUrlHint: NO_URL_HINT,
      deadlineMs: arrivedAt === undefined ? now() + CALLBACK_BUDGET_MS : arrivedAt + KID_WAIT_MS,
    });

  /** Appends without waiting for the disk; a replay waiting for this request gets the summary. */
  const recordLater = (event: NewEvent, replay: string | undefined) => {
    const p = options.store.append(event).then(
      (summary) => replayWaiters.get(replay ?? '')?.(summary),
      (err: unknown) =>
        replayWaiters.get(replay ?? '')?.(err instanceof Error ? err : new Error(String(err))),
    );
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  const send = (res: ServerResponse, reply: Reply) => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(reply.status, reply.wire ?? wireHeaders(reply.headers, reply.text));
    res.end(reply.text);
  };

  const behaviourFor = (route: string) => settings.get().behaviours[route];

  // ------------------------------------------------------------------------------- callbacks

  /**
   * A customer's success answer per route, made once and sent again as it is (the body, its
   * masked record and the headers): a callback's answer costs a lookup, not a JSON of the
   * customer (issue 11). A customer changed or imported again is a new object, so an answer is
   * never stale; a behaviour set for the route (Bank page) makes its answer afresh each time.
   */
  const successReplies = new WeakMap<Customer, Partial<Record<CallbackPath, Reply>>>();
  function successReply(route: CallbackPath, c: Customer, b: BehavioursValue[string] | undefined): Reply {
    if (b) return jsonReply(200, successBody(route, c, b), true);
    let byRoute = successReplies.get(c);
    if (!byRoute) successReplies.set(c, (byRoute = {}));
    return (byRoute[route] ??= jsonReply(200, successBody(route, c, undefined), true));
  }

  function successBody(
    route: CallbackPath,
    c: Customer,
    b: BehavioursValue[string] | undefined,
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

  async function answerCallback(
    req: IncomingMessage,
    route: CallbackPath,
    arrivedAt: number,
  ): Promise<{ reply: Reply; verdict: Verdict; forward: ForwardOutcome | null }> {
    const verdict = await verify(req.headers['x-session-id'], true, arrivedAt);
    const b = behaviourFor(route.slice(1));
    const forwardUrl = settings.get().forward.url;
    if (forwardUrl) {
      const token = req.headers['x-session-id'];
      const outcome = await forwardRequest({
        base: forwardUrl,
        path: route,
        method: 'GET',
        headers: typeof token === 'string' ? { 'X-Session-ID': token } : {},
      });
      return { reply: passThrough(outcome), verdict, forward: outcome };
    }
    if (b?.delay_ms) await sleep(b.delay_ms);
    if (b?.status !== undefined) {
      if (b.status >= 200 && b.status < 300 && verdict.customer) {
        return {
          reply: jsonReply(b.status, successBody(route, verdict.customer, b), true),
          verdict,
          forward: null,
        };
      }
      return {
        reply: errorReply(
          b.status,
          'behaviour',
          `a fixed status ${b.status} is set for ${route} (Bank page, behaviours)`,
        ),
        verdict,
        forward: null,
      };
    }
    if (!verdict.ok || !verdict.customer) {
      return {
        reply: jsonReply(401, { error: 'unauthorized', check: verdict.failed, detail: verdict.detail }),
        verdict,
        forward: null,
      };
    }
    return { reply: successReply(route, verdict.customer, b), verdict, forward: null };
  }

  /** A callback answered, waiting for its event to be built (after the turn's answers are written). */
  interface AnsweredCallback {
    /** When the request arrived (ms since the epoch, on the bank's clock). */
    at: number;
    path: string;
    method: string;
    remote: string | null;
    req: IncomingMessage;
    reply: Reply;
    verdict: Verdict | null;
    forward: ForwardOutcome | null;
    /** Milliseconds from arrival to the answer written. */
    duration: number;
    replay: string | undefined;
  }

  let answered: AnsweredCallback[] = [];
  /** Builds and appends every callback event the last turn answered (one setImmediate per turn). */
  const recordAnswered = () => {
    const batch = answered;
    answered = [];
    for (const a of batch) recordLater(callbackEvent(a), a.replay);
  };
  const recordCallback = (a: AnsweredCallback) => {
    if (answered.push(a) === 1) setImmediate(recordAnswered);
  };

  function callbackEvent(a: AnsweredCallback): NewEvent {
    const { req, reply, verdict, forward, duration } = a;
    // One verdict per callback (issue 24): the token's, then the answer judge's on what was
    // answered (the budget included), decided here, once, so every page reads failed_check.
    const judged = verdict
      ? judgeCallback({ route: a.path as AnswerRoute, verdict, reply, forward, durationMs: duration })
      : null;
    // blankEvent's object filled in place, not spread into a new literal: built as a spread, about
    // 250 KB per scavenge at 2,000 callbacks/s outlived two scavenges (promoted into the old
    // generation, where the major collections that stall the loop at a fixed rate reclaim it);
    // filled in place, about 33 KB (V8's --trace-gc-nvp; docs/benchmarks.md). Why a spread does
    // that was not found. The fields and their order (the stored JSON) stay blankEvent's.
    const event = blankEvent('callback', new Date(a.at).toISOString());
    event.path = a.path;
    event.method = a.method;
    event.status = reply.status;
    event.failed_check = judged?.failed ?? null;
    event.obj = verdict?.obj ?? null;
    event.sub = verdict?.sub ?? null;
    event.duration_ms = duration;
    event.warning = judged?.warning ?? null;
    event.remote = a.remote;
    event.request = { method: req.method, url: req.url, headers: recordHeaders(req.headers), body: null };
    event.response = { status: reply.status, headers: reply.headers, body: reply.recorded() };
    // The client's state as it is (a frozen snapshot shared until it changes), not a copy.
    event.jwks = verdict?.jwks.url ? (verdict.jwks as JwksState & { url: string }) : null;
    event.forward = forward
      ? {
          url: forward.url,
          status: forward.result.ok ? forward.result.status : null,
          duration_ms: forward.result.durationMs,
          error: forward.result.ok ? null : forward.result.message,
          verdicts: judged?.forwardVerdicts ?? [],
        }
      : null;
    // The decoded token and the checks are rebuilt on read from the raw token and this.
    if (judged) event.data = recordVerdict(judged.detail);
    return event;
  }

  // --------------------------------------------------------------------------- notifications

  interface NotificationResult {
    reply: Reply;
    /**
     * What the request was, before the store: a readable notification is `accepted`; the store
     * turns it into a `repeat` in the transaction that stores it (repeatCheck), the one place
     * that decides it, and nothing here grows with every transaction_id ever seen.
     */
    outcome: 'accepted' | 'rejected';
    transactionId: string | null;
    bodyText: string | null;
    forward: ForwardOutcome | null;
  }

  async function readNotification(
    req: IncomingMessage,
  ): Promise<
    | { ok: true; id: string; text: string }
    | { ok: false; reply: Reply; id: string | null; text: string | null }
  > {
    let bytes: Buffer;
    try {
      bytes = await readBody(req);
    } catch (err) {
      if (err instanceof HttpError) {
        return {
          ok: false,
          reply: errorReply(err.status, err.code, err.message, err.headers),
          id: null,
          text: null,
        };
      }
      // The client went away mid-body: nobody reads the answer, but the attempt is recorded.
      const why = err instanceof Error ? err.message : String(err);
      return { ok: false, reply: errorReply(400, 'bad_request', why), id: null, text: null };
    }
    // Judged by the body alone, whatever the Content-Type (intake.ts, DESIGN.md).
    const judged = judgeNotificationBody(bytes);
    if (judged.ok) return judged;
    return {
      ok: false,
      reply: errorReply(400, 'bad_request', judged.detail),
      id: judged.id,
      text: judged.text,
    };
  }

  async function answerNotification(req: IncomingMessage, name: string): Promise<NotificationResult> {
    const read = await readNotification(req);
    if (!read.ok) {
      return {
        reply: read.reply,
        outcome: 'rejected',
        transactionId: read.id,
        bodyText: read.text,
        forward: null,
      };
    }
    const b = behaviourFor(name);
    const forwardUrl = settings.get().forward.url;
    if (forwardUrl) {
      const outcomeF = await forwardRequest({
        base: forwardUrl,
        path: req.url?.split('?')[0] ?? '',
        method: 'POST',
        // As the service sent it: none when it sent none.
        headers: req.headers['content-type'] ? { 'Content-Type': req.headers['content-type'] } : {},
        body: read.text,
      });
      outcomeF.verdicts = judgeNotificationAnswer(answerOfExchange(outcomeF.result));
      return {
        reply: passThrough(outcomeF),
        outcome: 'accepted',
        transactionId: read.id,
        bodyText: read.text,
        forward: outcomeF,
      };
    }
    if (b?.delay_ms) await sleep(b.delay_ms);
    const reply: Reply =
      b?.status !== undefined && b.status !== 200
        ? errorReply(
            b.status,
            'behaviour',
            `a fixed status ${b.status} is set for ${name} (Bank page, behaviours)`,
          )
        : { status: 200, headers: {}, text: '', recorded: () => null };
    return { reply, outcome: 'accepted', transactionId: read.id, bodyText: read.text, forward: null };
  }

  // ----------------------------------------------------------------------------------- handle

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const at = now();
    const pathOnly = (req.url ?? '/').split('?', 1)[0] ?? '/';
    const method = req.method ?? 'GET';
    const replay = typeof req.headers[REPLAY_HEADER] === 'string' ? req.headers[REPLAY_HEADER] : undefined;
    const remote = req.socket.remoteAddress ?? null;
    /** Answers a callback (or a stray request) and records it once the turn's answers are out. */
    const answer = (reply: Reply, verdict: Verdict | null, forward: ForwardOutcome | null) => {
      send(res, reply);
      const duration = Math.round((performance.now() - started) * 100) / 100;
      recordCallback({ at, path: pathOnly, method, remote, req, reply, verdict, forward, duration, replay });
    };
    const prefix = settings.get().notify_path_prefix;

    // A web page's request (http/origin.ts): 403 before anything is read, kept compact.
    const refused = originRefusal(req);
    if (refused) {
      req.resume();
      send(res, errorReply(refused.status, refused.error, refused.detail));
      const kind = pathOnly.startsWith(`${prefix}/`) ? 'notification' : 'callback';
      recordLater(originRefusedEvent(refusedRequest(req, refused, at), kind), replay);
      return;
    }

    if (CALLBACK_PATHS.includes(pathOnly)) {
      req.resume();
      if (method !== 'GET') {
        const reply = errorReply(405, 'method_not_allowed', `${pathOnly} takes GET (spec 4.2)`, {
          Allow: 'GET',
        });
        answer(reply, null, null);
        return;
      }
      const { reply, verdict, forward } = await answerCallback(req, pathOnly as CallbackPath, at);
      answer(reply, verdict, forward);
      return;
    }

    if (pathOnly.startsWith(`${prefix}/`)) {
      const name = pathOnly.slice(prefix.length + 1);
      let result: NotificationResult;
      if (!NOTIFY_EVENTS.includes(name)) {
        req.resume();
        result = {
          reply: errorReply(
            404,
            'not_found',
            `no notification ${JSON.stringify(name)}; they are ${NOTIFY_EVENTS.map((n) => `${prefix}/${n}`).join(', ')}`,
          ),
          outcome: 'rejected',
          transactionId: null,
          bodyText: null,
          forward: null,
        };
      } else if (method !== 'POST') {
        req.resume();
        result = {
          reply: errorReply(405, 'method_not_allowed', `${pathOnly} takes POST (spec 4.3)`, {
            Allow: 'POST',
          }),
          outcome: 'rejected',
          transactionId: null,
          bodyText: null,
          forward: null,
        };
      } else {
        result = await answerNotification(req, name);
      }
      const duration = Math.round((performance.now() - started) * 100) / 100;
      const { reply } = result;
      const event: NewEvent = {
        ...blankEvent('notification', new Date(at).toISOString()),
        path: pathOnly,
        method,
        remote,
        status: reply.status,
        outcome: result.outcome,
        transaction_id: result.transactionId,
        duration_ms: duration,
        request: {
          method,
          url: req.url,
          headers: recordHeaders(req.headers),
          body: result.bodyText,
        },
        response: { status: reply.status, headers: reply.headers, body: reply.recorded() },
        forward: result.forward
          ? {
              url: result.forward.url,
              status: result.forward.result.ok ? result.forward.result.status : null,
              duration_ms: result.forward.result.durationMs,
              error: result.forward.result.ok ? null : result.forward.result.message,
              verdicts: result.forward.verdicts,
            }
          : null,
      };
      // Spec 4.3 / DESIGN.md: on disk before the answer, so an acknowledged notification is never lost.
      let summary: EventSummary;
      try {
        summary = await options.store.append(event, { durable: true, repeatCheck: true });
      } catch (err) {
        send(
          res,
          errorReply(
            500,
            'internal',
            `the notification could not be stored: ${err instanceof Error ? err.message : String(err)}`,
          ),
        );
        replayWaiters.get(replay ?? '')?.(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      send(res, reply);
      replayWaiters.get(replay ?? '')?.(summary);
      return;
    }

    req.resume();
    const reply = errorReply(
      404,
      'not_found',
      `no route ${method} ${pathOnly}; the bank endpoints are GET /user_auth, /key, /external_id and POST ${prefix}/pay-in, /pay-out, /transfer`,
    );
    answer(reply, null, null);
  }

  /** A request node:http refused before routing (431 headers, 408 timeout, 400 malformed) is an event too. */
  function recordClientError(info: ClientErrorInfo): void {
    const at = new Date(now()).toISOString();
    recordLater(
      {
        ...blankEvent('callback', at),
        status: info.status,
        remote: info.remote,
        duration_ms: 0,
        warning: `refused before routing: ${info.status}${info.code ? ` (${info.code})` : ''}`,
        response: {
          status: info.status,
          headers: { 'content-type': 'application/json; charset=utf-8' },
          body: info.body,
        },
      },
      undefined,
    );
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    route(req, res).catch((err: unknown) => {
      send(res, errorReply(500, 'internal', err instanceof Error ? err.message : String(err)));
    });
  }

  async function storedCallback(id: string): Promise<EventDetail> {
    const event = await options.store.get(id);
    if (event.kind !== 'callback' || !event.path || !CALLBACK_PATHS.includes(event.path)) {
      throw new ConsoleError(
        'BAD_ARGUMENT',
        `event ${id} is not a callback to /user_auth, /key or /external_id`,
      );
    }
    return event;
  }

  return {
    async status() {
      const before = customers.count();
      await customers.retryLoad();
      if (customers.count() !== before) changed();
      const s = statusNow();
      if (s.service_jwks_url === null) {
        s.service_jwks_url = await serviceJwksUrl().catch(() => null);
      }
      return s;
    },
    async customers() {
      return customers.list().map(toView);
    },
    async saveCustomer(customer): Promise<z.output<typeof CustomerView>> {
      const saved = await customers.save(customer);
      changed();
      return toView(saved);
    },
    async removeCustomer(obj) {
      const removed = await customers.remove(obj);
      if (!removed) throw new ConsoleError('NOT_FOUND', `no customer with obj ${JSON.stringify(obj)}`);
      changed();
    },
    async importCustomers(value) {
      const list = parseCustomers(value);
      await customers.replaceAll(list);
      changed();
      return list.length;
    },
    async exportCustomers() {
      return customers.list().map((c) => ({ ...c }));
    },
    async setBehaviours(behaviours) {
      const next = await settings.update({ behaviours: checkBehaviours(behaviours) });
      changed();
      return next.behaviours;
    },
    async setForward(forward) {
      const url = forward.url === null ? null : forward.url.replace(/\/+$/, '');
      if (url !== null) {
        const parsed = new URL(url);
        if (parsed.search || parsed.hash || parsed.username || parsed.password) {
          throw new ConsoleError('BAD_ARGUMENT', 'forward url must have no query, fragment or credentials');
        }
      }
      const next = await settings.update({ forward: { url } });
      changed();
      return next.forward;
    },
    async setNotifyPrefix(prefix) {
      const next = await settings.update({ notify_path_prefix: checkNotifyPrefix(prefix) });
      changed();
      return next.notify_path_prefix;
    },
    async setServiceJwksUrl(wanted) {
      const parsed = ServiceJwksSetting.safeParse({ url: wanted });
      if (!parsed.success) {
        throw new ConsoleError(
          'BAD_ARGUMENT',
          `service JWKS URL ${JSON.stringify(wanted)} ${parsed.error.issues[0]?.message ?? 'is not valid'}`,
        );
      }
      const previousSetting = settings.get().service_jwks_url;
      const previousUrl = await serviceJwksUrl().catch(() => null);
      await settings.update({ service_jwks_url: parsed.data.url });
      // In force for the next callback, not up to a second later.
      const url = await jwks.rereadUrl();
      changed();
      return { previous_setting: previousSetting, previous_url: previousUrl, setting: parsed.data.url, url };
    },
    async recheck(id) {
      const event = await storedCallback(id);
      const header = event.request?.headers['x-session-id'];
      const verdict = await verify(header);
      // Not stored: the answer was given; this is how the same token fares now.
      return {
        ...event,
        failed_check: verdict.failed,
        obj: verdict.obj,
        sub: verdict.sub,
        warning: verdict.warning,
        checks: verdict.checks,
        token: verdict.decoded ? { header: verdict.decoded.header, payload: verdict.decoded.payload } : null,
        jwks: verdict.jwks.url
          ? {
              url: verdict.jwks.url,
              kids: verdict.jwks.kids,
              fetched_at: verdict.jwks.fetched_at,
              stale: verdict.jwks.stale,
              error: verdict.jwks.error,
            }
          : null,
        data: {
          recheck: {
            at: new Date(now()).toISOString(),
            was: event.failed_check,
            now: verdict.failed,
            note: `rechecked with the current JWKS; the stored event (status ${event.status ?? '?'}) is unchanged`,
          },
        },
      };
    },
    async replay(id) {
      const event = await storedCallback(id);
      if (!options.signServiceToken) {
        throw new ConsoleError(
          'CONFLICT',
          'replay needs the sandbox to sign a fresh X-Session-ID, and it is not available',
        );
      }
      const [server] = servers;
      if (!server)
        throw new ConsoleError('CONFLICT', 'the bank endpoints are not listening: start them first');
      if (!event.obj || !event.sub) {
        throw new ConsoleError(
          'BAD_ARGUMENT',
          `event ${id} has no obj/sub to replay (its token did not carry them)`,
        );
      }
      const token = await options.signServiceToken({ obj: event.obj, sub: event.sub });
      const nonce = randomBytes(12).toString('hex');
      const appended = new Promise<EventSummary>((resolve, reject) => {
        const timer = setTimeout(() => {
          replayWaiters.delete(nonce);
          reject(new ConsoleError('INTERNAL', 'the replayed request was not recorded within 30 s'));
        }, 30_000);
        replayWaiters.set(nonce, (r) => {
          clearTimeout(timer);
          replayWaiters.delete(nonce);
          if (r instanceof Error) reject(r);
          else resolve(r);
        });
      });
      const result = await exchange({
        method: 'GET',
        url: `${server.url}${event.path as string}`,
        headers: { 'X-Session-ID': token, [REPLAY_HEADER]: nonce },
        giveUpMs: 30_000,
        // Its own listener: a self-signed --tls-cert is trusted here, exactly that certificate.
        ...(server.cert ? { pinnedCert: server.cert } : {}),
      });
      if (!result.ok) {
        replayWaiters.get(nonce)?.(new Error(`the replay request failed: ${result.message}`));
      }
      const summary = await appended;
      return rebuildCallbackDetail(await options.store.get(summary.id));
    },
    handle,
    async listen({ intercept, ...where }) {
      // `intercept` answers a few console-level paths (the reachability probe, issue 14) before
      // the bank routes; everything else goes on to them unchanged.
      // A web page's request (Origin) is refused by handle even on those paths (http/origin.ts).
      const handler = intercept
        ? (req: IncomingMessage, res: ServerResponse) => {
            if (req.headers.origin !== undefined || !intercept(req, res)) handle(req, res);
          }
        : handle;
      const server = await startServer(handler, { ...where, onClientError: recordClientError });
      servers.add(server);
      changed();
      return {
        url: server.url,
        port: server.port,
        close: async () => {
          servers.delete(server);
          changed();
          await server.close();
        },
      };
    },
    async close() {
      jwks.stop();
      const closing = [...servers].map((s) => s.close());
      servers.clear();
      await Promise.all(closing);
      recordAnswered();
      await Promise.allSettled([...pending]);
    },
  };
}
