/**
 * The sign-in form's state for one counterparty: the mode (compose a bank JWT with a vault key,
 * or paste one), the draft kept per counterparty in the sandbox store, what blocks a run, and the
 * submit that signs (jwt.sign: the key never leaves the core) then runs the flow (spec 4.4).
 */
import { type FormEvent } from 'react';
import type { Counterparty } from '../../../electron/contract/schemas/sandbox';
import { analyzeTokenText } from '../../shared/token-text';
import { useCustomers } from '../../data/bank';
import { useSignJwt } from '../../data/jwt';
import { defaultKid, useKeys } from '../../data/keys';
import { useEnvironments } from '../../data/environments';
import { useSignIn } from '../../data/sandbox';
import { EMPTY_SIGN_IN, showTrace, useSandboxStore, type SignInDraft } from './sandbox-store';

/** The composed token's lifetime: well inside the sandbox's 1 h limit (spec 2.4). */
export const COMPOSED_TTL = 300;

function composeProblemOf(kid: string, obj: string, sub: string): string | null {
  if (kid === '') return 'choose a vault key';
  if (obj.trim() === '') return 'obj is required: the customer (IBAN or phone)';
  if (sub.trim() === '') return 'sub is required: who acts';
  return null;
}

/** The sign-in form's state and actions for `counterparty`. */
export function useSignInForm(counterparty: Counterparty) {
  const guid = counterparty.counterparty_guid;
  const raw = useSandboxStore((s) => s.signInTokens[guid] ?? '');
  const setToken = useSandboxStore((s) => s.setSignInToken);
  const draft = useSandboxStore((s) => s.signInDrafts[guid]) ?? EMPTY_SIGN_IN;
  const setDraft = useSandboxStore((s) => s.setSignInDraft);
  const keys = useKeys();
  const sandboxEnv = useEnvironments().data?.environments.find((e) => e.kind === 'sandbox') ?? null;
  const customers = useCustomers();
  const sign = useSignJwt();
  const signIn = useSignIn(showTrace);
  const { token, stripped } = analyzeTokenText(raw);
  const kids = counterparty.jwks.map((j) => j.jwk.kid).filter((k): k is string => typeof k === 'string');
  const vaultKeys = keys.data ?? [];
  const registered = vaultKeys.filter((k) => kids.includes(k.kid));
  const mode = draft.mode ?? (registered.length > 0 ? 'compose' : 'paste');
  // The sandbox environment's active key when the counterparty registered it, never a key the
  // sandbox retired (issue 26: the form preselected the first vault key even when retired).
  const kid = draft.kid ?? defaultKid(vaultKeys, sandboxEnv, kids);
  const customerList = customers.data ?? [];
  const obj = draft.obj ?? customerList[0]?.obj ?? '';
  const sub = draft.sub ?? customerList[0]?.sub ?? '';
  const composeProblem = composeProblemOf(kid, obj, sub);
  const ready = mode === 'paste' ? token !== '' : composeProblem === null;

  const edit = (patch: Partial<SignInDraft>) => {
    if (!signIn.isIdle) signIn.reset();
    if (!sign.isIdle) sign.reset();
    setDraft(guid, patch);
  };

  const paste = (text: string) => {
    if (!signIn.isIdle) signIn.reset();
    setToken(guid, text);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!ready) return;
    if (mode === 'paste') {
      signIn.mutate({ counterparty_guid: guid, token });
      return;
    }
    sign.mutate(
      { kid, obj: obj.trim(), sub: sub.trim(), ttl: COMPOSED_TTL },
      { onSuccess: (signed) => signIn.mutate({ counterparty_guid: guid, token: signed.token }) },
    );
  };

  return {
    id: `sign-in-token-${guid}`,
    counterparty,
    raw,
    stripped,
    kids,
    vaultKeys,
    registered,
    mode,
    kid,
    customerList,
    obj,
    sub,
    composeProblem,
    ready,
    sign,
    signIn,
    edit,
    paste,
    submit,
  };
}

/** What {@link useSignInForm} gives the form's parts. */
export type SignInFormState = ReturnType<typeof useSignInForm>;
