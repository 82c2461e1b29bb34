/**
 * The conformance runner (issue 7; DESIGN.md "Command line" `conformance`): it plays the service
 * against a bank's own callbacks (spec 4.2). It generates its own RSA keys, serves their JWKS on
 * 127.0.0.1:<jwks-port> (the bank under test is configured to trust that URL), and calls the
 * bank's GET /user_auth, /key and /external_id with good and deliberately bad X-Session-ID tokens
 * for a customer the bank knows (obj/sub), judging each answer: 200 with the spec's fields for a
 * good token, 401 for every bad one, every good answer within 1 s, and a rotated key accepted.
 *
 * Each call opens its own connection (core/http/exchange), as the service would, and is kept
 * whole (request headers with the token, response status, headers, body, duration) for export;
 * a customer's secret `key` in an answer is masked in what is kept (only its length is shown).
 *
 * Threat model: the bank under test is untrusted: answers are read with a size cap and a time
 * limit, and nothing in them is executed or followed. Private keys never leave this process.
 */
import { randomBytes } from 'node:crypto';
import type {
  CaseExchange,
  CaseResult,
  ConformanceActivity,
  ConformanceReport,
} from '../../contract/schemas/conformance';
import { answerOfExchange, judgeAnswer, type AnswerVerdict } from '../answer';
import { equalsJudge, keySetFromJwks, LEEWAY_SECONDS, verifyToken, type EngineVerdict } from '../jwt';
import { APP_NAME, APP_VERSION } from '../version';
import { startJwksServer, type JwksServer } from './jwks-server';
import {
  decodeForReport,
  generateRunnerKey,
  hs256WithPublicKey,
  serviceClaims,
  signRs256,
  unsignedToken,
  type RunnerKey,
} from './keys';
import { planCases, type NegativeKind, type PlannedCase, type RouteName } from './plan';
import { CALLBACK_BUDGET_MS, exchange, type ExchangeResult, overBudget } from '../http';

/** Spec 4.2 / 8: each callback must answer within 1 second (the one rule: http/budget.ts). */
export const BUDGET_MS = CALLBACK_BUDGET_MS;
export const DEFAULT_BUDGET_CALLS = 10;
/** A request with no complete answer after this long is given up (well past the budget). */
export const DEFAULT_GIVE_UP_MS = 5000;
/**
 * How long to wait before retrying a token with a kid the bank has not loaded yet: a careful
 * bank rate-limits JWKS refreshes for unknown kids (the console's own: one fetch per second; others wait longer).
 */
export const DEFAULT_REFRESH_WAIT_MS = 11_000;
const MAX_BODY_KEPT = 64 * 1024;
/** How far past the leeway the time cases go, in seconds (2 minutes from now). */
const TIME_OFFSET_S = 120;

export interface ConformanceTarget {
  /** {bank_auth_url}: the callbacks are `${bankAuthUrl}/user_auth` etc. */
  bankAuthUrl: string;
  obj: string;
  sub: string;
}

export interface RunnerOptions {
  /** 127.0.0.1 port of the runner's JWKS (DESIGN.md default 7303; 0: any free port). */
  jwksPort: number;
  /** Valid calls per route in the budget cases (default 10). */
  budgetCalls?: number;
  giveUpMs?: number;
  /** 0: never wait and retry for a bank's rate-limited JWKS refresh. */
  refreshWaitMs?: number;
  now?: () => number;
}

export interface RunHooks {
  kind?: ConformanceReport['kind'];
  /** Called as each case finishes, in order (for live tables and progress bars). */
  onCase?: (result: CaseResult, done: number, total: number) => void;
  /** Called as a case begins and as a wait begins: what the run is doing and waiting for. */
  onActivity?: (activity: ConformanceActivity) => void;
}

export interface ConformanceRunner {
  /** The URL the bank under test must trust (spec 4.1 #3). */
  readonly jwksUrl: string;
  /** How many cases a run has (known before it starts). */
  readonly total: number;
  run(target: ConformanceTarget, hooks?: RunHooks): Promise<ConformanceReport>;
  close(): Promise<void>;
}

/** `https://bank.example/auth/` → `https://bank.example/auth` (the callbacks are appended). */
export function normalizeBankAuthUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

const symbols = (s: string) => [...s].length;

/** The body as kept in a report: text, a JSON `key` masked to its length, cut at 64 KiB. */
function keptBody(body: Buffer): { text: string; truncated: boolean } {
  let text = body.toString('utf8');
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && typeof (value as { key?: unknown }).key === 'string') {
      const key = (value as { key: string }).key;
      text = JSON.stringify({ ...value, key: `<masked: ${symbols(key)} characters>` });
    }
  } catch {
    // not JSON: kept as it is
  }
  const truncated = text.length > MAX_BODY_KEPT;
  return { text: truncated ? `${text.slice(0, MAX_BODY_KEPT)}… (truncated)` : text, truncated };
}

/** A short, one-line quote of an answer for a case's detail. */
function quote(result: ExchangeResult): string {
  if (!result.ok) return `no answer (${result.message})`;
  let text = result.body.toString('utf8').replace(/\s+/g, ' ').trim();
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && typeof (value as { key?: unknown }).key === 'string') {
      text = JSON.stringify({ ...value, key: '<masked>' });
    }
  } catch {
    // not JSON
  }
  const body = text === '' ? 'an empty body' : text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return `${result.status} in ${Math.round(result.durationMs)} ms with ${body}`;
}

interface Sent {
  result: ExchangeResult;
  record: CaseExchange;
}

/**
 * Starts the runner: generates its first key and serves its JWKS. `run` may be called more than
 * once (each run publishes its rotated key in addition); `close` stops the JWKS server.
 *
 * @example
 * const runner = await startConformance({ jwksPort: 7303 });
 * console.log(`configure the bank to trust ${runner.jwksUrl}`);
 * const report = await runner.run({ bankAuthUrl, obj: 'DE89…', sub: 'ops@bank.example' });
 * await runner.close();
 */
export async function startConformance(options: RunnerOptions): Promise<ConformanceRunner> {
  const now = options.now ?? Date.now;
  const budgetCalls = Math.max(1, options.budgetCalls ?? DEFAULT_BUDGET_CALLS);
  const giveUpMs = options.giveUpMs ?? DEFAULT_GIVE_UP_MS;
  const refreshWaitMs = options.refreshWaitMs ?? DEFAULT_REFRESH_WAIT_MS;
  // The first key (published), a stranger (never published: "another key", "unknown kid").
  const [first, stranger] = await Promise.all([generateRunnerKey(), generateRunnerKey()]);
  const published: RunnerKey[] = [first];
  const jwks: JwksServer = await startJwksServer({
    port: options.jwksPort,
    keys: () => published.map((k) => k.jwk),
    now,
  });
  const plan = planCases(budgetCalls);
  let running = false;

  const nowS = () => Math.floor(now() / 1000);

  async function send(base: string, route: RouteName, token: string | null, label: string): Promise<Sent> {
    const url = `${base}/${route}`;
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': `${APP_NAME.replace(/\s+/g, '-')}-conformance/${APP_VERSION}`,
    };
    if (token !== null) headers['X-Session-ID'] = token;
    const at = new Date(now()).toISOString();
    const result = await exchange({ method: 'GET', url, headers, giveUpMs });
    const record: CaseExchange = {
      label,
      at,
      request: { method: 'GET', url, headers },
      token: token === null ? null : decodeForReport(token),
      response: result.ok
        ? (() => {
            const body = keptBody(result.body);
            return {
              status: result.status,
              headers: result.headers,
              body: body.text,
              truncated: body.truncated || result.truncated,
            };
          })()
        : null,
      error: result.ok ? null : result.message,
      duration_ms: round(result.durationMs),
    };
    return { result, record };
  }

  async function run(target: ConformanceTarget, hooks: RunHooks = {}): Promise<ConformanceReport> {
    if (running) throw new Error('a conformance run is already in progress on this runner');
    running = true;
    try {
      return await runOnce(target, hooks);
    } finally {
      running = false;
    }
  }

  async function runOnce(target: ConformanceTarget, hooks: RunHooks): Promise<ConformanceReport> {
    const base = normalizeBankAuthUrl(target.bankAuthUrl);
    const { obj, sub } = target;
    const startedAt = now();
    const fetchesBefore = jwks.fetches.length;
    const results: CaseResult[] = [];
    const accepted = new Set<RouteName>();
    const validToken = (key: RunnerKey = first, over: Record<string, unknown> = {}) =>
      signRs256(key.privateKey, key.kid, serviceClaims(obj, sub, nowS(), over));
    const fetchesSince = (t: number) => jwks.fetches.filter((f) => f >= t).length;
    /**
     * What the service's rules say of a token (DESIGN.md: the conformance runner's expectations
     * come from the one engine): the runner's published keys, and the bank's customer obj/sub.
     */
    const expectationOf = (token: string | null): Promise<EngineVerdict> =>
      verifyToken({
        token: token ?? undefined,
        header: 'X-Session-ID',
        keys: {
          kind: 'set',
          set: keySetFromJwks({ keys: published.map((k) => ({ ...k.jwk })) }, { source: 'jwks' }),
        },
        nowSeconds: now() / 1000,
        obj: equalsJudge('obj', obj),
        sub: equalsJudge('sub', sub),
        mode: 'first-failure',
      });
    const trustHint = `is the bank configured to trust ${jwks.url}, and does it know obj ${JSON.stringify(obj)} with sub ${JSON.stringify(sub)}?`;

    const finish = (
      c: PlannedCase,
      started: number,
      r: Omit<CaseResult, 'id' | 'title' | 'route' | 'spec' | 'duration_ms'>,
    ) => {
      const result: CaseResult = {
        id: c.id,
        title: c.title,
        route: `/${c.route}`,
        spec: c.spec,
        duration_ms: round(performance.now() - started),
        ...r,
      };
      results.push(result);
      hooks.onCase?.(result, results.length, plan.length);
    };

    /**
     * The most a case can take: each request given up at `giveUpMs`, and for a case that may
     * wait for a rate-limited JWKS refresh, that wait and one more request.
     */
    const caseTimeoutMs = (c: PlannedCase) => {
      const requests = c.kind === 'budget' ? budgetCalls : 1;
      const retry = (c.kind === 'valid' || c.kind === 'rotation') && refreshWaitMs > 0;
      return requests * giveUpMs + (retry ? refreshWaitMs + giveUpMs : 0);
    };
    const tell = (activity: Omit<ConformanceActivity, 'jwks_fetches'>) => {
      try {
        hooks.onActivity?.({ ...activity, jwks_fetches: jwks.fetches.length - fetchesBefore });
      } catch {
        // a listener's failure never stops the run
      }
    };
    /** The wait before sending a token again, told first so the page can count it down. */
    const waitForRefresh = async (c: PlannedCase, why: string) => {
      tell({
        kind: 'refresh-wait',
        case_id: c.id,
        text: `${why}: waiting ${Math.round(refreshWaitMs / 1000)} s (a bank may rate-limit JWKS refreshes for unknown kids), then sending the token again`,
        timeout_ms: refreshWaitMs + giveUpMs,
        until: new Date(now() + refreshWaitMs).toISOString(),
      });
      await sleep(refreshWaitMs);
    };
    const firstFetchHint = () =>
      jwks.fetches.length === fetchesBefore
        ? `; to verify it the bank must fetch the runner's JWKS at ${jwks.url} (not fetched yet in this run)`
        : '';
    const caseText = (c: PlannedCase) => {
      switch (c.kind) {
        case 'valid':
          return `GET /${c.route} with a valid token (kid ${first.kid})${firstFetchHint()}`;
        case 'budget':
          return `GET /${c.route} ${budgetCalls} times with valid tokens, each to be answered within ${BUDGET_MS} ms`;
        case 'rotation':
          return `publishing a new key beside kid ${first.kid} at ${jwks.url}, then GET /${c.route} with a token signed by it: the bank must fetch the JWKS again`;
        case 'negative':
          return c.title;
      }
    };

    for (const c of plan) {
      const started = performance.now();
      tell({ kind: 'case', case_id: c.id, text: caseText(c), timeout_ms: caseTimeoutMs(c), until: null });
      if (c.kind === 'valid') {
        const label = 'valid token';
        let sent = await send(base, c.route, validToken(), label);
        const exchanges = [sent.record];
        let retried = '';
        // A bank that loaded this JWKS URL's keys in an earlier run may hold its kid refresh back
        // (rate limit): when it never came for the keys, wait once and try again.
        if (
          results.length === 0 &&
          refreshWaitMs > 0 &&
          sent.result.ok &&
          sent.result.status === 401 &&
          jwks.fetches.length === fetchesBefore
        ) {
          await waitForRefresh(c, `/${c.route} answered 401 and the bank has not fetched ${jwks.url}`);
          sent = await send(base, c.route, validToken(), `${label}, again after ${refreshWaitMs} ms`);
          exchanges.push(sent.record);
          retried = ` (the first call got 401 without the bank fetching the JWKS; retried after ${Math.round(refreshWaitMs / 1000)} s)`;
        }
        // The one answer judge (DESIGN.md "One judge of the bank's answer"): the same verdict the
        // bank endpoints, forward mode and the sandbox's sign-in give this answer.
        const verdict = judgeAnswer({
          route: `/${c.route}`,
          answer: answerOfExchange(sent.result),
          token: { passed: true },
        });
        // Accepted (200), even with a wrong body: the negative cases on this route mean something.
        if (sent.result.ok && sent.result.status === 200) accepted.add(c.route);
        const what = `sent a valid X-Session-ID (RS256, kid ${first.kid}, flow sign-in, obj ${JSON.stringify(obj)}, sub ${JSON.stringify(sub)})${retried}`;
        finish(c, started, {
          status: verdict.ok ? 'passed' : 'failed',
          failed_check: verdict.failed,
          detail: verdict.ok
            ? `${what}; got ${passedSummary(sent.result, verdict)}`
            : `${what}; got ${quote(sent.result)}; expected ${expectedValid(c.route)}: ${verdict.failed} failed: ${verdict.detail}${
                sent.result.ok && sent.result.status === 401
                  ? ` (${trustHint} The bank fetched the JWKS ${fetchesSince(startedAt)} time(s) in this run)`
                  : ''
              }`,
          exchanges,
        });
        continue;
      }

      if (c.kind === 'budget') {
        const exchanges: CaseExchange[] = [];
        const durations: number[] = [];
        /** Calls that got no 200: the first one quoted, the rest counted. */
        const refused: Array<{ call: number; result: ExchangeResult }> = [];
        /** 200 answers at or over the budget: the slowest named. */
        const late: Array<{ call: number; ms: number }> = [];
        for (let i = 1; i <= budgetCalls; i++) {
          const sent = await send(base, c.route, validToken(), `call ${i} of ${budgetCalls}`);
          exchanges.push(sent.record);
          durations.push(sent.result.durationMs);
          if (!sent.result.ok || sent.result.status !== 200) refused.push({ call: i, result: sent.result });
          else if (overBudget(sent.result.durationMs)) late.push({ call: i, ms: sent.result.durationMs });
        }
        const sorted = [...durations].sort((a, b) => a - b);
        const metrics = {
          count: durations.length,
          p50_ms: round(percentile(sorted, 50)),
          p95_ms: round(percentile(sorted, 95)),
          max_ms: round(sorted[sorted.length - 1] ?? 0),
          budget_ms: BUDGET_MS,
        };
        const stats = `p50 ${Math.round(metrics.p50_ms)} ms, p95 ${Math.round(metrics.p95_ms)} ms, max ${Math.round(metrics.max_ms)} ms`;
        const faults: string[] = [];
        if (late.length > 0) {
          const slowest = late.reduce((a, b) => (b.ms > a.ms ? b : a));
          faults.push(
            `${late.length} of ${budgetCalls} took ${BUDGET_MS} ms or more (slowest: call ${slowest.call}, ${Math.round(slowest.ms)} ms)`,
          );
        }
        if (refused.length > 0) {
          const first = refused[0]!;
          faults.push(
            `${refused.length} of ${budgetCalls} did not answer 200 (call ${first.call}: ${first.result.ok ? 'got ' : ''}${quote(first.result)})`,
          );
        }
        const sentWhat = `sent ${budgetCalls} valid tokens one after another, each on a new connection`;
        finish(c, started, {
          status: faults.length === 0 ? 'passed' : 'failed',
          detail:
            faults.length === 0
              ? `${sentWhat}; all answered 200 within ${BUDGET_MS} ms: ${stats}`
              : `${sentWhat}; expected every one answered 200 within ${BUDGET_MS} ms (spec 4.2, 8), but ${faults.join(', and ')}; ${stats}`,
          exchanges,
          metrics,
        });
        continue;
      }

      if (c.kind === 'rotation') {
        if (!accepted.has(c.route)) {
          finish(c, started, {
            status: 'skipped',
            detail: `not run: /${c.route} did not answer a valid token signed with the first key with 200 (see ${c.route}.valid), so the rotation cannot be judged`,
            exchanges: [],
          });
          continue;
        }
        const rotated = await generateRunnerKey();
        published.push(rotated);
        const rotatedAt = now();
        const what = `published a new key (kid ${rotated.kid}) beside the old one (kid ${first.kid}) in the JWKS at ${jwks.url}, then sent a valid token signed with the new key`;
        let sent = await send(base, c.route, validToken(rotated), 'token signed with the new key');
        const exchanges = [sent.record];
        let waited = '';
        if (refreshWaitMs > 0 && !(sent.result.ok && sent.result.status === 200)) {
          // A careful bank rate-limits refreshes for unknown kids: give it that long, once.
          const firstAnswer = quote(sent.result);
          await waitForRefresh(c, `/${c.route} answered ${firstAnswer} to the new key's token`);
          sent = await send(
            base,
            c.route,
            validToken(rotated),
            `token signed with the new key, again after ${refreshWaitMs} ms`,
          );
          exchanges.push(sent.record);
          waited = ` (the first answer was ${firstAnswer}, so it was sent again after ${Math.round(refreshWaitMs / 1000)} s: a bank may rate-limit JWKS refreshes)`;
        }
        const fetched = fetchesSince(rotatedAt);
        const ok = sent.result.ok && sent.result.status === 200;
        finish(c, started, {
          status: ok ? 'passed' : 'failed',
          detail: ok
            ? `${what}; got ${quote(sent.result)}${waited}; the bank fetched the JWKS ${fetched} time(s) after the rotation`
            : `${what}; got ${quote(sent.result)}${waited}; expected 200: the bank fetched the JWKS ${fetched} time(s) after the rotation${
                fetched === 0
                  ? ': it caches the service JWKS and never fetches it again for an unknown kid, so it will refuse every callback after the service rotates its key'
                  : ', yet refused the new key'
              }`,
          exchanges,
        });
        continue;
      }

      // negative
      if (!accepted.has(c.route)) {
        finish(c, started, {
          status: 'skipped',
          detail: `not run: /${c.route} did not answer a valid token with 200 (see ${c.route}.valid), so a 401 here would prove nothing`,
          exchanges: [],
        });
        continue;
      }
      const bad = badToken(c.negative, { obj, sub, first, stranger, nowS: nowS() });
      const expected = await expectationOf(bad.token);
      if (expected.ok) {
        // The plan's token passes the service's own rules: a bug in the runner, never the bank's fault.
        finish(c, started, {
          status: 'failed',
          detail: `internal error: the runner's ${bad.label} token passes the verification engine, so this case proves nothing`,
          exchanges: [],
        });
        continue;
      }
      const sent = await send(base, c.route, bad.token, bad.label);
      const ok = sent.result.ok && sent.result.status === 401;
      const rule = `the rules refuse it at ${expected.failed}: ${expected.detail}`;
      let why = '';
      if (!ok) {
        why =
          sent.result.ok && sent.result.status >= 200 && sent.result.status < 300
            ? `: the bank accepted ${bad.accepted}`
            : sent.result.ok
              ? `: spec 4.2 / 7 expect 401 Unauthorized when a check fails, not ${sent.result.status}`
              : '';
      }
      finish(c, started, {
        status: ok ? 'passed' : 'failed',
        detail: `sent ${bad.sent} (${rule}); got ${quote(sent.result)}${ok ? ' as expected' : `; expected 401${why}`}`,
        exchanges: [sent.record],
      });
    }

    const finishedAt = now();
    const count = (s: CaseResult['status']) => results.filter((r) => r.status === s).length;
    return {
      kind: hooks.kind ?? 'run',
      bank_auth_url: base,
      obj,
      sub,
      jwks_url: jwks.url,
      kids: published.map((k) => k.kid),
      jwks_fetches: jwks.fetches.length - fetchesBefore,
      started_at: new Date(startedAt).toISOString(),
      finished_at: new Date(finishedAt).toISOString(),
      duration_ms: finishedAt - startedAt,
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
      cases: results,
    };
  }

  return {
    jwksUrl: jwks.url,
    total: plan.length,
    run,
    close: () => jwks.close(),
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A passing answer in a line: its time, the members judged, and the judge's warnings. */
function passedSummary(result: ExchangeResult, verdict: AnswerVerdict): string {
  const members = verdict.checks
    .filter((c) => !['reachable', 'budget', 'status', 'json'].includes(c.id))
    .map((c) => c.detail);
  const notes = verdict.warnings.length > 0 ? `; note: ${verdict.warnings.join('; ')}` : '';
  return `200 in ${Math.round(result.durationMs)} ms, a JSON object: ${members.join(', ')}${notes}`;
}

function expectedValid(route: RouteName): string {
  if (route === 'user_auth')
    return '200 with JSON {external_id, phone, key, first_name?, last_name?, email?}';
  if (route === 'key') return '200 with JSON {key}';
  return '200 with JSON {external_id}';
}

interface BadToken {
  token: string | null;
  label: string;
  /** What was sent, for the detail. */
  sent: string;
  /** What accepting it means, for the detail. */
  accepted: string;
}

/** The deliberately bad X-Session-ID of a negative case. */
function badToken(
  kind: NegativeKind,
  k: { obj: string; sub: string; first: RunnerKey; stranger: RunnerKey; nowS: number },
): BadToken {
  const claims = (over: Record<string, unknown> = {}) => serviceClaims(k.obj, k.sub, k.nowS, over);
  const signed = (over: Record<string, unknown>) => signRs256(k.first.privateKey, k.first.kid, claims(over));
  const leeway = `${LEEWAY_SECONDS} s leeway`;
  switch (kind) {
    case 'no-header':
      return {
        token: null,
        label: 'no X-Session-ID',
        sent: 'no X-Session-ID header at all',
        accepted: 'a callback with no token: anyone can read the customer’s data',
      };
    case 'not-jwt':
      return {
        token: 'not-a-jwt',
        label: 'not a JWT',
        sent: 'X-Session-ID "not-a-jwt"',
        accepted: 'a value that is not a JWT at all',
      };
    case 'alg-none':
      return {
        token: unsignedToken(k.first.kid, claims()),
        label: 'alg none',
        sent: `an unsigned token (header alg "none", kid ${k.first.kid}, good claims, empty signature)`,
        accepted: 'an unsigned token: anyone can forge one',
      };
    case 'hs256-public-key':
      return {
        token: hs256WithPublicKey(k.first, claims()),
        label: 'HS256 keyed with the public key',
        sent: `an HS256 token (kid ${k.first.kid}) whose HMAC secret is the service's public key (PEM)`,
        accepted:
          'an HMAC token keyed with the public key (algorithm confusion): anyone who has the JWKS can forge one',
      };
    case 'wrong-key':
      return {
        token: signRs256(k.stranger.privateKey, k.first.kid, claims()),
        label: 'right kid, another key',
        sent: `an RS256 token with the published kid ${k.first.kid} but signed with another, unpublished key`,
        accepted: 'a signature that does not verify with the kid’s key: it does not check the signature',
      };
    case 'unknown-kid': {
      const kid = `unknown-${randomBytes(6).toString('hex')}`;
      return {
        token: signRs256(k.stranger.privateKey, kid, claims()),
        label: 'unknown kid',
        sent: `an RS256 token with kid ${kid}, which the JWKS does not publish, signed with an unpublished key`,
        accepted: 'a token whose kid is in no JWKS of the service',
      };
    }
    case 'expired':
      return {
        token: signed({ iat: k.nowS - TIME_OFFSET_S - 300, exp: k.nowS - TIME_OFFSET_S }),
        label: 'expired',
        sent: `a well-signed token with exp ${TIME_OFFSET_S} s in the past (beyond a ${leeway})`,
        accepted: 'an expired token: a stolen token would work forever',
      };
    case 'iat-future':
      return {
        token: signed({ iat: k.nowS + TIME_OFFSET_S, exp: k.nowS + TIME_OFFSET_S + 300 }),
        label: 'iat in the future',
        sent: `a well-signed token with iat ${TIME_OFFSET_S} s in the future (beyond a ${leeway})`,
        accepted: 'a token issued in the future',
      };
    case 'flow':
      return {
        token: signed({ flow: 'sign-up' }),
        label: 'flow sign-up',
        sent: 'a well-signed token with flow "sign-up" (spec 2.4: always sign-in)',
        accepted: 'a token for another flow',
      };
    case 'unknown-obj': {
      const obj = `conformance-unknown-${randomBytes(6).toString('hex')}`;
      return {
        token: signed({ obj }),
        label: 'unknown obj',
        sent: `a well-signed token for obj ${JSON.stringify(obj)}, a customer the bank cannot know`,
        accepted: 'a token for a customer it does not know',
      };
    }
    case 'foreign-sub': {
      const sub = `conformance-foreign-${randomBytes(6).toString('hex')}@invalid`;
      return {
        token: signed({ sub }),
        label: 'foreign sub',
        sent: `a well-signed token for obj ${JSON.stringify(k.obj)} with sub ${JSON.stringify(sub)} instead of ${JSON.stringify(k.sub)}`,
        accepted: 'the right obj with a foreign sub: it does not check the subject (spec 2.4, 5.5)',
      };
    }
  }
}
