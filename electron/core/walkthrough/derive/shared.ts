/**
 * What every step derivation shares: the draft a step returns, the context computed once from the
 * facts (the reset mark, the active key, the exchanges since the reset), and the small words and
 * time helpers the steps use.
 */
import type { Trace } from '../../../contract/schemas/sandbox';
import type { Exchange } from '../../../contract/schemas/service';
import type { KeyInfo } from '../../../contract/schemas/keys';
import type { WalkthroughStep } from '../../../contract/schemas/walkthrough';
import { serviceWords } from '../../service';
import type { WalkthroughFacts } from '../fact-types';

/** A step as a derivation decides it; its number, title and explanation come from steps.ts. */
export type Draft = Omit<WalkthroughStep, 'id' | 'number' | 'title' | 'explanation' | 'spec' | 'needs'>;

/** A JSON-quoted string, for names in a summary. */
export const quote = (s: string) => JSON.stringify(s);
/** Milliseconds since the epoch of an ISO time. */
export const ms = (iso: string) => Date.parse(iso);
/** Is `a` later than `b` (anything is later than nothing)? */
export const later = (a: string, b: string | null | undefined) => b == null || ms(a) > ms(b);

/** A step's draft: its state and summary, the rest empty unless given. */
export function draft(state: Draft['state'], summary: string, extra: Partial<Draft> = {}): Draft {
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

/** The failed step of a trace: its id and detail. */
export function traceFailure(trace: Trace): { id: string; detail: string } {
  const step = trace.steps.find((s) => s.status === 'failed');
  return { id: step?.id ?? trace.failed ?? 'unknown', detail: step?.detail ?? 'a step failed' };
}

/** When a trace ended (its start plus its duration, rounded up). */
export const traceEnd = (t: Trace) => new Date(ms(t.at) + Math.ceil(t.duration_ms)).toISOString();

/** What every step reads, computed once from the facts. */
export interface DeriveContext {
  facts: WalkthroughFacts;
  env: WalkthroughFacts['env'];
  /** A sandbox environment (the console drives the service), else a real one. */
  sandbox: boolean;
  /** Did `at` happen since the reset (a reset ignores every event before it)? */
  since: (at: string | null | undefined) => boolean;
  /** The environment's active key, when stored. */
  active: KeyInfo | null;
  /** The environment's exchanges with the service since the reset, newest first. */
  exchanges: Exchange[];
}

/**
 * The context every step derivation reads.
 *
 * @example
 * const ctx = deriveContext(facts);
 * keyStep(ctx).state; // 'done' when the active key is stored
 */
export function deriveContext(facts: WalkthroughFacts): DeriveContext {
  const { env } = facts;
  const since = (at: string | null | undefined) =>
    !!at && (facts.resetAt === null || ms(at) >= ms(facts.resetAt));
  return {
    facts,
    env,
    sandbox: env.kind === 'sandbox',
    since,
    active: facts.keys.find((k) => k.kid === env.active_kid) ?? null,
    exchanges: facts.exchanges.filter((e) => since(e.at)),
  };
}
