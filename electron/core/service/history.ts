/**
 * The exchange history (issue 12 item 1): the `service_exchanges` table of the profile database
 * (`<dataDir>/console.db`, store/db.ts), one recorded exchange per row, appended as they happen
 * and capped to the most recent `cap` (1000 by default) in the same transaction as each append:
 * this history has its own cap, and never makes room at the expense of anything else (item 3).
 *
 * A profile written before this kept the history in `<dataDir>/service/exchanges.jsonl`; it is
 * copied in on first use, once, and the file renamed aside (store/file-migration.ts).
 *
 * The rows hold CX-Authorization tokens and session tokens (short-lived credentials the user has
 * already seen), never private key material; the database file is 0600 in a 0700 folder.
 */
import path from 'node:path';
import { Exchange } from '../../contract/schemas/service';
import { issuePath } from '../common';
import { acquireProfileDb, defaultLog, migrateJsonLinesFile, type ProfileDb } from '../store';

export const HISTORY_CAP = 1000;
/** The old file of this history (read once, by the migration). */
export const LEGACY_HISTORY_FILE = path.join('service', 'exchanges.jsonl');
const MARKER = 'migrated.service_exchanges';
const INSERT = 'INSERT INTO service_exchanges (at, record) SELECT ?, ?';

/** The rows past the newest `cap` go, in the transaction that appends. */
const TRIM =
  'DELETE FROM service_exchanges WHERE seq <= (SELECT seq FROM service_exchanges ORDER BY seq DESC LIMIT 1 OFFSET ?)';

export class ExchangeHistory {
  /** Where the history is kept (named in errors). */
  readonly file: string;
  private pdb: ProfileDb | null = null;
  private ready: Promise<ProfileDb> | null = null;
  /** Appends not yet committed, so list() waits for them. */
  private pending: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dataDir: string,
    private readonly cap = HISTORY_CAP,
    private readonly log: (line: string) => void = defaultLog,
  ) {
    this.file = path.join(dataDir, 'console.db');
  }

  /** The database, with the old file copied in (once per process; a failure is retried). */
  private open(): Promise<ProfileDb> {
    this.ready ??= (async () => {
      this.pdb ??= acquireProfileDb(this.dataDir);
      await migrateJsonLinesFile(this.pdb, {
        file: path.join(this.dataDir, LEGACY_HISTORY_FILE),
        marker: MARKER,
        log: this.log,
        row: (value) => {
          const parsed = Exchange.safeParse(value);
          if (!parsed.success) {
            const issue = parsed.error.issues[0];
            return {
              why: `not an exchange (${(issue && issuePath(issue)) || 'record'}: ${issue?.message ?? 'invalid'})`,
            };
          }
          return { sql: INSERT, params: [parsed.data.at, JSON.stringify(value)] };
        },
      });
      return this.pdb;
    })().catch((err: unknown) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  /** Appends one exchange and trims the history to its cap, in one transaction. */
  append(exchange: Exchange): Promise<void> {
    const done = this.open().then((pdb) =>
      pdb.write([
        [INSERT, [exchange.at, JSON.stringify(exchange)]],
        [TRIM, [this.cap]],
      ]),
    );
    this.pending = done.catch(() => undefined);
    return done;
  }

  /** The most recent exchanges, newest first. */
  async list(limit = 100): Promise<Exchange[]> {
    const pdb = await this.open();
    await this.pending; // let pending appends land first
    const rows = pdb.db
      .prepare('SELECT record FROM service_exchanges ORDER BY seq DESC LIMIT ?')
      .all(Math.max(0, Math.floor(limit)));
    const out: Exchange[] = [];
    for (const r of rows) {
      try {
        const parsed = Exchange.safeParse(JSON.parse(String(r.record)));
        if (parsed.success) out.push(parsed.data);
      } catch {
        // a row edited by hand: skipped, the rest still listed
      }
    }
    return out;
  }

  /** Gives the database handle back. */
  async close(): Promise<void> {
    const pdb = this.pdb;
    this.pdb = null;
    this.ready = null;
    await pdb?.release();
  }
}
