/**
 * The delivery suite's load (issue 27 "Performance"): keeps N deliveries in flight on the
 * sandbox through its real control API (`POST /sandbox/v1/counterparties/{guid}/notify`), a
 * closed loop and not a fixed rate, because what the issue fixes is the number on the ladder, not
 * a rate: a delivery waits one ladder step (1 s at `--time-scale 1`) against the receiver
 * (servers/ladder-receiver.ts), so holding 1,000 in flight takes about 1,000 new ones a second,
 * whatever the machine can do. What is in flight is read from the receiver (refused − accepted,
 * exact) plus what was started and has not reached it yet.
 *
 * Why the first standalone try (test/bench/micro/delivery-ladder.ts, removed) saw 89 in flight:
 * it started a fixed 50 a second, which holds about 50 × (1 s + a turn) on the ladder whatever
 * the engine can do; its burst of 1,000 was counted only once all of its first attempts were
 * answered, when the first ones were already delivered, and the count came from the list API,
 * which answers 500 at most. And the engine itself wrote each delivery's row in a transaction of
 * its own, one fsync each (two or three per delivery), which capped it near 200 deliveries a
 * second; the profile database's writes are group-committed now (store/group-commit.ts).
 *
 * Bounded in count (at most `maxStarts`) and time (`seconds`, then a drain of at most 15 s);
 * 127.0.0.1 only.
 */
import http from 'node:http';
import { BenchBroken } from './errors';
import { percentile } from './stats';

/** The receiver's counters (servers/ladder-receiver.ts). */
export interface ReceiverStats {
  first: number;
  accepted: number;
  repeats: number;
  pending: number;
  peak: number;
}

export interface DriveOptions {
  sandboxUrl: string;
  receiverUrl: string;
  guid: string;
  /** Deliveries to keep in flight. */
  inFlight: number;
  seconds: number;
  /** notify requests at once. */
  concurrency: number;
  /** Hard bound on deliveries started. */
  maxStarts: number;
  log: (line: string) => void;
}

export interface DriveResult {
  /** Every delivery started, in order. */
  ids: string[];
  /** Seconds from the start until the receiver first counted `inFlight` waiting (null: never). */
  rampSeconds: number | null;
  /** The receiver's exact peak of deliveries on the ladder. */
  peak: number;
  /** Polled in-flight level after the ramp (or after RAMP_MS): 5th percentile and median. */
  keptP5: number | null;
  keptMedian: number | null;
  /** Deliveries started per second over the sample. */
  startsPerSecond: number;
  /** notify answers other than 200 with the first attempt refused (500). */
  badAnswers: number;
  lastBad: string | null;
}

/** When the target is never reached, the level is read from this long after the start. */
const RAMP_MS = 5000;

const agentFor = (n: number) => new http.Agent({ keepAlive: true, maxSockets: n });

/** One JSON request on 127.0.0.1; resolves with the status and the body (`timeoutMs`, default 30 s). */
export function requestJson(
  agent: http.Agent | undefined,
  url: string,
  method: 'GET' | 'POST',
  body?: unknown,
  timeoutMs = 30_000,
): Promise<{ status: number; text: string }> {
  if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url)) throw new BenchBroken(`not a loopback URL: ${url}`);
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent,
        timeout: timeoutMs,
        headers: data
          ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) }
          : {},
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () =>
      req.destroy(new BenchBroken(`${method} ${url}: no answer within ${timeoutMs} ms`)),
    );
    req.on('error', reject);
    req.end(data);
  });
}

export async function receiverStats(receiverUrl: string, reset = false): Promise<ReceiverStats> {
  const r = await requestJson(
    undefined,
    `${receiverUrl}/stats${reset ? '/reset-peak' : ''}`,
    reset ? 'POST' : 'GET',
  );
  if (r.status !== 200) throw new BenchBroken(`receiver stats: ${r.status} ${r.text.slice(0, 200)}`);
  return JSON.parse(r.text) as ReceiverStats;
}

/** Keeps `inFlight` deliveries on the ladder for `seconds`, then waits (≤ 15 s) for them to land. */
export async function keepInFlight(o: DriveOptions): Promise<DriveResult> {
  const agent = agentFor(o.concurrency);
  const ids: string[] = [];
  let started = 0;
  let bad = 0;
  let lastBad: string | null = null;
  let stats = await receiverStats(o.receiverUrl, true);
  const firstBefore = stats.first;
  const t0 = Date.now();
  const end = t0 + o.seconds * 1000;
  let rampSeconds: number | null = null;
  const kept: number[] = [];
  // What is in flight: waiting at the receiver, plus started and not arrived there yet.
  const level = () => stats.pending + (started - (stats.first - firstBefore));
  let polling = true;
  const poller = (async () => {
    while (polling) {
      stats = await receiverStats(o.receiverUrl);
      const since = Date.now() - t0;
      if (rampSeconds === null && stats.pending >= o.inFlight) rampSeconds = since / 1000;
      // The level held: after the ramp, or after RAMP_MS when the target is never reached.
      else if (rampSeconds !== null || since > RAMP_MS) kept.push(stats.pending);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const notifyUrl = `${o.sandboxUrl}/sandbox/v1/counterparties/${o.guid}/notify`;
  const worker = async () => {
    while (Date.now() < end && started < o.maxStarts) {
      if (level() >= o.inFlight) {
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      started += 1;
      const r = await requestJson(agent, notifyUrl, 'POST', { event: 'pay-in' });
      let answer: { delivery_id?: string; status?: number } = {};
      try {
        answer = JSON.parse(r.text) as typeof answer;
      } catch {
        // counted as bad below
      }
      if (r.status !== 200 || answer.status !== 500 || typeof answer.delivery_id !== 'string') {
        bad += 1;
        lastBad = `${r.status} ${r.text.slice(0, 200)}`;
      } else ids.push(answer.delivery_id);
    }
  };
  try {
    await Promise.all(Array.from({ length: o.concurrency }, worker));
  } finally {
    polling = false;
    await poller.catch(() => undefined);
  }
  const sampleSeconds = (Date.now() - t0) / 1000;
  const drainEnd = Date.now() + 15_000;
  while (Date.now() < drainEnd && (await receiverStats(o.receiverUrl)).pending > 0)
    await new Promise((r) => setTimeout(r, 200));
  agent.destroy();
  const final = await receiverStats(o.receiverUrl);
  kept.sort((a, b) => a - b);
  o.log(
    `  deliveries: ${started} started in ${sampleSeconds.toFixed(1)} s, peak ${final.peak} in flight, ${final.pending} still waiting after the drain`,
  );
  return {
    ids,
    rampSeconds,
    peak: final.peak,
    keptP5: kept.length ? percentile(kept, 5) : null,
    keptMedian: kept.length ? percentile(kept, 50) : null,
    startsPerSecond: started / sampleSeconds,
    badAnswers: bad,
    lastBad,
  };
}

/** The scheduler's timing error of the sampled deliveries' retries, and how they ended. */
export interface TimingResult {
  /** Actual minus planned start of every attempt after the first, ms, sorted. */
  errorsMs: number[];
  read: number;
  delivered: number;
  /** Deliveries whose attempts were not exactly [500, 200]. */
  offLadder: number;
  example: string | null;
}

/** Reads up to `count` deliveries (evenly spread over `ids`) and their attempts' timing. */
export async function readTiming(
  sandboxUrl: string,
  ids: readonly string[],
  count: number,
): Promise<TimingResult> {
  const step = Math.max(1, ids.length / count);
  const chosen: string[] = [];
  for (let i = 0; i < ids.length && chosen.length < count; i += step) chosen.push(ids[Math.floor(i)]!);
  const agent = agentFor(8);
  const out: TimingResult = { errorsMs: [], read: 0, delivered: 0, offLadder: 0, example: null };
  let next = 0;
  const worker = async () => {
    while (next < chosen.length) {
      const id = chosen[next++]!;
      const r = await requestJson(agent, `${sandboxUrl}/sandbox/v1/deliveries/${id}`, 'GET');
      if (r.status !== 200) throw new BenchBroken(`GET delivery ${id}: ${r.status} ${r.text.slice(0, 200)}`);
      const d = JSON.parse(r.text) as {
        state: string;
        attempts: { n: number; at: string; planned_at?: string; status: number | null; copy?: boolean }[];
      };
      out.read += 1;
      if (d.state === 'delivered') out.delivered += 1;
      const ladder = d.attempts.filter((a) => !a.copy);
      if (ladder.map((a) => a.status).join(',') !== '500,200') {
        out.offLadder += 1;
        out.example ??= `${id}: ${d.state} ${JSON.stringify(ladder.map((a) => a.status))}`;
      }
      for (const a of ladder)
        if (a.n >= 2 && a.planned_at) out.errorsMs.push(Date.parse(a.at) - Date.parse(a.planned_at));
    }
  };
  try {
    await Promise.all(Array.from({ length: 8 }, worker));
  } finally {
    agent.destroy();
  }
  out.errorsMs.sort((a, b) => a - b);
  return out;
}
