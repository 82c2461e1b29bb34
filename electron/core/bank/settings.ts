/**
 * The bank endpoints' settings in `<dataDir>/bank/settings.json` (atomic, 0600): the notification
 * path prefix (spec 4.3's `/api/svc/notify` by default; the service guide uses `/api/dcm/notify`),
 * the deliberate misbehaviours per route (off by default), forward mode, and the bank's own service
 * JWKS URL (null: --service-jwks-url or the active environment's; issue 13 item 6).
 *
 * A damaged file is named and left untouched: the defaults run, and changes are refused until it
 * is repaired or removed.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import {
  Behaviours,
  CallbackRoute,
  ForwardSettings,
  NotifyRoute,
  ServiceJwksSetting,
} from '../../contract/schemas/bank';
import {
  badArgument,
  ensurePrivateDir,
  firstIssueMessage,
  issueField,
  serializer,
  writeFileAtomic,
} from '../common';
import { notifyPrefixProblem, SPEC_NOTIFY_PREFIX } from '../../contract/schemas/service-paths';

export const SETTINGS_FILE = 'settings.json';
/** Spec 4.3. */
export const DEFAULT_NOTIFY_PREFIX = SPEC_NOTIFY_PREFIX;

export type BehavioursValue = z.output<typeof Behaviours>;
export type ForwardValue = z.output<typeof ForwardSettings>;

export interface BankSettings {
  notify_path_prefix: string;
  behaviours: BehavioursValue;
  forward: ForwardValue;
  service_jwks_url: string | null;
}

const SettingsFile = z.object({
  version: z.literal(1),
  notify_path_prefix: z.string(),
  behaviours: Behaviours,
  forward: ForwardSettings,
  /** Absent in files written before issue 13: read as null. */
  service_jwks_url: ServiceJwksSetting.shape.url.default(null),
});

const ROUTES: readonly string[] = [...CallbackRoute.options, ...NotifyRoute.options];

/** `/api/svc/notify`: absolute, no trailing slash, plain path segments. Throws BAD_ARGUMENT. */
export function checkNotifyPrefix(prefix: string): string {
  const problem = notifyPrefixProblem(prefix);
  if (problem !== null)
    throw badArgument(`notify path prefix ${JSON.stringify(prefix)}: ${problem}`, 'prefix');
  return prefix;
}

/** Behaviours keyed by route name (user_auth, key, external_id, pay-in, pay-out, transfer). */
export function checkBehaviours(value: BehavioursValue): BehavioursValue {
  const parsed = Behaviours.safeParse(value);
  if (!parsed.success)
    throw badArgument(firstIssueMessage(parsed.error, 'bad behaviours'), issueField(parsed.error));
  const out: BehavioursValue = {};
  for (const [route, b] of Object.entries(parsed.data)) {
    if (!ROUTES.includes(route)) {
      throw badArgument(
        `behaviours: unknown route ${JSON.stringify(route)}; routes are ${ROUTES.join(', ')}`,
        route,
      );
    }
    if (b.omit_field !== undefined && route !== 'user_auth') {
      throw badArgument(`behaviours.${route}.omit_field applies to user_auth only`, `${route}.omit_field`);
    }
    if (b.long_external_id && route !== 'user_auth' && route !== 'external_id') {
      throw badArgument(
        `behaviours.${route}.long_external_id applies to user_auth and external_id only`,
        `${route}.long_external_id`,
      );
    }
    // An empty behaviour is "off": not kept.
    const on = Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined && v !== false));
    if (Object.keys(on).length > 0) out[route] = on;
  }
  return out;
}

export interface SettingsStore {
  load(): Promise<void>;
  get(): BankSettings;
  update(patch: Partial<BankSettings>): Promise<BankSettings>;
  warning(): string | null;
}

export function createSettingsStore(dir: string): SettingsStore {
  const file = path.join(dir, SETTINGS_FILE);
  const exclusive = serializer();
  let current: BankSettings = {
    notify_path_prefix: DEFAULT_NOTIFY_PREFIX,
    behaviours: {},
    forward: { url: null },
    service_jwks_url: null,
  };
  let damaged: ConsoleError | null = null;

  return {
    async load() {
      let text: string;
      try {
        text = await fs.readFile(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        damaged = new ConsoleError('STATE_DAMAGED', `the bank settings file ${file} could not be read`, {
          file,
        });
        return;
      }
      try {
        const parsed = SettingsFile.parse(JSON.parse(text));
        current = {
          notify_path_prefix: checkNotifyPrefix(parsed.notify_path_prefix),
          behaviours: checkBehaviours(parsed.behaviours),
          forward: parsed.forward,
          service_jwks_url: parsed.service_jwks_url,
        };
      } catch (err) {
        damaged = new ConsoleError(
          'STATE_DAMAGED',
          `the bank settings file ${file} is not valid (${err instanceof Error ? err.message.slice(0, 200) : String(err)}); it was left untouched and the defaults are in use: repair or delete it`,
          { file },
        );
      }
    },
    get: () => current,
    update: (patch) =>
      exclusive(async () => {
        if (damaged) throw damaged;
        const next = { ...current, ...patch };
        await ensurePrivateDir(dir);
        await writeFileAtomic(file, `${JSON.stringify({ version: 1, ...next }, null, 2)}\n`);
        current = next;
        return next;
      }),
    warning: () => damaged?.message ?? null,
  };
}
