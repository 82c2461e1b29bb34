/**
 * `store recover`'s copy of the profile's tables other than the events (issue 12, issue 24 item
 * 6): every readable row, chunk by chunk, and row by row where a chunk meets damage.
 */
import { isCorruption, openDatabaseFile, type Database } from './db';

const CHUNK = 2000;

/**
 * Tables the writer rebuilds from the events it stores (their text, the full-text index and
 * its shadow tables, the class counts), SQLite's own, and the schema's version: not copied.
 */
function rebuilt(table: string): boolean {
  return (
    /^(events|events_text|events_fts_pending|class_stats|schema_version|sqlite_sequence)$/.test(table) ||
    table.startsWith('events_fts') ||
    table.startsWith('sqlite_')
  );
}

/**
 * Copies every readable row of `from`'s tables that the fresh database also has (the columns
 * both have) and that the writer does not rebuild, in rowid order, `CHUNK` at a time; a chunk
 * that meets damage is read again row by row, and what still fails is reported and skipped.
 * `meta`'s high_seq keeps the higher of the two (event ids are never given twice), and each
 * AUTOINCREMENT counter the higher of the two. With `to` null, only reads them (a check).
 */
export function copyTables(
  from: string,
  to: string | null,
  unreadable: string[],
): { table: string; rows: number }[] {
  const old = openDatabaseFile(from, { readOnly: true });
  const fresh = to === null ? null : openDatabaseFile(to);
  const copied: { table: string; rows: number }[] = [];
  const columnsOf = (db: Database, table: string) =>
    db
      .prepare(`SELECT name FROM pragma_table_info(?)`)
      .all(table)
      .map((r) => String(r.name));
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  try {
    let names: string[];
    try {
      names = old
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all()
        .map((r) => String(r.name));
    } catch (err) {
      if (!isCorruption(err)) throw err;
      unreadable.push(`the list of tables: ${err instanceof Error ? err.message : String(err)}`);
      return copied;
    }
    const freshNames = fresh
      ? new Set(
          fresh
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .all()
            .map((r) => String(r.name)),
        )
      : null;
    fresh?.exec('BEGIN');
    try {
      for (const table of names) {
        if (rebuilt(table) || (freshNames && !freshNames.has(table))) continue;
        const want = fresh ? new Set(columnsOf(fresh, table)) : null;
        const cols = columnsOf(old, table).filter((c) => !want || want.has(c));
        if (cols.length === 0) continue;
        const list = cols.map(quote).join(', ');
        // A statement that met SQLITE_CORRUPT is prepared again before its next use: reused, it
        // answers every later step with the same error (issue 24 item 6).
        const chunkSql = `SELECT rowid AS "__rowid", ${list} FROM ${quote(table)} WHERE rowid > ? ORDER BY rowid LIMIT ${CHUNK}`;
        const oneSql = `SELECT ${list} FROM ${quote(table)} WHERE rowid = ?`;
        let chunk = old.prepare(chunkSql);
        let one = old.prepare(oneSql);
        const insert = !fresh
          ? null
          : table === 'meta'
            ? fresh.prepare(
                `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value =
                   CASE WHEN key = 'high_seq' THEN CAST(max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER)) AS TEXT)
                   ELSE excluded.value END`,
              )
            : fresh.prepare(
                `INSERT OR REPLACE INTO ${quote(table)} (${list}) VALUES (${cols.map(() => '?').join(', ')})`,
              );
        let rows = 0;
        let refused = 0;
        let refusal = '';
        const put = (r: Record<string, unknown>) => {
          try {
            insert?.run(...cols.map((c) => r[c]));
            rows++;
          } catch (err) {
            // A row the fresh schema will not take (a constraint): said, not fatal.
            refused++;
            refusal = err instanceof Error ? err.message : String(err);
          }
        };
        let after = 0;
        for (;;) {
          let batch: Record<string, unknown>[];
          try {
            batch = chunk.all(after);
          } catch (err) {
            if (!isCorruption(err)) throw err;
            chunk = old.prepare(chunkSql);
            const why = err instanceof Error ? err.message : String(err);
            // Row by row, up to the highest rowid the table can still say it has.
            let top = after;
            try {
              top = Number(old.prepare(`SELECT max(rowid) AS m FROM ${quote(table)}`).get()?.m ?? after);
            } catch {
              // unknown: nothing past `after` can be found
            }
            const end = Math.min(top, after + CHUNK);
            if (end <= after) {
              unreadable.push(`${table}: ${why}: the rows after rowid ${after} could not be read`);
              break;
            }
            let skipped = 0;
            for (let id = after + 1; id <= end; id++) {
              let r: Record<string, unknown> | undefined;
              try {
                r = one.get(id);
              } catch (e) {
                if (!isCorruption(e)) throw e;
                one = old.prepare(oneSql);
                skipped++;
                continue;
              }
              if (r) put(r);
            }
            if (skipped > 0)
              unreadable.push(
                `${table}: ${why}: ${skipped} unreadable rows between rowid ${after + 1} and ${end}`,
              );
            if (end >= top) break;
            after = end;
            continue;
          }
          if (batch.length === 0) break;
          for (const r of batch) put(r);
          after = Number(batch[batch.length - 1]!.__rowid);
        }
        if (refused > 0)
          unreadable.push(`${table}: ${refused} rows not taken by the fresh schema (${refusal})`);
        if (rows > 0) copied.push({ table, rows });
      }
      // AUTOINCREMENT counters never go back (a deleted trace's number is not given again).
      if (fresh && freshNames)
        try {
          const counters = old.prepare('SELECT name, seq FROM sqlite_sequence').all();
          const raise = fresh.prepare('UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?');
          const add = fresh.prepare(
            'INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)',
          );
          for (const c of counters) {
            if (!freshNames.has(String(c.name))) continue;
            raise.run(c.seq, c.name);
            add.run(c.name, c.seq, c.name);
          }
        } catch (err) {
          if (!isCorruption(err)) throw err;
          unreadable.push(`sqlite_sequence: ${err instanceof Error ? err.message : String(err)}`);
        }
      fresh?.exec('COMMIT');
    } catch (err) {
      if (fresh?.inTransaction) fresh.exec('ROLLBACK');
      throw err;
    }
  } finally {
    fresh?.close();
    old.close();
  }
  return copied;
}
