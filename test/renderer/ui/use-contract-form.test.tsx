// @vitest-environment jsdom
/**
 * useContractForm (renderer/ui/use-contract-form.ts): the dialog plumbing in one place, driven
 * with the contract's own keys.import schema and a recording mutation. Problems come from the
 * schema while typing, "not yet" fields block without shouting, a refusal lands under the field
 * `error.details.field` names (else in `unplaced`), the next edit clears it, and only a valid
 * input is ever sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, renderHook } from '@testing-library/react';
import { ConsoleError, schemas, type MethodInput } from '../../../electron/contract';
import { useContractForm, type FormMutation } from '../../../renderer/ui/use-contract-form';

afterEach(() => cleanup());

type Input = MethodInput<'keys.import'>;
const FIELDS = ['text', 'kid', 'label'] as const;
interface Draft {
  text: string;
  kid: string;
  label: string;
}
const EMPTY: Draft = { text: '', kid: '', label: '' };

function toInput(d: Draft): Input {
  const input: Input = { text: d.text };
  if (d.kid !== '') input.kid = d.kid;
  if (d.label !== '') input.label = d.label;
  return input;
}

/** A mutation that records what it was sent; `error` is set by the test like a refused call. */
function recording() {
  const m = {
    sent: [] as Input[],
    error: null as Error | null,
    resets: 0,
    onSuccess: undefined as ((out: string) => void) | undefined,
    mutate(input: Input, options?: { onSuccess?: (out: string) => void }) {
      m.sent.push(input);
      m.onSuccess = options?.onSuccess;
    },
    reset() {
      m.resets += 1;
      m.error = null;
    },
  };
  return m satisfies FormMutation<Input, string>;
}

function setup(mutation = recording()) {
  const hook = renderHook(() =>
    useContractForm({
      initial: EMPTY,
      fields: FIELDS,
      toInput,
      schema: schemas.ImportKeyInput,
      mutation,
      notYet: (d) => (d.text === '' ? ['text'] : []),
    }),
  );
  return { hook, mutation };
}

describe('useContractForm', () => {
  it('hides a "not yet" problem but refuses to send it', () => {
    const { hook, mutation } = setup();
    expect(hook.result.current.valid).toBe(false);
    expect(hook.result.current.errorFor('text')).toBeUndefined();
    act(() => hook.result.current.submit(() => undefined)());
    expect(mutation.sent).toEqual([]);
  });

  it("shows the contract schema's problem under its field while typing, and sends nothing then", () => {
    const { hook, mutation } = setup();
    act(() => hook.result.current.edit({ text: 'PEM', label: 'x'.repeat(201) }));
    expect(hook.result.current.valid).toBe(false);
    expect(hook.result.current.errorFor('label')).toMatch(/200|too big|at most/i);
    expect(hook.result.current.errorFor('kid')).toBeUndefined();
    act(() => hook.result.current.submit(() => undefined)());
    expect(mutation.sent).toEqual([]);
  });

  it('sends the built input once valid and hands the output to onSuccess', () => {
    const { hook, mutation } = setup();
    act(() => hook.result.current.edit({ text: 'PEM', kid: 'k1' }));
    const done: string[] = [];
    act(() => hook.result.current.submit((out) => done.push(out))());
    expect(mutation.sent).toEqual([{ text: 'PEM', kid: 'k1' }]);
    mutation.onSuccess?.('imported');
    expect(done).toEqual(['imported']);
  });

  it('puts a refusal under the field details.field names, and the next edit clears it', () => {
    const mutation = recording();
    mutation.error = new ConsoleError('BAD_ARGUMENT', 'keys.import: kid: already in the vault', {
      field: 'kid',
    });
    const { hook } = setup(mutation);
    expect(hook.result.current.errorFor('kid')).toBe('already in the vault');
    expect(hook.result.current.unplaced).toBeNull();
    act(() => hook.result.current.edit({ kid: 'k2' }));
    expect(mutation.resets).toBe(1);
  });

  it('keeps a refusal that names no field for an error panel (unplaced)', () => {
    const mutation = recording();
    const error = new ConsoleError('VAULT_LOCKED', 'the vault is locked');
    mutation.error = error;
    const { hook } = setup(mutation);
    expect(hook.result.current.unplaced).toBe(error);
    for (const f of FIELDS) expect(hook.result.current.errorFor(f)).toBeUndefined();
  });
});
