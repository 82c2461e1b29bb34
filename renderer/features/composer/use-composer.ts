/**
 * The Composer page's state: the draft of the active environment (kept in the composer store),
 * the values it stands for, their problems and the sign and send mutations. The page's panels
 * read what they show from here.
 */
import { type FormEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { errorsFor, fieldOfError } from '../../shared/field-errors';
import { useActiveEnvironment } from '../../data/environments';
import { useKeys } from '../../data/keys';
import { useAuthenticate } from '../../data/service';
import { useSignJwt } from '../../data/jwt';
import { buildSignInput, effectiveValues, type ComposerField } from './build-input';
import { draftFor, useComposerStore, type ComposerDraft } from './composer-store';
import { historyEntry } from './composer-history';

export const COMPOSER_FIELDS: readonly ComposerField[] = ['kid', 'obj', 'sub', 'iat', 'ttl'];
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The Composer's state and its two actions (edit a claim, sign). */
export function useComposer() {
  const keys = useKeys();
  const env = useActiveEnvironment();
  const envId = env?.id ?? '';
  const draft = useComposerStore(useShallow((s) => draftFor(s, envId)));
  const set = useComposerStore((s) => s.set);
  const remember = useComposerStore((s) => s.remember);
  const sign = useSignJwt();
  const send = useAuthenticate();
  const keyList = keys.data ?? [];
  const values = effectiveValues(draft, keyList, env);
  const { input, problems } = buildSignInput(values);
  const refused = sign.error ? fieldOfError(sign.error, COMPOSER_FIELDS) : null;
  const errorFor = errorsFor<ComposerField>(problems, refused);
  const signed = sign.data;
  const stale = signed !== undefined && !sameJson(sign.variables, input);

  const edit = (patch: Partial<ComposerDraft>) => {
    if (sign.error) sign.reset();
    set(envId, patch);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const invalid = COMPOSER_FIELDS.find((f) => problems[f] !== undefined);
    if (invalid) {
      document.getElementById(`composer-${invalid}`)?.focus();
      return;
    }
    sign.mutate(input, {
      onSuccess: (result) => {
        send.reset();
        remember(historyEntry(result, input, envId));
      },
    });
  };

  // What the shown token was signed for (the form may have changed since: "stale").
  const signedFor = sign.variables ?? input;
  return {
    keys,
    keyList,
    env,
    values,
    errorFor,
    refused,
    sign,
    send,
    signed,
    stale,
    signedFor,
    edit,
    submit,
  };
}

/** What {@link useComposer} gives the page's panels. */
export type ComposerState = ReturnType<typeof useComposer>;
