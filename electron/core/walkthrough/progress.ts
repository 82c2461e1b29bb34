/**
 * The walkthrough's own small state, one file per environment:
 * `<dataDir>/walkthrough/<env id>.json` (0600, replaced atomically). It holds only what no other
 * store keeps: the reset mark, the chosen obj/sub and public bank URL, the last composed bank
 * JWT and session_token report, the last rotation result, the reachability self-test, and the
 * last action that failed before any event could say so. Everything else is derived from the
 * stores that record real events (keys, exchanges, the event store, the sandbox).
 *
 * Threat model: the file holds a bank JWT and a session_token (short-lived credentials the user
 * has already seen, as the exchange history does), never private key material or a customer's
 * secret key. Failure model: a file that cannot be read or parsed is set aside
 * (`<name>.damaged-<time>`) and the walkthrough starts fresh for that environment; the events
 * that prove the steps are elsewhere, so nothing of value is lost.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { InspectReport } from '../../contract/schemas/inspector';
import { Rotation } from '../../contract/schemas/service';
import { ComposedToken, StepId } from '../../contract/schemas/walkthrough';
import { ensurePrivateDir, serializer, writeFileAtomic } from '../keys/atomic-file';

const Attempt = z.object({
  at: z.string(),
  ok: z.boolean(),
  reason: z.string().nullable(),
  fix: z.string().nullable(),
});
const Probe = z.object({
  at: z.string(),
  url: z.string(),
  ok: z.boolean(),
  status: z.number().nullable(),
  duration_ms: z.number().nullable(),
  detail: z.string(),
});

/**
 * What the walkthrough's own actions sent (issue 13 item 4): the steps are proven by these, so
 * other traffic (a malformed POST from outside, a bad sign-in on the Sandbox page) shows beside
 * them but never reverts a green step. Each list keeps the newest OWN_KEEP entries.
 */
export const OWN_KEEP = 20;
const Own = z.object({
  /** Sign-ins run by step 6: the sandbox's trace and the /user_auth the bank recorded for it. */
  sign_ins: z
    .array(z.object({ at: z.string(), trace_id: z.string(), callback_id: z.string().nullable() }))
    .default([]),
  /** Notifications sent by step 7. */
  notifications: z
    .array(z.object({ at: z.string(), route: z.string(), transaction_id: z.string(), trace_id: z.string() }))
    .default([]),
  /** Exchanges with the service made by step 4 (authenticate). */
  exchange_ids: z.array(z.string()).default([]),
});
export type Own = z.infer<typeof Own>;

export const Progress = z.object({
  version: z.literal(1),
  environment_id: z.string(),
  reset_at: z.string().nullable().default(null),
  obj: z.string().nullable().default(null),
  sub: z.string().nullable().default(null),
  bank_url: z.string().nullable().default(null),
  composed: ComposedToken.nullable().default(null),
  session: z
    .object({ exchange_id: z.string(), token: z.string(), report: InspectReport.nullable() })
    .nullable()
    .default(null),
  rotation: Rotation.nullable().default(null),
  probe: Probe.nullable().default(null),
  attempts: z.partialRecord(StepId, Attempt).default({}),
  own: Own.default({ sign_ins: [], notifications: [], exchange_ids: [] }),
});
export type Progress = z.infer<typeof Progress>;

const blank = (environmentId: string): Progress => ({
  version: 1,
  environment_id: environmentId,
  reset_at: null,
  obj: null,
  sub: null,
  bank_url: null,
  composed: null,
  session: null,
  rotation: null,
  probe: null,
  attempts: {},
  own: { sign_ins: [], notifications: [], exchange_ids: [] },
});

/** A file name for an environment id (real ids are UUIDs; anything else is made safe). */
function stem(environmentId: string): string {
  return environmentId.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_') || 'env';
}

export interface ProgressStore {
  read(environmentId: string): Promise<Progress>;
  /** Read, change, write atomically; serialized within the process. */
  update(environmentId: string, change: (p: Progress) => void): Promise<Progress>;
}

export function createProgressStore(dataDir: string): ProgressStore {
  const dir = path.join(dataDir, 'walkthrough');
  const exclusive = serializer();
  const fileOf = (id: string) => path.join(dir, `${stem(id)}.json`);

  async function read(environmentId: string): Promise<Progress> {
    const file = fileOf(environmentId);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return blank(environmentId);
      throw err;
    }
    try {
      const parsed = Progress.parse(JSON.parse(text));
      if (parsed.environment_id !== environmentId) throw new Error('names another environment');
      return parsed;
    } catch {
      // See the failure model above: set aside, start fresh.
      await fs.rename(file, `${file}.damaged-${Date.now()}`).catch(() => undefined);
      return blank(environmentId);
    }
  }

  return {
    read,
    update: (environmentId, change) =>
      exclusive(async () => {
        const progress = await read(environmentId);
        change(progress);
        await ensurePrivateDir(dir);
        await writeFileAtomic(fileOf(environmentId), `${JSON.stringify(progress, null, 2)}\n`);
        return progress;
      }),
  };
}
