/**
 * X-Session-ID verification on the bank's callbacks (DESIGN.md "Bank endpoints"): the one
 * engine (electron/core/jwt/engine.ts) with the bank's inputs: the service JWKS (found per kid
 * within the callback's 1 s budget), obj a known customer, and sub the customer's, else a sub
 * the console signed for this obj within the hour, else any non-empty sub with a warning.
 *
 * Threat model: the token is attacker-controlled; every rule is the engine's, nothing here
 * re-decides one. What this file adds is only the bank's customer directory.
 */
import type { Check } from '../../contract/schemas/inspector';
import type { Customer } from '../../contract/schemas/bank';
import { ENGINE_CHECK_IDS, verifyToken, type DecodedToken, type EngineCheckId } from '../jwt';
import { CALLBACK_BUDGET_MS } from './forward';
import type { JwksLookup, JwksSource, JwksState } from '../jwt';

/** The bank's check ids, in order (DESIGN.md "Bank endpoints"). */
export const BANK_CHECK_IDS = ENGINE_CHECK_IDS.filter((id) => id !== 'lifetime');
export type BankCheckId = Exclude<EngineCheckId, 'lifetime'>;
/** The header the service sends its JWT in on every callback (spec 4.2). */
export const SESSION_HEADER = 'X-Session-ID';

export interface Verdict {
  ok: boolean;
  /** Id of the first failed check, or null. */
  failed: BankCheckId | null;
  detail: string;
  /** The token checks (present has no Check: with no header, every token check is skipped). */
  checks: Check[];
  decoded: DecodedToken | null;
  customer: Customer | null;
  obj: string | null;
  sub: string | null;
  warning: string | null;
  jwks: JwksState;
  /** The environment whose service JWKS held the token's kid (issue 26), or null. */
  environment: { id: string | null; name: string } | null;
}

export interface VerifyDeps {
  /** The service JWKS: one environment's (a JwksClient) or every environment's (a JwksPool). */
  jwks: {
    keySetFor(
      kid: string | undefined,
      deadlineMs: number,
    ): Promise<JwksLookup & { source?: JwksSource | null }>;
    state(): JwksState;
  };
  customer: (obj: string) => Customer | undefined;
  subsFor: (obj: string) => Promise<string[]>;
  nowSeconds: () => number;
  /** What to configure when no JWKS URL is known. */
  noUrlHint: string;
  /** When the callback's budget ends (ms, on the clock the JWKS client uses). */
  deadlineMs?: number;
  /**
   * Passed checks without words, and no list of checks in the verdict (a callback's checks are
   * rebuilt when its event is read).
   */
  lean?: boolean;
}

const claim = (payload: Record<string, unknown> | null, name: string): string | null => {
  const v = payload?.[name];
  return typeof v === 'string' ? v : null;
};

export async function verifySessionToken(
  header: string | string[] | undefined,
  deps: VerifyDeps,
): Promise<Verdict> {
  let jwksState: JwksState | null = null;
  let source: JwksSource | null = null;
  let customer: Customer | null = null;
  let warning: string | null = null;
  const token = Array.isArray(header) ? header[0] : header;
  const deadline = deps.deadlineMs ?? Date.now() + CALLBACK_BUDGET_MS;

  const v = await verifyToken({
    token,
    header: SESSION_HEADER,
    headerWhy: 'the service sends its JWT there on every callback (spec 4.2)',
    nowSeconds: deps.nowSeconds(),
    mode: 'first-failure',
    lean: deps.lean === true,
    keys: {
      kind: 'lookup',
      forKid: async (kid) => {
        const found = await deps.jwks.keySetFor(kid, deadline);
        jwksState = found.state;
        // The environment is the one whose JWKS holds the kid: none when no set has it.
        const holds = found.set !== null && (kid === undefined || kid === '' || found.set.lookup(kid).found);
        source = holds ? (found.source ?? null) : null;
        if (!found.set && found.state.url === null) {
          return { set: null, detail: `no service JWKS URL is configured: ${deps.noUrlHint}` };
        }
        return { set: found.set, detail: found.detail };
      },
    },
    obj: (obj) => {
      customer = deps.customer(obj) ?? null;
      return customer
        ? { ok: true, detail: `obj ${JSON.stringify(obj)} is a known customer` }
        : {
            ok: false,
            detail: `obj ${JSON.stringify(obj)} is not a known customer: add it to the bank's customers (Bank page, or --users)`,
          };
    },
    sub: async (sub, payload) => {
      const known = customer as Customer | null;
      if (known?.sub !== undefined) {
        return sub === known.sub
          ? { ok: true, detail: `sub is ${JSON.stringify(sub)}, as expected: the customer's sub` }
          : {
              ok: false,
              detail: `sub is ${JSON.stringify(sub)}, but ${JSON.stringify(known.sub)} was expected (the customer's sub)`,
            };
      }
      const obj = payload.obj as string;
      let signed: string[] = [];
      try {
        signed = await deps.subsFor(obj);
      } catch (err) {
        warning = `the console's signed pairs could not be read (${err instanceof Error ? err.message : String(err)}); sub not compared`;
      }
      if (signed.length > 0) {
        return signed.includes(sub)
          ? {
              ok: true,
              detail: `sub ${JSON.stringify(sub)}: the console signed a JWT for this obj/sub within the last hour`,
            }
          : {
              ok: false,
              detail: `sub ${JSON.stringify(sub)} is not a sub the console signed for obj ${JSON.stringify(obj)} within the last hour (${signed.map((s) => JSON.stringify(s)).join(', ')})`,
            };
      }
      warning ??=
        'sub not checked: the customer has no sub and the console signed no JWT for this obj within the last hour';
      return { ok: true, detail: `sub ${JSON.stringify(sub)} is non-empty; ${warning}` };
    },
  });
  const payload = v.decoded?.payload ?? null;
  return {
    ok: v.ok,
    failed: v.failed as BankCheckId | null,
    detail: v.detail,
    // Lean (a callback's hot path): its checks are rebuilt when its event is read, not kept here.
    checks: deps.lean === true ? [] : v.checks.filter((c) => c.id !== 'present' && c.id !== 'lifetime'),
    decoded: v.decoded,
    customer: v.ok || v.failed === 'sub' ? customer : null,
    obj: claim(payload, 'obj'),
    sub: claim(payload, 'sub'),
    warning: v.ok ? warning : null,
    jwks: jwksState ?? deps.jwks.state(),
    environment: environmentOf(source),
  };
}

/** What an event says of the environment a source belongs to. */
function environmentOf(source: JwksSource | null): Verdict['environment'] {
  const s = source as JwksSource | null;
  return s ? { id: s.environment, name: s.name } : null;
}
