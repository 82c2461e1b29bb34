/**
 * Environments: where the console talks to the service. The built-in sandbox (id "sandbox") is
 * always there, needs no configuration and follows the sandbox listener's live URL; real
 * environments carry their own base_url. Each has the per-profile fields the client needs:
 * counterparty_guid, active_kid, default obj/sub (DESIGN.md "onboarding": zero configuration
 * against the sandbox first, then a real environment).
 *
 * Stored in `<dataDir>/environments.json` (0600, replaced atomically). The file is re-read on
 * every call, so the CLI and the desktop app, which share one profile, see each other's
 * changes; a file that cannot be read or does not have the expected shape is reported as
 * STATE_DAMAGED naming it, and is never overwritten (nothing writes before a read succeeded).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import { SaveEnvironmentInput, type Environment, type Environments } from '../../contract/schemas/service';
import type { EventHub } from '../event-hub';
import {
  badArgument,
  derivedJwksUrl,
  describeIssues,
  invalidArgument,
  readFileOrNull,
  serializer,
  writeFileAtomic,
} from '../common';
import type { EnvironmentStore } from './types';

export const ENVIRONMENTS_FILE = 'environments.json';
export const SANDBOX_ENVIRONMENT_ID = 'sandbox';
const SANDBOX_NAME = 'Sandbox';

const nullableText = z.string().nullable().default(null);
const StoredProfile = z.object({
  counterparty_guid: nullableText,
  active_kid: nullableText,
  default_obj: nullableText,
  default_sub: nullableText,
});
const StoredReal = StoredProfile.extend({
  id: z.string().min(1),
  name: z.string().min(1),
  base_url: z.string().min(1),
  service_jwks_url: nullableText,
  /** Issue 14; absent in files written before it, read as null. */
  public_url: nullableText,
});
type StoredReal = z.infer<typeof StoredReal>;
const StoredFile = z.object({
  version: z.literal(1),
  active_id: z.string().default(SANDBOX_ENVIRONMENT_ID),
  sandbox: StoredProfile.default({
    counterparty_guid: null,
    active_kid: null,
    default_obj: null,
    default_sub: null,
  }),
  environments: z.array(StoredReal).default([]),
});
type StoredFile = z.infer<typeof StoredFile>;

const emptyState = (): StoredFile => ({
  version: 1,
  active_id: SANDBOX_ENVIRONMENT_ID,
  sandbox: { counterparty_guid: null, active_kid: null, default_obj: null, default_sub: null },
  environments: [],
});

export interface EnvironmentStoreOptions {
  dataDir: string;
  /** The sandbox listener's URL while it runs, else null (read on every call: it can start later). */
  sandboxUrl: () => string | null;
  /** Emits `env.changed` after every change. */
  events?: EventHub;
}

function stripTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, '');
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
  const file = path.join(options.dataDir, ENVIRONMENTS_FILE);
  const serial = serializer();

  const damaged = (problem: string) =>
    new ConsoleError(
      'STATE_DAMAGED',
      `the environments file ${file} ${problem}. It was left untouched: repair it, or move it away to ` +
        `start again with the sandbox environment only`,
      { file },
    );

  async function load(): Promise<StoredFile> {
    let text: string | null;
    try {
      text = await readFileOrNull(file);
    } catch (err) {
      throw damaged(`could not be read (${err instanceof Error ? err.message : String(err)})`);
    }
    if (text === null) return emptyState();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw damaged(`is not valid JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    const parsed = StoredFile.safeParse(value);
    if (!parsed.success) {
      throw damaged(`does not have the expected shape (${describeIssues(parsed.error, { max: 3 })})`);
    }
    const state = parsed.data;
    const ids = new Set<string>([SANDBOX_ENVIRONMENT_ID]);
    for (const env of state.environments) {
      if (ids.has(env.id)) throw damaged(`lists the environment id ${JSON.stringify(env.id)} twice`);
      ids.add(env.id);
    }
    // An active_id naming nothing (a hand edit) falls back to the sandbox, as removal does.
    if (!ids.has(state.active_id)) state.active_id = SANDBOX_ENVIRONMENT_ID;
    return state;
  }

  const save = (state: StoredFile) =>
    writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`, { makeDir: true }).catch((err: unknown) => {
      throw new ConsoleError(
        'INTERNAL',
        `could not write ${file}: ${err instanceof Error ? err.message : String(err)}`,
      );
    });

  function sandboxView(state: StoredFile): Environment {
    const url = options.sandboxUrl();
    const base = url ? stripTrailingSlashes(url) : null;
    return {
      id: SANDBOX_ENVIRONMENT_ID,
      name: SANDBOX_NAME,
      kind: 'sandbox',
      base_url: base,
      ...state.sandbox,
      service_jwks_url: null,
      effective_jwks_url: base ? derivedJwksUrl(base) : null,
    };
  }

  function realView(env: StoredReal): Environment {
    return {
      id: env.id,
      name: env.name,
      kind: 'real',
      base_url: env.base_url,
      counterparty_guid: env.counterparty_guid,
      active_kid: env.active_kid,
      default_obj: env.default_obj,
      default_sub: env.default_sub,
      service_jwks_url: env.service_jwks_url,
      effective_jwks_url: env.service_jwks_url ?? derivedJwksUrl(env.base_url),
      public_url: env.public_url,
    };
  }

  function view(state: StoredFile): Environments {
    return {
      active_id: state.active_id,
      environments: [sandboxView(state), ...state.environments.map(realView)],
    };
  }

  function find(state: StoredFile, id: string): Environment {
    if (id === SANDBOX_ENVIRONMENT_ID) return sandboxView(state);
    const env = state.environments.find((e) => e.id === id);
    if (!env) {
      throw new ConsoleError(
        'NOT_FOUND',
        `no environment with id ${JSON.stringify(id)}: env.list shows the ids (the sandbox is "sandbox")`,
        { field: 'id' },
      );
    }
    return realView(env);
  }

  const changed = (state: StoredFile): Environments => {
    const environments = view(state);
    options.events?.emit('env.changed', environments);
    return environments;
  };

  function checkBaseUrl(raw: string): string {
    const url = stripTrailingSlashes(raw);
    if (/\/api\/v1$/i.test(url)) {
      throw badArgument(
        `base_url ${raw} ends in /api/v1: base_url is the service's root and the console appends ` +
          `/api/v1/… itself (spec 4, 9); drop the /api/v1`,
        'base_url',
      );
    }
    return url;
  }

  function checkNameFree(state: StoredFile, name: string, exceptId: string | undefined): void {
    const wanted = name.trim().toLowerCase();
    const clash =
      wanted === SANDBOX_NAME.toLowerCase()
        ? SANDBOX_NAME
        : state.environments.find((e) => e.id !== exceptId && e.name.trim().toLowerCase() === wanted)?.name;
    if (clash !== undefined) {
      throw new ConsoleError(
        'CONFLICT',
        `an environment is already named ${JSON.stringify(clash)}: names must be unique`,
        { field: 'name' },
      );
    }
  }

  return {
    async list() {
      return view(await load());
    },

    async get(id) {
      const state = await load();
      return find(state, id ?? state.active_id);
    },

    save(rawInput) {
      return serial(async () => {
        const parsed = SaveEnvironmentInput.safeParse(rawInput);
        if (!parsed.success) {
          throw invalidArgument(parsed.error, 'environment');
        }
        const input = parsed.data;
        const state = await load();
        const profile = {
          ...(input.counterparty_guid !== undefined ? { counterparty_guid: input.counterparty_guid } : {}),
          ...(input.active_kid !== undefined ? { active_kid: input.active_kid } : {}),
          ...(input.default_obj !== undefined ? { default_obj: input.default_obj } : {}),
          ...(input.default_sub !== undefined ? { default_sub: input.default_sub } : {}),
        };

        let savedId: string;
        if (input.id === SANDBOX_ENVIRONMENT_ID) {
          const fixed = (['name', 'base_url', 'service_jwks_url', 'public_url'] as const).filter(
            (f) => input[f] !== undefined,
          );
          if (fixed[0] !== undefined) {
            throw badArgument(
              `the sandbox environment's ${fixed.join(', ')} cannot be set: its base_url is the sandbox ` +
                `listener's own URL and its JWKS the sandbox's; only counterparty_guid, active_kid, ` +
                `default_obj and default_sub are editable`,
              fixed[0],
            );
          }
          state.sandbox = { ...state.sandbox, ...profile };
          savedId = SANDBOX_ENVIRONMENT_ID;
        } else if (input.id !== undefined) {
          const index = state.environments.findIndex((e) => e.id === input.id);
          if (index < 0) find(state, input.id); // throws NOT_FOUND
          const current = state.environments[index] as StoredReal;
          if (input.name !== undefined) checkNameFree(state, input.name, current.id);
          state.environments[index] = {
            ...current,
            ...profile,
            ...(input.name !== undefined ? { name: input.name.trim() } : {}),
            ...(input.base_url !== undefined ? { base_url: checkBaseUrl(input.base_url) } : {}),
            ...(input.service_jwks_url !== undefined ? { service_jwks_url: input.service_jwks_url } : {}),
            ...(input.public_url !== undefined ? { public_url: input.public_url } : {}),
          };
          savedId = current.id;
        } else {
          if (input.name === undefined) {
            throw badArgument('a new environment needs a name (e.g. "Staging")', 'name');
          }
          if (input.base_url === undefined) {
            throw badArgument(
              "a new environment needs base_url, the service's {base_url} (e.g. https://dets.staging.example)",
              'base_url',
            );
          }
          checkNameFree(state, input.name, undefined);
          const env: StoredReal = {
            id: randomUUID(),
            name: input.name.trim(),
            base_url: checkBaseUrl(input.base_url),
            counterparty_guid: null,
            active_kid: null,
            default_obj: null,
            default_sub: null,
            service_jwks_url: input.service_jwks_url ?? null,
            public_url: input.public_url ?? null,
            ...profile,
          };
          state.environments.push(env);
          savedId = env.id;
        }
        await save(state);
        changed(state);
        return find(state, savedId);
      });
    },

    remove(id) {
      return serial(async () => {
        const state = await load();
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
        await save(state);
        changed(state);
      });
    },

    activate(id) {
      return serial(async () => {
        const state = await load();
        find(state, id); // NOT_FOUND
        if (state.active_id === id) return view(state);
        state.active_id = id;
        await save(state);
        return changed(state);
      });
    },
  };
}
