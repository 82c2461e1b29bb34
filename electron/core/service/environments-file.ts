/**
 * `<dataDir>/environments.json` (0600, replaced atomically): its shape, and reading it so that
 * damage is reported, never overwritten. The file is re-read on every call, so the CLI and the
 * desktop app, which share one profile, see each other's changes; a file that cannot be read
 * or does not have the expected shape is STATE_DAMAGED naming it (nothing writes before a read
 * succeeded).
 */
import path from 'node:path';
import { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import { SANDBOX_ENVIRONMENT_ID } from '../../contract/schemas/service';
import { NO_SSH_SETTINGS, SshTunnelSettings } from '../../contract/schemas/tunnel';
import { describeIssues, readFileOrNull, writeFileAtomic } from '../common';

export const ENVIRONMENTS_FILE = 'environments.json';
// One id, written in the contract (the pages and the bank compare against it too).
export { SANDBOX_ENVIRONMENT_ID };

const nullableText = z.string().nullable().default(null);
const StoredProfile = z.object({
  counterparty_guid: nullableText,
  active_kid: nullableText,
  default_obj: nullableText,
  default_sub: nullableText,
  /**
   * Keys that were this environment's active_kid and were replaced (issue 26, DESIGN.md
   * "Environments": a key's status belongs to an environment). Absent in older files: none.
   */
  retired_kids: z.array(z.string()).default([]),
  /** The ssh tunnel's settings (issue 26 item 4). Absent in older files: ssh's defaults. */
  ssh_tunnel: SshTunnelSettings.default({ ...NO_SSH_SETTINGS, options: [] }),
});
const StoredReal = StoredProfile.extend({
  id: z.string().min(1),
  name: z.string().min(1),
  base_url: z.string().min(1),
  service_jwks_url: nullableText,
  /** Issue 14; absent in files written before it, read as null. */
  public_url: nullableText,
  /**
   * When the environment was added (issue 26: its walkthrough counts only what its service sent
   * after it existed). Absent in files written before it: null, nothing is excluded by time.
   */
  created_at: nullableText,
});
/** A real environment as stored. */
export type StoredReal = z.infer<typeof StoredReal>;
const StoredFile = z.object({
  version: z.literal(1),
  active_id: z.string().default(SANDBOX_ENVIRONMENT_ID),
  sandbox: StoredProfile.default({
    counterparty_guid: null,
    active_kid: null,
    default_obj: null,
    default_sub: null,
    retired_kids: [],
    ssh_tunnel: { ...NO_SSH_SETTINGS, options: [] },
  }),
  environments: z.array(StoredReal).default([]),
});
/** The whole file as read. */
export type StoredFile = z.infer<typeof StoredFile>;

/** The state of a profile without an environments file: the sandbox only, nothing set. */
export const emptyState = (): StoredFile => ({
  version: 1,
  active_id: SANDBOX_ENVIRONMENT_ID,
  sandbox: {
    counterparty_guid: null,
    active_kid: null,
    default_obj: null,
    default_sub: null,
    retired_kids: [],
    ssh_tunnel: { ...NO_SSH_SETTINGS, options: [] },
  },
  environments: [],
});

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * One profile's environments file.
 *
 * @example
 * const file = new EnvironmentsFile(dataDir);
 * const state = await file.load(); // the sandbox only when there is no file yet
 * await file.save(state);
 */
export class EnvironmentsFile {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = path.join(dataDir, ENVIRONMENTS_FILE);
  }

  /** The file's contents: the sandbox only when there is none; STATE_DAMAGED when unreadable. */
  async load(): Promise<StoredFile> {
    let text: string | null;
    try {
      text = await readFileOrNull(this.path);
    } catch (err) {
      throw this.damaged(`could not be read (${messageOf(err)})`);
    }
    if (text === null) return emptyState();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw this.damaged(`is not valid JSON (${messageOf(err)})`);
    }
    const parsed = StoredFile.safeParse(value);
    if (!parsed.success) {
      throw this.damaged(`does not have the expected shape (${describeIssues(parsed.error, { max: 3 })})`);
    }
    const state = parsed.data;
    const ids = new Set<string>([SANDBOX_ENVIRONMENT_ID]);
    for (const env of state.environments) {
      if (ids.has(env.id)) throw this.damaged(`lists the environment id ${JSON.stringify(env.id)} twice`);
      ids.add(env.id);
    }
    // An active_id naming nothing (a hand edit) falls back to the sandbox, as removal does.
    if (!ids.has(state.active_id)) state.active_id = SANDBOX_ENVIRONMENT_ID;
    return state;
  }

  /** Replaces the file atomically; INTERNAL naming it when it cannot be written. */
  save(state: StoredFile): Promise<void> {
    return writeFileAtomic(this.path, `${JSON.stringify(state, null, 2)}\n`, { makeDir: true }).catch(
      (err: unknown) => {
        throw new ConsoleError('INTERNAL', `could not write ${this.path}: ${messageOf(err)}`);
      },
    );
  }

  private damaged(problem: string): ConsoleError {
    return new ConsoleError(
      'STATE_DAMAGED',
      `the environments file ${this.path} ${problem}. It was left untouched: repair it, or move it away to ` +
        `start again with the sandbox environment only`,
      { file: this.path },
    );
  }
}
