/**
 * Bench baseline for durable notifications, the fsync floor: node:http, each body's
 * transaction_id parsed and appended as one JSON line to a file, a 200 (no body) only once that
 * line is on disk: one write + fdatasync for every batch of notifications that arrived while the
 * previous one was syncing (group commit). No index, no events, no validation beyond the UUID:
 * what this disk allows a durable endpoint at most.
 *
 * Argument: a directory for the log file.
 */
import { fdatasync, openSync, write } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { announce, closeServer, listenLoopback, stopOn } from '../lib/child-runtime';

const dir = process.argv[2];
if (!dir) throw new Error('usage: fsync-floor.mjs <dir>');
const fd = openSync(join(dir, 'notifications.jsonl'), 'a');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let pending: Array<{ line: string; res: ServerResponse }> = [];
let syncing = false;

function commit(): void {
  if (syncing || pending.length === 0) return;
  syncing = true;
  const batch = pending;
  pending = [];
  const data = Buffer.from(batch.map((b) => b.line).join(''));
  const done = (err: Error | null) => {
    for (const b of batch) {
      b.res.writeHead(err ? 500 : 200, { 'content-length': '0' });
      b.res.end();
    }
    syncing = false;
    commit();
  };
  write(fd, data, (err) => (err ? done(err) : fdatasync(fd, (e) => done(e))));
}

const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => (body += c));
  req.on('end', () => {
    let tx: unknown;
    try {
      tx = (JSON.parse(body) as { transaction_id?: unknown }).transaction_id;
    } catch {
      tx = undefined;
    }
    if (typeof tx !== 'string' || !UUID.test(tx)) {
      res.writeHead(400, { 'content-type': 'application/json' });
      return res.end('{"error":"bad_request"}');
    }
    pending.push({ line: `${JSON.stringify({ at: new Date().toISOString(), transaction_id: tx })}\n`, res });
    commit();
  });
});

const url = await listenLoopback(server);
stopOn(() => closeServer(server));
announce({ url });
