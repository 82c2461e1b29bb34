/**
 * References inside a scenario's text (DESIGN.md "Scenarios": "fresh or referenced
 * transaction_ids"): `${name}` is a variable of the file (`obj`, `sub`, or one of `variables`),
 * `${step.field}` what an earlier step produced. A reference is resolved when its step runs, from
 * the values steps before it produced in this run, never from the recording: that is why a
 * replay carries fresh tokens and fresh transaction_ids.
 */

/** One `${…}` in a text: a variable (`field` null) or an earlier step's output. */
export interface Ref {
  raw: string;
  name: string;
  field: string | null;
}

const REF = /\$\{([A-Za-z][A-Za-z0-9_-]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?\}/g;

/** What each step kind produces for later steps to refer to (the secret `key` never). */
export const STEP_OUTPUTS = {
  'sign-in': ['obj', 'sub', 'external_id', 'phone'],
  callback: ['obj', 'sub', 'external_id'],
  notification: ['transaction_id'],
} as const;

/**
 * Every reference in `text`, in order.
 *
 * @example
 * refsIn('${payin.transaction_id}'); // [{ raw: '${payin.transaction_id}', name: 'payin', field: 'transaction_id' }]
 */
export function refsIn(text: string): Ref[] {
  return [...text.matchAll(REF)].map((m) => ({ raw: m[0], name: m[1]!, field: m[2] ?? null }));
}

/** What references resolve against: the file's variables and each finished step's outputs. */
export interface RefScope {
  variables: Readonly<Record<string, string>>;
  outputs: ReadonlyMap<string, Readonly<Record<string, string>>>;
}

/** The reason a reference cannot be resolved now, or null when it can. */
export function unresolved(ref: Ref, scope: RefScope): string | null {
  if (ref.field === null) {
    return ref.name in scope.variables
      ? null
      : `${ref.raw}: no variable "${ref.name}" (give it in "variables" or, for obj and sub, with --obj/--sub)`;
  }
  const out = scope.outputs.get(ref.name);
  if (!out)
    return `${ref.raw}: step "${ref.name}" produced nothing (it did not run, or failed before sending)`;
  return ref.field in out ? null : `${ref.raw}: step "${ref.name}" produced no ${ref.field}`;
}

/**
 * `text` with every reference replaced; throws a one-line reason naming the first that cannot be.
 *
 * @example
 * resolveRefs('${obj}', { variables: { obj: 'DE89…' }, outputs: new Map() }); // 'DE89…'
 */
export function resolveRefs(text: string, scope: RefScope): string {
  return text.replace(REF, (raw: string, name: string, field: string | undefined) => {
    const ref = { raw, name, field: field ?? null };
    const why = unresolved(ref, scope);
    if (why) throw new Error(why);
    return field === undefined ? scope.variables[name]! : scope.outputs.get(name)![field]!;
  });
}
