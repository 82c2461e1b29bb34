import type { z } from 'zod';
import { ConsoleError, isMethodName } from '../../electron/contract';

/**
 * Where a refused call's error belongs in a form. BAD_ARGUMENT messages name the field
 * ("sandbox.onboard: bank_auth_url: must be an http(s) URL", "env.save: base_url: must be an
 * http(s) URL", "jwk: the JWK is a private key…");
 * the contract's validation also lists the issue paths in `details.issues`, the sandbox core
 * the field in `details.field`.
 */
export function fieldOfError<F extends string>(
  err: unknown,
  fields: readonly F[],
): { field: F | null; message: string } {
  const raw = err instanceof Error ? err.message : String(err);
  // "sandbox.onboard: …", "env.save: …": the method prefix says nothing the form does not know.
  const prefix = /^([a-z]+\.[A-Za-z]+):\s*/.exec(raw);
  const message = prefix && isMethodName(prefix[1]) ? raw.slice(prefix[0].length) : raw;
  if (!(err instanceof ConsoleError) || err.code !== 'BAD_ARGUMENT') return { field: null, message: raw };
  // The contract's validation lists issue paths; the core names the field it refused.
  const details = err.details as { issues?: Array<{ path?: unknown[] }>; field?: unknown } | undefined;
  const named = typeof details?.field === 'string' ? details.field.split('.')[0] : undefined;
  const first = details?.issues?.[0]?.path?.[0] ?? named;
  if (typeof first === 'string' && (fields as readonly string[]).includes(first)) {
    return { field: first as F, message: stripField(message, first) };
  }
  // Longest names first, whole words only, so `jwk_guid` is never taken for `jwk`.
  const names = [...fields].sort((a, b) => b.length - a.length);
  let found: { field: F; at: number } | null = null;
  for (const name of names) {
    const m = new RegExp(`(^|[^A-Za-z0-9_])${name}(?![A-Za-z0-9_])`).exec(message);
    if (m && (found === null || m.index < found.at)) found = { field: name, at: m.index };
  }
  return found ? { field: found.field, message: stripField(message, found.field) } : { field: null, message };
}

function stripField(message: string, field: string): string {
  const prefix = new RegExp(`^${field}(\\.[\\w.]+)?:\\s*`);
  const m = prefix.exec(message);
  return m ? `${m[1] ? `${m[1].slice(1)}: ` : ''}${message.slice(m[0].length)}` : message;
}

/** The first problem of `value` under a contract schema, or null; empty means "not given". */
export function problemOf(schema: z.ZodType, value: string): string | null {
  if (value.trim() === '') return null;
  const r = schema.safeParse(value.trim());
  return r.success ? null : (r.error.issues[0]?.message ?? 'invalid');
}

/**
 * Every problem of a whole candidate input under a contract schema, by top-level field (the first
 * issue of each), for showing errors while typing.
 */
export function problemsOf<F extends string>(schema: z.ZodType, input: unknown): Partial<Record<F, string>> {
  const r = schema.safeParse(input);
  if (r.success) return {};
  const out: Partial<Record<F, string>> = {};
  for (const issue of r.error.issues) {
    const field = issue.path[0];
    if (typeof field === 'string' && !(field in out)) out[field as F] = issue.message;
  }
  return out;
}

/**
 * A form's error for each field: the problem found while typing, else the message of a refusal
 * that names that field (from {@link fieldOfError}).
 */
export function errorsFor<F extends string>(
  problems: Partial<Record<F, string>>,
  refused: { field: F | null; message: string } | null,
): (field: F) => string | undefined {
  return (f) => problems[f] ?? (refused?.field === f ? refused.message : undefined);
}
