/**
 * One form hook over a contract schema and its mutation: the plumbing every dialog repeated
 * (a draft, its problems under the method's zod input schema while typing, the core's refusal
 * under the field it names, a reset of that refusal on the next edit, and a submit that sends
 * only a valid input). The schema is the contract's (electron/contract), so the form refuses
 * exactly what the core would refuse (DESIGN.md "contract": one rule, one place).
 */
import { useState, type FormEvent } from 'react';
import type { z } from 'zod';
import { errorsFor, fieldOfError, problemsOf } from '../shared/field-errors';

/** What the hook needs of a react-query mutation (UseMutationResult satisfies it). */
export interface FormMutation<I, O> {
  mutate: (input: I, options?: { onSuccess?: (output: O) => void }) => void;
  error: Error | null;
  reset: () => void;
}

export interface ContractFormOptions<D, I, O, F extends string> {
  /** The draft to start from (or a function giving it, called once). */
  initial: D | (() => D);
  /** The fields the form shows: problems and refusals naming other paths stay off the fields. */
  fields: readonly F[];
  /** The method's input built from the draft (empty optional fields left out). */
  toInput: (draft: D) => I;
  /** The method's input schema from the contract. */
  schema: z.ZodType;
  mutation: FormMutation<I, O>;
  /**
   * Fields whose problem is "not yet" rather than an error to show (an empty required text):
   * hidden from {@link ContractForm.errorFor} but still blocking submit.
   */
  notYet?: (draft: D) => readonly F[];
}

export interface ContractForm<D, I, O, F extends string> {
  draft: D;
  setDraft: (draft: D) => void;
  /** Patches the draft and clears a refusal shown from the last submit. */
  edit: (patch: Partial<D>) => void;
  input: I;
  /** True when the contract's schema accepts {@link ContractForm.input}. */
  valid: boolean;
  /** The message to show under a field: its problem, else the core's refusal naming it. */
  errorFor: (field: F) => string | undefined;
  /** The mutation's error when it names none of the fields (for an error panel), else null. */
  unplaced: Error | null;
  /** An onSubmit handler: sends a valid input, then calls `onSuccess` with the method's output. */
  submit: (onSuccess: (output: O) => void) => (e?: FormEvent) => void;
}

/**
 * @example
 * const form = useContractForm({
 *   initial: EMPTY, fields: FIELDS, toInput: generateInput,
 *   schema: schemas.GenerateKeyInput, mutation: useGenerateKey(),
 * });
 * <form onSubmit={form.submit((key) => close())}>…{form.errorFor('kid')}…</form>
 */
export function useContractForm<D extends object, I, O, F extends string>(
  options: ContractFormOptions<D, I, O, F>,
): ContractForm<D, I, O, F> {
  const { fields, toInput, schema, mutation, notYet } = options;
  const [draft, setDraft] = useState<D>(options.initial);
  const input = toInput(draft);
  const problems = problemsOf<F>(schema, input);
  const valid = Object.keys(problems).length === 0;
  const shown = { ...problems };
  for (const f of notYet?.(draft) ?? []) delete shown[f];
  const refused = mutation.error ? fieldOfError(mutation.error, fields) : null;
  const edit = (patch: Partial<D>) => {
    if (mutation.error) mutation.reset();
    setDraft((d) => ({ ...d, ...patch }));
  };
  const submit = (onSuccess: (output: O) => void) => (e?: FormEvent) => {
    e?.preventDefault();
    if (!valid) return;
    mutation.mutate(input, { onSuccess });
  };
  const unplaced = refused?.field === null ? mutation.error : null;
  return { draft, setDraft, edit, input, valid, errorFor: errorsFor<F>(shown, refused), unplaced, submit };
}
