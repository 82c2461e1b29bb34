/**
 * One verdict for every answer (issue 24): a corpus of bank answers, each run through every
 * consumer of the one answer judge (electron/core/answer), asserting one and the same verdict and
 * failed check id everywhere, as verdict-corpus.test.ts does for tokens:
 *
 * - the console's own bank, where a Bank page behaviour produces that answer (its callback's
 *   stored failed_check; `events --json` read by the built CLI at the end),
 * - forward mode, the console's bank passing a valid callback on to a test backend on 127.0.0.1
 *   that answers with the case (the event's failed_check, and its forward verdicts),
 * - the sandbox's sign-in over HTTP, calling a test bank that answers with the case (/user_auth),
 * - the conformance runner against a test bank that answers its valid-token case with the case,
 * - the walkthrough's derivation of step 6 from those stored callbacks (its gatherer's own
 *   reading, callbackFact) and from the sandbox's trace (/user_auth).
 *
 * Every test server listens on 127.0.0.1 port 0 and is closed by the test's cleanup.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BehavioursValue } from '../../../electron/core/bank/settings';
import type { EventSummary } from '../../../electron/contract/schemas/events';
import type { Trace } from '../../../electron/contract/schemas/sandbox';
import type { AnswerRoute } from '../../../electron/core/answer';
import { rebuildCallbackDetail } from '../../../electron/core/bank/callback-detail';
import { startConformance, type ConformanceRunner } from '../../../electron/core/conformance/runner';
import { deriveSteps } from '../../../electron/core/walkthrough/derive';
import { callbackFact } from '../../../electron/core/walkthrough/facts';
import { listEvents } from '../../cli/helpers';
import {
  CUSTOMER,
  cleanup as cleanupBank,
  eventCount,
  get,
  serviceJwt,
  startBank,
  type BankFixture,
} from '../bank/helpers';
import {
  bankJwt,
  call,
  cleanup as cleanupSandbox,
  startWithCounterparty,
  type BankKey,
  type RunningSandbox,
} from '../sandbox/helpers';
import { counterparty, env, facts } from '../walkthrough/fixtures';

/** What a test bank answers. */
interface CaseAnswer {
  status: number;
  /** Content-Type; null: none. */
  type: string | null;
  body: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Accept the request, then close the connection without an answer. */
  hangUp?: boolean;
}

interface Case {
  name: string;
  route: AnswerRoute;
  answer: CaseAnswer;
  /** The failed check every consumer names; null: the answer passes. */
  failed: string | null;
  /** The Bank page behaviour that makes the console's own bank answer the same way, if one can. */
  own?: BehavioursValue[string];
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** The customer's spec 2.5 answer: everything but obj and sub. */
const { obj: _obj, sub: _sub, ...USER } = CUSTOMER;
const json = (body: unknown, over: Partial<CaseAnswer> = {}): CaseAnswer => ({
  status: 200,
  type: JSON_TYPE,
  body: JSON.stringify(body),
  ...over,
});
const user = (over: Record<string, unknown> = {}, answer: Partial<CaseAnswer> = {}) =>
  json({ ...USER, ...over }, answer);
const without = (name: keyof typeof USER) => {
  const rest: Record<string, unknown> = { ...USER };
  delete rest[name];
  return json(rest);
};
const LATE = 1100;

const corpus: Case[] = [
  // ---- /user_auth: passing variants
  {
    name: 'the spec 2.5 body as application/json',
    route: '/user_auth',
    answer: user(),
    failed: null,
    own: {},
  },
  {
    name: 'JSON sent as text/plain',
    route: '/user_auth',
    answer: user({}, { type: 'text/plain' }),
    failed: null,
  },
  {
    name: 'JSON with no Content-Type',
    route: '/user_auth',
    answer: { ...user(), type: null },
    failed: null,
  },
  {
    name: 'JSON as application/octet-stream (a non-JSON Content-Type)',
    route: '/user_auth',
    answer: { ...user(), type: 'application/octet-stream' },
    failed: null,
  },
  {
    name: 'extra members',
    route: '/user_auth',
    answer: user({ account: { iban: 'DE89' }, tier: 3, verified: true }),
    failed: null,
  },
  {
    name: 'null optional fields (first_name, last_name, email)',
    route: '/user_auth',
    answer: user({ first_name: null, last_name: null, email: null }),
    failed: null,
  },
  {
    name: 'only the required members',
    route: '/user_auth',
    answer: json({ external_id: 'e', phone: '1', key: 'k' }),
    failed: null,
  },
  {
    name: 'external_id of 500 astral code points (1,000 UTF-16 units)',
    route: '/user_auth',
    answer: user({ external_id: '😀'.repeat(500) }),
    failed: null,
  },
  // ---- /user_auth: each check failing
  {
    name: 'no answer: the bank hangs up',
    route: '/user_auth',
    answer: { ...user(), hangUp: true },
    failed: 'reachable',
  },
  {
    name: `a good answer after ${LATE} ms`,
    route: '/user_auth',
    answer: user({}, { delayMs: LATE }),
    failed: 'budget',
    own: { delay_ms: LATE },
  },
  {
    name: '503 with an error body',
    route: '/user_auth',
    answer: json({ error: 'down' }, { status: 503 }),
    failed: 'status',
    own: { status: 503 },
  },
  {
    name: '401 to a valid token',
    route: '/user_auth',
    answer: json({ error: 'unauthorized' }, { status: 401 }),
    failed: 'status',
  },
  {
    name: 'a text body',
    route: '/user_auth',
    answer: json('', { body: 'hello', type: 'text/plain' }),
    failed: 'json',
  },
  { name: 'a JSON array', route: '/user_auth', answer: json([USER]), failed: 'json' },
  { name: 'an empty body', route: '/user_auth', answer: json('', { body: '' }), failed: 'json' },
  { name: 'JSON null', route: '/user_auth', answer: json(null), failed: 'json' },
  {
    name: 'external_id missing',
    route: '/user_auth',
    answer: without('external_id'),
    failed: 'external_id',
    own: { omit_field: 'external_id' },
  },
  {
    name: 'external_id only spaces ("   ")',
    route: '/user_auth',
    answer: user({ external_id: '   ' }),
    failed: 'external_id',
  },
  {
    name: 'external_id a number',
    route: '/user_auth',
    answer: user({ external_id: 42 }),
    failed: 'external_id',
  },
  {
    name: 'external_id of 501 code points',
    route: '/user_auth',
    answer: user({ external_id: '😀'.repeat(501) }),
    failed: 'external_id_length',
    own: { long_external_id: true },
  },
  {
    name: 'key missing',
    route: '/user_auth',
    answer: without('key'),
    failed: 'key',
    own: { omit_field: 'key' },
  },
  { name: 'key empty', route: '/user_auth', answer: user({ key: '' }), failed: 'key' },
  {
    name: 'phone missing',
    route: '/user_auth',
    answer: without('phone'),
    failed: 'phone',
    own: { omit_field: 'phone' },
  },
  { name: 'phone null', route: '/user_auth', answer: user({ phone: null }), failed: 'phone' },
  { name: 'phone only a tab', route: '/user_auth', answer: user({ phone: '\t' }), failed: 'phone' },
  { name: 'first_name: 7', route: '/user_auth', answer: user({ first_name: 7 }), failed: 'fields' },
  { name: 'email an object', route: '/user_auth', answer: user({ email: { at: 'x' } }), failed: 'fields' },
  {
    name: 'late and without phone: the first failure (budget) decides',
    route: '/user_auth',
    answer: { ...without('phone'), delayMs: LATE },
    failed: 'budget',
    own: { delay_ms: LATE, omit_field: 'phone' },
  },
  {
    name: 'external_id and phone missing: external_id decides',
    route: '/user_auth',
    answer: json({ key: 'k' }),
    failed: 'external_id',
  },
  // ---- /key
  { name: '/key {key}', route: '/key', answer: json({ key: CUSTOMER.key }), failed: null, own: {} },
  {
    name: '/key as text/plain',
    route: '/key',
    answer: json({ key: 'k' }, { type: 'text/plain' }),
    failed: null,
  },
  { name: '/key without key', route: '/key', answer: json({ external_id: 'e' }), failed: 'key' },
  { name: '/key key a number', route: '/key', answer: json({ key: 12345 }), failed: 'key' },
  {
    name: '/key 503',
    route: '/key',
    answer: json({ error: 'x' }, { status: 503 }),
    failed: 'status',
    own: { status: 503 },
  },
  // ---- /external_id
  {
    name: '/external_id {external_id}',
    route: '/external_id',
    answer: json({ external_id: CUSTOMER.external_id }),
    failed: null,
    own: {},
  },
  {
    name: '/external_id of 500 code points',
    route: '/external_id',
    answer: json({ external_id: '😀'.repeat(500) }),
    failed: null,
  },
  {
    name: '/external_id only spaces',
    route: '/external_id',
    answer: json({ external_id: '   ' }),
    failed: 'external_id',
  },
  {
    name: '/external_id of 501 code points',
    route: '/external_id',
    answer: json({ external_id: 'x'.repeat(501) }),
    failed: 'external_id_length',
    own: { long_external_id: true },
  },
];

// ------------------------------------------------------------------------ test servers

interface CaseServer {
  url: string;
  /** Answer `answer` to every request, or, with `once`, to the first request for that path only (401 to the rest). */
  set(answer: CaseAnswer, once?: string): void;
  close(): Promise<void>;
}

function send(res: http.ServerResponse, a: CaseAnswer): void {
  if (a.hangUp) {
    res.socket?.destroy();
    return;
  }
  const headers: Record<string, string> = { 'Content-Length': String(Buffer.byteLength(a.body)) };
  if (a.type !== null) headers['Content-Type'] = a.type;
  res.writeHead(a.status, headers).end(a.body);
}

async function startCaseServer(): Promise<CaseServer> {
  let answer: CaseAnswer = json({});
  let once: string | null = null;
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    req.resume();
    const path = (req.url ?? '').split('?')[0];
    let a = answer;
    if (once !== null) {
      if (path === once) once = '';
      else a = json({ error: 'unauthorized' }, { status: 401 });
    }
    if (!a.delayMs) return send(res, a);
    const timer = setTimeout(() => {
      timers.delete(timer);
      send(res, a);
    }, a.delayMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set(next, path) {
      answer = next;
      once = path ?? null;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ------------------------------------------------------------------------------ set-up

let own: BankFixture;
let forward: BankFixture;
let forwardTarget: CaseServer;
let sandbox: RunningSandbox & { key: BankKey; guid: string };
let sandboxBank: CaseServer;
let runner: ConformanceRunner;
let conformanceBank: CaseServer;
let ownEvents = 0;
let forwardEvents = 0;
/** The own bank's events and the verdict each should carry, for `events --json` at the end. */
const ownRecorded: Array<{ id: string; failed: string | null }> = [];

beforeAll(async () => {
  [forwardTarget, sandboxBank, conformanceBank] = await Promise.all([
    startCaseServer(),
    startCaseServer(),
    startCaseServer(),
  ]);
  [own, forward] = await Promise.all([startBank(), startBank()]);
  await forward.bank.setForward({ url: forwardTarget.url });
  sandbox = await startWithCounterparty({ urls: { bank_auth_url: sandboxBank.url } });
  runner = await startConformance({ jwksPort: 0, budgetCalls: 1, refreshWaitMs: 0, giveUpMs: 3000 });
}, 60_000);

afterAll(async () => {
  await runner?.close();
  await Promise.all([forwardTarget, sandboxBank, conformanceBank].map((s) => s?.close()));
  await cleanupBank();
  await cleanupSandbox();
});

// --------------------------------------------------------------------------- consumers

/** The newest callback a bank fixture recorded, once it has `n` (callbacks are recorded after the answer). */
async function newestCallback(fx: BankFixture, n: number): Promise<EventSummary> {
  await eventCount(fx.store, 'callback', n);
  const page = await fx.store.query({ kind: 'callback', limit: 1 });
  return page.events[0]!;
}

/** Step 6 of a real environment's walkthrough, derived from one stored callback as the gatherer reads it. */
async function walkthroughOf(fx: BankFixture, summary: EventSummary): Promise<string | null> {
  const full = await fx.store.get(summary.id);
  const steps = deriveSteps(
    facts({ env: env({ id: 'real', kind: 'real' }), callbacks: [callbackFact(summary, full)] }),
    Date.now(),
  );
  return verdictOfStep(steps.find((s) => s.id === 'sign-in')!);
}

function verdictOfStep(step: { state: string; summary: string; reason: string | null }): string | null {
  if (step.state === 'done') return null;
  expect(step.state, step.summary).toBe('failed');
  const named = /^check (\S+) failed/.exec(step.reason ?? '') ?? /stopped at (\S+)\.$/.exec(step.summary);
  expect(named, `${step.summary} ${step.reason}`).not.toBeNull();
  return named![1]!;
}

async function atOwnBank(c: Case): Promise<Record<string, string | null>> {
  await own.bank.setBehaviours(c.own && Object.keys(c.own).length > 0 ? { [c.route.slice(1)]: c.own } : {});
  const r = await get(`${own.url}${c.route}`, await serviceJwt(own.key));
  // The answer is what the behaviour says; only the verdict recorded is the judge's.
  expect(r.status).toBe(c.own?.status ?? 200);
  const e = await newestCallback(own, ++ownEvents);
  ownRecorded.push({ id: e.id, failed: c.failed });
  const whole = rebuildCallbackDetail(await own.store.get(e.id));
  // The event's checks (Callbacks page, event detail) fail at the same check.
  expect(whole.checks?.find((x) => x.status === 'failed')?.id ?? null).toBe(c.failed);
  return {
    'own bank': e.failed_check,
    ...(c.route === '/user_auth' ? { 'walkthrough (own bank)': await walkthroughOf(own, e) } : {}),
  };
}

async function atForward(c: Case): Promise<Record<string, string | null>> {
  forwardTarget.set(c.answer);
  await get(`${forward.url}${c.route}`, await serviceJwt(forward.key));
  const e = await newestCallback(forward, ++forwardEvents);
  const detail = await forward.store.get(e.id);
  const firstFailedVerdict = detail.forward?.verdicts.find((v) => v.status === 'failed')?.id ?? null;
  return {
    forward: e.failed_check,
    'forward verdicts': firstFailedVerdict,
    ...(c.route === '/user_auth' ? { 'walkthrough (forward)': await walkthroughOf(forward, e) } : {}),
  };
}

async function atSandbox(c: Case): Promise<Record<string, string | null>> {
  if (c.route !== '/user_auth') return {};
  sandboxBank.set(c.answer);
  const r = await call(sandbox.url, 'POST', `/sandbox/v1/counterparties/${sandbox.guid}/sign-in`, {
    token: await bankJwt(sandbox.key),
  });
  const body = r.json as { ok: boolean; failed: string | null; trace_id: string };
  expect(r.status, r.text).toBe(body.ok ? 200 : 502);
  const traces = await sandbox.sandbox.traces({ counterparty_guid: sandbox.guid, limit: 1 });
  const trace = traces[0] as Trace;
  expect(trace.id).toBe(body.trace_id);
  const steps = deriveSteps(
    facts({ env: env(), sandbox: { counterparty: counterparty(), error: null }, traces: [trace] }),
    Date.now(),
  );
  const step6 = steps.find((s) => s.id === 'sign-in')!;
  return {
    sandbox: body.ok ? null : body.failed,
    // A passing trace alone proves nothing to the walkthrough (it waits for the callback).
    'walkthrough (sandbox trace)': step6.state === 'pending' && body.ok ? null : verdictOfStep(step6),
  };
}

async function atConformance(c: Case): Promise<Record<string, string | null>> {
  conformanceBank.set(c.answer, c.route);
  const report = await runner.run({ bankAuthUrl: conformanceBank.url, obj: CUSTOMER.obj, sub: CUSTOMER.sub });
  const valid = report.cases.find((x) => x.id === `${c.route.slice(1)}.valid`)!;
  expect(valid.status).toBe(c.failed === null ? 'passed' : 'failed');
  if (c.failed !== null) expect(valid.detail).toContain(`${c.failed} failed: `);
  return { conformance: valid.failed_check ?? null };
}

// ------------------------------------------------------------------------------- tests

describe('one verdict for every answer, in every consumer', () => {
  it.each(corpus.map((c) => [c.name, c] as const))(
    '%s',
    async (_name, c) => {
      // Settled, not raced: a consumer that fails still lets the others finish (no run left behind).
      const settled = await Promise.allSettled([
        c.own ? atOwnBank(c) : Promise.resolve({}),
        atForward(c),
        atSandbox(c),
        atConformance(c),
      ]);
      const rejected = settled.find((r) => r.status === 'rejected');
      if (rejected) throw rejected.reason;
      const [o, f, s, k] = settled.map(
        (r) => (r as PromiseFulfilledResult<Record<string, string | null>>).value,
      );
      const seen = { ...o, ...f, ...s, ...k };
      expect(seen).toEqual(Object.fromEntries(Object.keys(seen).map((k) => [k, c.failed])));
      // Every consumer that applies to the route was asked.
      expect(Object.keys(seen).length).toBeGreaterThanOrEqual(c.route === '/user_auth' ? 5 : 3);
    },
    30_000,
  );

  it('`events --json` lists each of the own bank callbacks with the same failed_check', async () => {
    expect(ownRecorded.length).toBe(corpus.filter((c) => c.own).length);
    const listed = await listEvents(own.dir, '--kind', 'callback');
    const byId = new Map(listed.map((e) => [e.id, e]));
    expect(ownRecorded.map((r) => [r.id, byId.get(r.id)?.failed_check])).toEqual(
      ownRecorded.map((r) => [r.id, r.failed]),
    );
  }, 60_000);
});
