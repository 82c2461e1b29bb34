/**
 * A bench child for the team suite (issue 30): `node pg-writer.mjs MODE URL ROWS WRITERS`.
 * MODE `store`: ROWS durable notification appends to the hub's PostgreSQL event store from
 * WRITERS concurrent writers (as concurrent bank requests would), each resolving after its
 * commit. MODE `baseline`: the same rows (records.ts toRow) written by plain `pg`: batched INSERT
 * + COMMIT of WRITERS rows at a time on one connection. Prints `{"rows":N,"ms":T}`.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { EventHub } from '../../../electron/core/event-hub';
import { openPgEventStore, type NewEvent } from '../../../electron/core/store';
import { ROW, toRow } from '../../../electron/core/store/records';
import { notification } from '../../core/store/helpers';

const [mode, url, rowsArg, writersArg] = process.argv.slice(2);
const rows = Number(rowsArg);
const writers = Number(writersArg);

function event(): NewEvent {
  const tx = randomUUID();
  return notification({
    path: '/api/svc/notify/pay-in',
    transaction_id: tx,
    request: {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"transaction_id":"${tx}"}`,
    },
  });
}

async function viaStore(): Promise<number> {
  const store = await openPgEventStore(url!, { dataDir: '/nonexistent', events: new EventHub() });
  let left = rows;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (left-- > 0) await store.append(event(), { durable: true, repeatCheck: true });
    }),
  );
  const ms = performance.now() - t0;
  await store.close();
  return ms;
}

async function baseline(): Promise<number> {
  // The store made the schema; the baseline writes the same columns without the store.
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const t0 = performance.now();
  for (let done = 0; done < rows; done += writers) {
    const batch = Array.from(
      { length: Math.min(writers, rows - done) },
      () => toRow({ id: 'e000000000000', ...event() }, 0, 262_144).row,
    );
    const values: unknown[] = [];
    const tuples = batch.map((r) => {
      const cols = [
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        r[6],
        r[7],
        r[8],
        r[9],
        r[10],
        r[16],
        r[17],
        r[18],
        r[ROW.search].toLowerCase(),
      ];
      values.push(...cols);
      const base = values.length - cols.length;
      return `(${cols.map((_, i) => `$${base + i + 1}`).join(', ')})`;
    });
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO events (at, at_ms, kind, class, path, method, status, outcome, transaction_id, tx_lower, remote, size, record, search) VALUES ${tuples.join(', ')}`,
      values,
    );
    await client.query('COMMIT');
  }
  const ms = performance.now() - t0;
  await client.end();
  return ms;
}

const ms = mode === 'baseline' ? await baseline() : await viaStore();
process.stdout.write(`${JSON.stringify({ rows, ms })}\n`);
