/**
 * Issue 3: the sandbox's authenticate endpoint (spec 4.1 #2, POST
 * /api/v1/counterparty/{guid}/jwk/authenticate with the bank's RS256 JWT in CX-Authorization)
 * under load, against two floors measured in the same run, interleaved:
 *
 *   sandbox       the real core in its own process (createConsoleCore + listenSandbox)
 *   crypto-floor  node:http + node:crypto doing the same cryptography per request: one RS256
 *                 verify of the bank token, one RS256 sign of a fresh session JWT
 *   http-floor    node:http answering a constant JSON of the same shape
 *
 * All three get the same requests (same path, a different valid token from the pool each time)
 * at the same concurrency. Targets: sandbox ≥ 0.7 × the crypto floor's throughput, p99 < 50 ms.
 */
import { randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import type { ChildServer } from '../lib/children';
import type { LoadTarget } from '../lib/load';
import { BenchBroken } from '../lib/errors';
import { profilesOf } from '../lib/profiles';
import { runInterleaved } from '../lib/rounds';
import { makeRsaKey, publicKeyFromJwk, verifyJwtSync, type PublicRsaJwk } from '../lib/rs256';
import {
  aliveCheck,
  atLeast,
  below,
  describeServers,
  finite,
  reportChecks,
  requireCheck,
  roundPlan,
  roundsNote,
  runFigures,
  selectTargets,
  startServers,
} from '../lib/steps';
import type { SpotCheck, Suite, SuiteContext, SuiteResult } from '../lib/suite';
import { makeTokenPool, rotate, type PoolToken } from '../lib/tokens';

const TARGETS = {
  sandbox: 'sandbox authenticate',
  'crypto-floor': 'crypto floor (verify+sign)',
  'http-floor': 'http floor (constant JSON)',
} as const;
type TargetId = keyof typeof TARGETS;
const ORDER: TargetId[] = ['sandbox', 'crypto-floor', 'http-floor'];

const authPath = (guid: string) => `/api/v1/counterparty/${encodeURIComponent(guid)}/jwk/authenticate`;

/** The same token with one signature character changed: must be refused with 401. */
export function tamper(token: string): string {
  const at = token.length - 20;
  const c = token[at] === 'A' ? 'B' : 'A';
  return token.slice(0, at) + c + token.slice(at + 1);
}

/**
 * A verifyBody for `{"session_token": "<JWS>"}` answers: every body must be that JSON; one in
 * `every` also has its signature verified (null `keyFor`: shape only).
 */
export function sessionBodyCheck(
  keyFor: ((kid: string | undefined) => KeyObject | undefined) | null,
  every: number,
): (body: string) => boolean {
  let n = 0;
  return (body) => {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return false;
    }
    const token = (value as { session_token?: unknown } | null)?.session_token;
    if (typeof token !== 'string' || token.split('.').length !== 3) return false;
    if (keyFor === null || ++n % every !== 0) return true;
    return verifyJwtSync(token, keyFor) !== null;
  };
}

async function post(
  url: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers,
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text() };
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Authenticates with `good` (200 + a session_token that verifies) and with a tampered copy (401). */
async function spotCheck(
  id: TargetId,
  url: string,
  guid: string,
  good: PoolToken,
  verifySession: (token: string) => Promise<string>,
): Promise<SpotCheck[]> {
  const checks: SpotCheck[] = [];
  const ok = await post(url + authPath(guid), { 'cx-authorization': good.token });
  const token = parseJson(ok.text)?.session_token;
  if (ok.status !== 200 || typeof token !== 'string') {
    checks.push({
      id: `${id}.authenticate`,
      ok: false,
      detail: `expected 200 {session_token}, got ${ok.status} ${ok.text.slice(0, 300)}`,
    });
  } else {
    try {
      checks.push({
        id: `${id}.authenticate`,
        ok: true,
        detail: `200, session_token verifies: ${await verifySession(token)}`,
      });
    } catch (err) {
      checks.push({
        id: `${id}.authenticate`,
        ok: false,
        detail: `session_token does not verify: ${(err as Error).message}`,
      });
    }
  }
  if (id !== 'http-floor') {
    const bad = await post(url + authPath(guid), { 'cx-authorization': tamper(good.token) });
    checks.push({
      id: `${id}.rejects-bad-signature`,
      ok: bad.status === 401,
      detail:
        bad.status === 401
          ? '401 for a tampered signature'
          : `expected 401 for a tampered signature, got ${bad.status} ${bad.text.slice(0, 200)}`,
    });
  }
  return checks;
}

function startTargets(
  ctx: SuiteContext,
  bankJwk: PublicRsaJwk,
  want: TargetId[],
): Promise<Map<TargetId, ChildServer>> {
  return startServers(want, async (id) => {
    const flags = ctx.nodeFlags(id);
    if (id === 'sandbox') {
      const dataDir = await ctx.tmpDir('dets-bench-sandbox-');
      const args =
        ctx.config.sandboxVia === 'cli'
          ? [
              ...flags,
              join(ctx.root, 'dist/cli/dets-console.js'),
              'sandbox',
              '--host',
              '127.0.0.1',
              '--port',
              '0',
              '--json',
              '--data-dir',
              dataDir,
            ]
          : [...flags, join(ctx.buildDir, 'servers/sandbox.mjs'), dataDir];
      return { id, args, cwd: ctx.root, env: { DETS_DATA_DIR: dataDir }, urlOf: (r) => r.sandbox ?? r.url };
    }
    if (id === 'crypto-floor')
      return {
        id,
        args: [...flags, join(ctx.buildDir, 'servers/crypto-floor.mjs')],
        env: { BENCH_BANK_JWK: JSON.stringify(bankJwk), BENCH_CRYPTO_FLOOR: ctx.config.cryptoFloor },
      };
    return { id, args: [...flags, join(ctx.buildDir, 'servers/http-floor.mjs')] };
  });
}

const SUITE_ID = 'sandbox';
const SUITE_TITLE = 'Sandbox: POST /api/v1/counterparty/{guid}/jwk/authenticate (issue 3)';

export const sandboxSuite: Suite = {
  id: SUITE_ID,
  title: SUITE_TITLE,
  async run(ctx): Promise<SuiteResult> {
    const cfg = ctx.config;
    const want = selectTargets(ctx, SUITE_ID, ORDER);

    // The bank: an RS256 key with an upper-case UUID kid (as in the guide), and its token pool.
    const bank = await makeRsaKey(randomUUID().toUpperCase());
    const [tokens, servers] = await Promise.all([
      makeTokenPool(bank, cfg.tokens),
      startTargets(ctx, bank.jwk, want),
    ]);
    ctx.log(`  ${tokens.length} distinct bank tokens; servers: ${describeServers(servers.values())}`);

    const checks: SpotCheck[] = [];
    const keyFor = new Map<TargetId, (kid: string | undefined) => KeyObject | undefined>();
    let guid: string = randomUUID(); // the floors ignore the path; the sandbox's own GUID replaces it below
    const first = tokens[0]!;

    const sandbox = servers.get('sandbox');
    if (sandbox) {
      // Onboarding (DESIGN.md, /sandbox/v1 controls): register the bank's public JWK.
      const onboard = await post(
        `${sandbox.url}/sandbox/v1/counterparties`,
        { 'content-type': 'application/json' },
        JSON.stringify({ jwk: bank.jwk }),
      );
      const body = parseJson(onboard.text);
      const ok =
        onboard.status === 201 &&
        typeof body?.counterparty_guid === 'string' &&
        typeof body?.jwk_guid === 'string';
      requireCheck(
        checks,
        {
          id: 'sandbox.onboard',
          ok,
          detail: ok
            ? `201 counterparty ${String(body?.counterparty_guid)}`
            : `expected 201 {counterparty_guid, jwk_guid}, got ${onboard.status} ${onboard.text.slice(0, 300)}`,
        },
        'sandbox onboarding failed',
      );
      guid = body!.counterparty_guid as string;

      const jwksRes = await fetch(`${sandbox.url}/api/v1/.well-known/jwks.json`, {
        signal: AbortSignal.timeout(10_000),
      });
      const jwks = (await jwksRes.json().catch(() => null)) as JSONWebKeySet | null;
      if (jwksRes.status !== 200 || !Array.isArray(jwks?.keys) || jwks.keys.length === 0)
        throw new BenchBroken(`sandbox JWKS: expected 200 {keys:[…]}, got ${jwksRes.status}`);
      const keys = new Map(jwks.keys.map((k) => [k.kid, publicKeyFromJwk(k as JsonWebKey)]));
      keyFor.set('sandbox', (kid) => keys.get(kid));
      const local = createLocalJWKSet(jwks);
      checks.push(
        ...(await spotCheck('sandbox', sandbox.url, guid, first, async (t) => {
          const { payload, protectedHeader } = await jwtVerify(t, local, { algorithms: ['RS256'] });
          const echoes = payload.obj === first.claims.obj && payload.sub === first.claims.sub;
          return `kid ${protectedHeader.kid}, claims ${Object.keys(payload).join(',')}${echoes ? ', obj/sub echo the bank token' : ''}`;
        })),
      );
    }
    const crypto = servers.get('crypto-floor');
    if (crypto) {
      const key = publicKeyFromJwk(crypto.ready.jwk as JsonWebKey);
      keyFor.set('crypto-floor', () => key);
      checks.push(
        ...(await spotCheck('crypto-floor', crypto.url, guid, first, async (t) => {
          const v = verifyJwtSync(t, key);
          if (!v) throw new Error('bad signature');
          return `kid ${v.header.kid}`;
        })),
      );
    }
    const http = servers.get('http-floor');
    if (http)
      checks.push(...(await spotCheck('http-floor', http.url, guid, first, async () => 'constant body')));
    reportChecks(ctx, checks);

    // The load: each target rotates through the whole pool with its own cursor.
    const targets: LoadTarget[] = want.map((id, i) => {
      const server = servers.get(id)!;
      const next = rotate(tokens, i * 7);
      const path = authPath(guid);
      return {
        id,
        title:
          id === 'crypto-floor' && cfg.cryptoFloor === 'async'
            ? 'crypto floor (verify+sign, async)'
            : TARGETS[id],
        url: server.url,
        nextRequest: () => ({ method: 'POST', path, headers: { 'CX-Authorization': next().token } }),
        verifyBody: sessionBodyCheck(keyFor.get(id) ?? null, cfg.verifyEvery),
      };
    });
    const alive = aliveCheck(servers);
    const runs = await runInterleaved(targets, roundPlan(cfg), {
      log: ctx.log,
      beforeRun: (t) => alive(t.id),
    });

    // Still correct after the load.
    if (sandbox) {
      const again = await post(sandbox.url + authPath(guid), {
        'cx-authorization': tokens[tokens.length - 1]!.token,
      });
      const t = parseJson(again.text)?.session_token;
      const ok =
        again.status === 200 && typeof t === 'string' && verifyJwtSync(t, keyFor.get('sandbox')!) !== null;
      requireCheck(
        checks,
        {
          id: 'sandbox.after-load',
          ok,
          detail: ok ? '200, session_token verifies' : `got ${again.status} ${again.text.slice(0, 200)}`,
        },
        'sandbox after the load',
      );
    }

    // Stop the children now (gracefully) so profiles get written.
    await Promise.all([...servers.values()].map((s) => s.stop()));
    const profiles = profilesOf(ctx, want, undefined, [join(ctx.root, 'dist/cli/dets-console.js')]);

    const { by, ratio, paired } = runFigures<TargetId>(runs);
    const ratios = {
      sandbox_vs_crypto_floor: ratio('sandbox', 'crypto-floor'),
      sandbox_vs_http_floor: ratio('sandbox', 'http-floor'),
      crypto_floor_vs_http_floor: ratio('crypto-floor', 'http-floor'),
      // The same, median of round-by-round ratios (adjacent runs): a check on the headline.
      sandbox_vs_crypto_floor_paired: paired('sandbox', 'crypto-floor'),
    };
    const verdicts = [
      atLeast(
        'sandbox_throughput_vs_crypto_floor',
        'sandbox throughput ÷ crypto floor',
        ratios.sandbox_vs_crypto_floor,
        0.7,
      ),
      below(
        'sandbox_p99',
        'sandbox p99 latency (median of rounds)',
        finite(by.get('sandbox')?.roundP99Ms),
        50,
      ),
    ];
    const sandboxRun = runs.find((r) => r.id === 'sandbox');
    const notes = [
      `${roundsNote(cfg)}; ` + `load generator and servers share this machine's cores.`,
      `token pool: ${tokens.length} distinct tokens` +
        (sandboxRun
          ? `; each used about ${(sandboxRun.amount / tokens.length).toFixed(1)}× per sandbox round`
          : '') +
        `; 1 response body in ${cfg.verifyEvery} had its signature verified during the load.`,
      `crypto floor: ${cfg.cryptoFloor === 'async' ? 'crypto.verify/sign callback forms (libuv thread pool)' : 'synchronous crypto.verify/sign on its one event loop'}.`,
    ];
    if (sandbox) {
      notes.push(
        `sandbox started via ${cfg.sandboxVia === 'cli' ? 'dist/cli/dets-console.js sandbox' : 'the core bundled from source (dist/bench/servers/sandbox.mjs)'}` +
          (cfg.profile.length
            ? `; profiled under --cpu-prof: ${cfg.profile.join(', ')} (slower than unprofiled)`
            : ''),
      );
    }
    return { id: SUITE_ID, title: SUITE_TITLE, targets: runs, ratios, verdicts, checks, notes, profiles };
  },
};
