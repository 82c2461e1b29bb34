/**
 * Bench server: the bank's notification receiver of the delivery suite (issue 27 "Performance"),
 * on 127.0.0.1, any free port. It answers 500 to the first attempt of each transaction_id and
 * 200 to every later one, so each delivery waits exactly one step of the ladder (1 s at
 * `--time-scale 1`) between its first and second attempt.
 *
 * It is also the suite's meter of what is in flight: a delivery is on its ladder from its first
 * (refused) attempt until its first accepted one, so `pending` = refused − accepted is exactly
 * the number of deliveries waiting on the ladder, and `peak` its highest value (counted here, on
 * every request, not sampled). `GET /stats` answers {first, accepted, repeats, pending, peak};
 * `POST /stats/reset-peak` sets the peak to the current level.
 *
 * Bounded: at most BENCH_RECEIVER_MAX transaction_ids are remembered (default 500,000); past that
 * the receiver answers 507 and the bench breaks (a run that large is a bad setting).
 */
import http from 'node:http';
import { announce, closeServer, listenLoopback, stopOn } from '../lib/child-runtime';

const MAX = Number(process.env.BENCH_RECEIVER_MAX ?? 500_000);
/** transaction_id → accepted yet. */
const seen = new Map<string, boolean>();
let first = 0;
let accepted = 0;
let repeats = 0;
let pending = 0;
let peak = 0;

function stats(): Record<string, number> {
  return { first, accepted, repeats, pending, peak, remembered: seen.size };
}

function answer(res: http.ServerResponse, status: number, body = ''): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') return answer(res, 200, JSON.stringify(stats()));
  if (req.method === 'POST' && req.url === '/stats/reset-peak') {
    peak = pending;
    return answer(res, 200, JSON.stringify(stats()));
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (c: Buffer) => {
    size += c.length;
    if (size <= 64 * 1024) chunks.push(c);
  });
  req.on('end', () => {
    let tx: unknown;
    try {
      tx = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { transaction_id?: unknown })
        .transaction_id;
    } catch {
      tx = undefined;
    }
    if (typeof tx !== 'string') return answer(res, 400, '{"error":"no transaction_id"}');
    const was = seen.get(tx);
    if (was === undefined) {
      if (seen.size >= MAX) return answer(res, 507, '{"error":"receiver full"}');
      seen.set(tx, false);
      first += 1;
      pending += 1;
      if (pending > peak) peak = pending;
      return answer(res, 500, '{"error":"first attempt refused"}');
    }
    if (was) repeats += 1;
    else {
      seen.set(tx, true);
      accepted += 1;
      pending -= 1;
    }
    answer(res, 200);
  });
});

const url = await listenLoopback(server);
stopOn(() => closeServer(server));
announce({ url, receiver: url });
