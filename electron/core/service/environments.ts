/**
 * Environments: where the console talks to the service. The built-in sandbox (id "sandbox") is
 * always there, needs no configuration and follows the sandbox listener's live URL; real
 * environments carry their own base_url. Each has the per-profile fields the client needs:
 * counterparty_guid, active_kid, default obj/sub (DESIGN.md "onboarding": zero configuration
 * against the sandbox first, then a real environment).
 *
 * Stored in `<dataDir>/environments.json` (environments-file.ts: re-read on every call, never
 * overwritten when damaged); the views in environments-view.ts, env.save's rules in
 * environments-edit.ts. This file only wires them, one change at a time.
 */
import { ConsoleError } from '../../contract/errors';
import { SaveEnvironmentInput } from '../../contract/schemas/service';
import { invalidArgument, serializer } from '../common';
import type { EventHub } from '../event-hub';
import { applySave } from './environments-edit';
import { EnvironmentsFile, SANDBOX_ENVIRONMENT_ID, type StoredFile } from './environments-file';
import { environmentNotFound, environmentsView, findEnvironment, type SandboxUrl } from './environments-view';
import type { EnvironmentStore } from './types';

export { ENVIRONMENTS_FILE, SANDBOX_ENVIRONMENT_ID } from './environments-file';

/** The stored profile of environment `id` (the sandbox's or a real one's); NOT_FOUND otherwise. */
function profileOf(state: StoredFile, id: string): StoredFile['sandbox'] {
  if (id === SANDBOX_ENVIRONMENT_ID) return state.sandbox;
  const env = state.environments.find((e) => e.id === id);
  if (!env) throw environmentNotFound(id);
  return env;
}

export interface EnvironmentStoreOptions {
  dataDir: string;
  /** The sandbox listener's URL while it runs, else null (read on every call: it can start later). */
  sandboxUrl: SandboxUrl;
  /** Emits `env.changed` after every change. */
  events?: EventHub;
}

/**
 * Creates the environment store of one profile.
 *
 * @example
 * const envs = createEnvironmentStore({ dataDir, sandboxUrl: () => 'http://127.0.0.1:7302' });
 * const staging = await envs.save({ name: 'Staging', base_url: 'https://dets.staging.example' });
 * await envs.activate(staging.id);
 * (await envs.get()).effective_jwks_url; // 'https://dets.staging.example/api/v1/.well-known/jwks.json'
 */
export function createEnvironmentStore(options: EnvironmentStoreOptions): EnvironmentStore {
  const file = new EnvironmentsFile(options.dataDir);
  const serial = serializer();
  const view = (state: StoredFile) => environmentsView(state, options.sandboxUrl);
  const find = (state: StoredFile, id: string) => findEnvironment(state, id, options.sandboxUrl);
  /** Writes the state and tells the pages. */
  const commit = async (state: StoredFile) => {
    await file.save(state);
    const environments = view(state);
    options.events?.emit('env.changed', environments);
    return environments;
  };

  return {
    async list() {
      return view(await file.load());
    },

    async get(id) {
      const state = await file.load();
      return find(state, id ?? state.active_id);
    },

    save(rawInput) {
      return serial(async () => {
        const parsed = SaveEnvironmentInput.safeParse(rawInput);
        if (!parsed.success) throw invalidArgument(parsed.error, 'environment');
        const state = await file.load();
        const savedId = applySave(state, parsed.data);
        await commit(state);
        return find(state, savedId);
      });
    },

    remove(id) {
      return serial(async () => {
        const state = await file.load();
        if (id === SANDBOX_ENVIRONMENT_ID) {
          throw new ConsoleError(
            'CONFLICT',
            'the sandbox environment is built in and cannot be removed; clear its counterparty_guid or ' +
              'active_kid instead (env.save with id "sandbox"), or activate another environment',
            { field: 'id' },
          );
        }
        find(state, id); // NOT_FOUND
        state.environments = state.environments.filter((e) => e.id !== id);
        if (state.active_id === id) state.active_id = SANDBOX_ENVIRONMENT_ID;
        await commit(state);
      });
    },

    async sshTunnel(id) {
      const state = await file.load();
      const envId = id ?? state.active_id;
      return { environment_id: envId, settings: profileOf(state, envId).ssh_tunnel };
    },

    saveSshTunnel(id, settings) {
      return serial(async () => {
        const state = await file.load();
        const envId = id ?? state.active_id;
        profileOf(state, envId).ssh_tunnel = { ...settings, options: [...settings.options] };
        await commit(state);
      });
    },

    activate(id) {
      return serial(async () => {
        const state = await file.load();
        find(state, id); // NOT_FOUND
        if (state.active_id === id) return view(state);
        state.active_id = id;
        return commit(state);
      });
    },
  };
}
