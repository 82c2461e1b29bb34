import type { z } from 'zod';
import { ConsoleError, errorField, isMethodName } from '../../electron/contract';

/**
 * Where a refused call's error belongs in a form: every BAD_ARGUMENT names its field in
 * `details.field` (a dotted path into the method's input, contract/errors.ts
 * BadArgumentDetails), and the form shows the message under the top-level field it starts with
 * ("jwk.n" goes under jwk). A refusal naming no field of this form belongs to the form as a
 * whole. The message loses the method prefix ("sandbox.onboard: …") and the field's own
 * ("bank_auth_url: must be an http(s) URL" under bank_auth_url reads "must be an http(s) URL").
 */
export function fieldOfError<F extends string>(
  err: unknown,
  fields: readonly F[],
): { field: F | null; message: string } {
  const raw = err instanceof Error ? err.message : String(err);
  if (!(err instanceof ConsoleError) || err.code !== 'BAD_ARGUMENT') return { field: null, message: raw };
  // "sandbox.onboard: …", "env.save: …": the method prefix says nothing the form does not know.
  const prefix = /^([a-z]+\.[A-Za-z]+):\s*/.exec(raw);
  const message = prefix && isMethodName(prefix[1]) ? raw.slice(prefix[0].length) : raw;
  const named = errorField(err)?.split('.')[0];
  if (named !== undefined && (fields as readonly string[]).includes(named)) {
    return { field: named as F, message: stripField(message, named) };
  }
  return { field: null, message };
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
