/**
 * The signing keys as server state (STYLE.md 7): the query-key factory and every query and
 * mutation of `keys.*`, plus the sandbox registration that onboards a key. Pages import these;
 * they never call `api.keys` themselves.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MethodInput } from '../../electron/contract';
import { preferredKid } from '../../electron/contract/key-status';
import { KeyBits, SigningAlg, type KeyInfo } from '../../electron/contract/schemas/keys';
import type { Environment } from '../../electron/contract/schemas/service';
import { useApi } from '../api/client-context';
import { envKeys } from './environments';

export type ExportFormat = MethodInput<'keys.export'>['format'];

/** The algorithms and sizes a key can be generated with: the contract's own lists. */
export const ALGS = SigningAlg.options;
export const BITS = KeyBits.options.map((o) => o.value);

/** Query keys of the signing keys. */
export const keysKeys = {
  all: ['keys'] as const,
  /** keys.list; live `keys.changed` events replace it. */
  list: () => [...keysKeys.all, 'list'] as const,
  exports: () => [...keysKeys.all, 'export'] as const,
  /** keys.export of one key in one format (public parts only). */
  export: (kid: string, format: ExportFormat) => [...keysKeys.exports(), kid, format] as const,
};

/**
 * @example
 * const keys = useKeys().data ?? [];
 */
export function useKeys() {
  const api = useApi();
  return useQuery({ queryKey: keysKeys.list(), queryFn: () => api.keys.list() });
}

/**
 * The key a form signing for `env` starts with: the environment's active key, never one the
 * environment retired (contract/key-status.ts, issue 26); '' when there is none. `among`: only
 * these kids (e.g. the keys a sandbox counterparty registered).
 */
export function defaultKid(
  keys: KeyInfo[],
  env: Pick<Environment, 'active_kid' | 'retired_kids'> | null | undefined,
  among?: readonly string[],
): string {
  if (env?.active_kid && among === undefined) return env.active_kid;
  return preferredKid(keys, env ?? null, among) ?? '';
}

/** A key's public part in one format; reading it changes nothing, so it is a query. */
export function useKeyExport(kid: string, format: ExportFormat) {
  const api = useApi();
  return useQuery({
    queryKey: keysKeys.export(kid, format),
    queryFn: () => api.keys.export({ kid, format }),
    staleTime: Infinity,
  });
}

function useKeysMutation<I, O>(run: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keysKeys.list() }),
  });
}

export function useGenerateKey() {
  const api = useApi();
  return useKeysMutation((input: MethodInput<'keys.generate'>) => api.keys.generate(input));
}

export function useImportKey() {
  const api = useApi();
  return useKeysMutation((input: MethodInput<'keys.import'>) => api.keys.import(input));
}

/** A key held elsewhere (HSM, KMS, Vault): the core test-signs with its command before storing it. */
export function useAddExternalKey() {
  const api = useApi();
  return useKeysMutation((input: MethodInput<'keys.addExternal'>) => api.keys.addExternal(input));
}

export function useUpdateKey() {
  const api = useApi();
  return useKeysMutation((input: MethodInput<'keys.update'>) => api.keys.update(input));
}

export function useDeleteKey() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (kid: string) => api.keys.delete({ kid, confirm: true }),
    onSuccess: ({ deleted }) => {
      queryClient.setQueryData<KeyInfo[]>(keysKeys.list(), (old) => old?.filter((k) => k.kid !== deleted));
      queryClient.removeQueries({ queryKey: keysKeys.exports() });
      return queryClient.invalidateQueries({ queryKey: keysKeys.list() });
    },
  });
}

export interface SandboxRegistration {
  kid: string;
  counterparty_guid: string;
  jwk_guid: string;
}

/** Where a registration stopped after the sandbox had already onboarded the key. */
export class PartialRegistrationError extends Error {
  constructor(
    readonly counterpartyGuid: string,
    readonly reason: unknown,
  ) {
    super(
      `The sandbox onboarded the key as counterparty ${counterpartyGuid}, but the environment was not updated: ${
        reason instanceof Error ? reason.message : String(reason)
      }. Set that GUID on the Environments page.`,
    );
    this.name = 'PartialRegistrationError';
  }
}

/**
 * "Register with the sandbox": onboard the key's public JWK as a new counterparty, then make the
 * sandbox environment use that counterparty and this key (the two steps a bank does by hand with
 * a real service's onboarding).
 */
export function useRegisterWithSandbox() {
  const api = useApi();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ key, env }: { key: KeyInfo; env: Environment }): Promise<SandboxRegistration> => {
      const { counterparty_guid, jwk_guid } = await api.sandbox.onboard({ jwk: key.public_jwk });
      try {
        await api.env.save({ id: env.id, counterparty_guid, active_kid: key.kid });
      } catch (err) {
        throw new PartialRegistrationError(counterparty_guid, err);
      }
      return { kid: key.kid, counterparty_guid, jwk_guid };
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: envKeys.list() }),
  });
}
