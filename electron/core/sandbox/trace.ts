/**
 * Traces of the sandbox's calls to a bank (sign-in, notifications): each step judged, with the
 * HTTP request and answer when it is an exchange. What goes into a trace is stored and shown,
 * so secrets are masked on the way in: the user secret `key` a bank answers with (spec 2.5) is
 * replaced by its length. The X-Session-ID is kept as sent: it is the thing under test, signed
 * by the sandbox and short-lived. Headers and bodies are bounded like every recorded request's.
 */
import { randomUUID } from 'node:crypto';
import type { Trace, TraceStep } from '../../contract/schemas/sandbox';
import { boundMessage } from '../http';

/** Longest body text kept in a trace step. */
export const TRACE_BODY_MAX_CHARS = 8 * 1024;

type StepExtra = Pick<Partial<TraceStep>, 'duration_ms' | 'request' | 'response'>;

export class TraceBuilder {
  private readonly steps: TraceStep[] = [];
  private readonly id = randomUUID();
  private readonly startedMs: number;
  private readonly started = performance.now();

  constructor(
    private readonly kind: Trace['kind'],
    private readonly counterpartyGuid: string,
    private readonly now: () => number,
  ) {
    this.startedMs = now();
  }

  step(id: string, title: string, status: TraceStep['status'], detail: string, extra: StepExtra = {}): void {
    this.steps.push({
      id,
      title,
      status,
      detail,
      at: new Date(this.now()).toISOString(),
      duration_ms: extra.duration_ms ?? null,
      // The same bounds as every recorded request (http/bounds.ts, DESIGN.md "Storage"): a
      // bank's answer may carry headers of any size up to the client's limit.
      request: extra.request ? boundMessage(extra.request) : null,
      response: extra.response ? boundMessage(extra.response) : null,
    });
  }

  /** The first failed step's id, or null. */
  get failed(): string | null {
    return this.steps.find((s) => s.status === 'failed')?.id ?? null;
  }

  finish(): Trace {
    const failed = this.failed;
    return {
      id: this.id,
      at: new Date(this.startedMs).toISOString(),
      kind: this.kind,
      counterparty_guid: this.counterpartyGuid,
      ok: failed === null && this.steps.every((s) => s.status !== 'skipped'),
      failed,
      duration_ms: Math.round((performance.now() - this.started) * 10) / 10,
      steps: this.steps,
    };
  }
}

/** A body for a trace: text, cut to {@link TRACE_BODY_MAX_CHARS}. */
export function traceBody(bytes: Buffer | string | null, truncated = false): string | null {
  if (bytes === null) return null;
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  if (text.length <= TRACE_BODY_MAX_CHARS && !truncated) return text;
  return `${text.slice(0, TRACE_BODY_MAX_CHARS)}… (cut: the body is longer)`;
}

/** What a masked secret looks like in a trace. */
export function maskSecret(value: string): string {
  const n = [...value].length;
  return `<masked: ${n} character${n === 1 ? '' : 's'}>`;
}

const KEY_MEMBER = /("key"\s*:\s*)"(?:[^"\\]|\\.)*"/g;

/**
 * A bank's /user_auth answer with the user secret `key` masked. JSON objects are rewritten;
 * anything else has a `"key": "…"` member masked textually, in case it is almost JSON.
 */
export function maskUserSecret(text: string): string {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value) && 'key' in value) {
      const record = value as Record<string, unknown>;
      const key = record.key;
      return JSON.stringify({ ...record, key: typeof key === 'string' ? maskSecret(key) : '<masked>' });
    }
    return text;
  } catch {
    return text.replace(KEY_MEMBER, '$1"<masked>"');
  }
}

/** A sign-in result with the user's secret `key` masked to its length (what the console's page may see). */
export function maskSignInResult<T extends { user: Record<string, unknown> | null }>(result: T): T {
  const user = result.user;
  if (!user || !('key' in user)) return result;
  const key = user.key;
  return { ...result, user: { ...user, key: typeof key === 'string' ? maskSecret(key) : '<masked>' } };
}

/** Response headers for a trace: all of them, with cookies masked. */
export function traceHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = name === 'set-cookie' || name === 'authorization' ? '<masked>' : value;
  }
  return out;
}
