/**
 * Issues 5 and 12: durable notification ingestion, POST /api/svc/notify/pay-in with
 * {"transaction_id": "<uuid>"}, each one stored (fsync'd, group commit allowed) before its 200.
 *
 *   bank-notify   the real bank endpoints (servers/bank.ts, core bundled from source, fresh data dir)
 *   fsync-floor   the eager group-commit baseline (servers/fsync-floor.ts): node:http appending
 *                 each transaction_id to a file, one fdatasync per batch of what queued during
 *                 the previous one, a 200 once its batch is synced; issue 12's target is ≥ 0.6×
 *   notify-floor  node:http answering 200 with no body, persisting nothing (the target's baseline)
 *
 * Every request carries a fresh UUID; every id answered 200 is remembered. After the load the
 * bank child is stopped (SIGTERM: the core closes and flushes its store), the store is opened in
 * this process through the real openEventStore, and every acknowledged id must be in it.
 *
 *   notify-flood  issue 24: notifications at 200/s beside a flood of bad-signature callbacks
 *                 with 15 KB headers (notify-flood.ts), run after the rounds
 */
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { countDurable, formatDurability } from '../lib/durability';
import type { LoadTarget } from '../lib/load';
import { profilesOf } from '../lib/profiles';
import { runInterleaved } from '../lib/rounds';
import { snapshotThreads, threadSplits } from '../lib/thread-cpu';
import { summarizeLatencies } from '../lib/stats';
import {
  aliveCheck,
  atLeast,
  below,
  describeServers,
  finite,
  offServersCore,
  pinCpu,
  pinNote,
  reportChecks,
  roundPlan,
  runFigures,
  selectTargets,
  startServers,
} from '../lib/steps';
import type { SpotCheck, Suite, SuiteResult } from '../lib/suite';
import { FLOOD_TARGET_ID, runNotifyFlood } from './notify-flood';

const TARGETS = {
  'bank-notify': 'bank POST /api/svc/notify/pay-in (durable)',
  'fsync-floor': 'eager group-commit baseline (append + one fdatasync per batch)',
  'notify-floor': 'http floor (200, nothing stored)',
} as const;
type TargetId = keyof typeof TARGETS;
const ORDER: TargetId[] = ['bank-notify', 'fsync-floor', 'notify-floor'];
const PATH = '/api/svc/notify/pay-in';

const SUITE_ID = 'notify';
const SUITE_TITLE = 'Bank endpoints: POST /api/svc/notify/pay-in, durable before 200 (issue 5)';

async function post(url: string, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url + PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, text: await res.text() };
}

/** Latency of `n` sequential append + fdatasync of a notification-sized line in `dir`, ms. */
function probeFdatasync(dir: string, n: number): number[] {
  const file = join(dir, 'fsync-probe.tmp');
  const fd = openSync(file, 'a');
  const line = Buffer.from(`${'x'.repeat(400)}\n`);
  const out: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      writeSync(fd, line);
      const t = performance.now();
      fdatasyncSync(fd);
      out.push(performance.now() - t);
    }
  } finally {
    closeSync(fd);
    rmSync(file, { force: true });
  }
  return out;
}

export const notifySuite: Suite = {
  id: SUITE_ID,
  title: SUITE_TITLE,
  async run(ctx): Promise<SuiteResult> {
    const cfg = ctx.config;
    // Issue 24's flood scenario (notify-flood.ts) runs after the rounds, or alone when
    // BENCH_TARGETS names only it.
    const flooding = ctx.wants(FLOOD_TARGET_ID);
    if (flooding && !ORDER.some((id) => ctx.wants(id))) {
      const flood = await runNotifyFlood(ctx, pinCpu(cfg));
      return { id: SUITE_ID, title: SUITE_TITLE, targets: [], ratios: {}, ...flood };
    }
    const want = selectTargets(ctx, SUITE_ID, ORDER);
    const dataDir = await ctx.tmpDir('dets-bench-notify-');
    // What one fdatasync costs on this disk: the p99 target cannot beat the disk's own tail.
    const fsyncMs = summarizeLatencies(probeFdatasync(dataDir, 200));
    ctx.log(
      `  this disk: append + fdatasync p50 ${fsyncMs.p50.toFixed(2)} ms, p99 ${fsyncMs.p99.toFixed(2)} ms, max ${fsyncMs.max.toFixed(1)} ms (200 sequential)`,
    );
    // Every server on one CPU (the load generator keeps the others): its figures are one core's.
    const cpu = pinCpu(cfg);
    const pin = cpu === null ? {} : { cpu };
    const servers = await startServers(want, async (id) => {
      const flags = ctx.nodeFlags(id);
      return id === 'bank-notify'
        ? {
            id,
            ...pin,
            args: [...flags, join(ctx.buildDir, 'servers/bank.mjs'), dataDir],
            cwd: ctx.root,
            env: { DETS_DATA_DIR: dataDir },
          }
        : id === 'fsync-floor'
          ? {
              id,
              ...pin,
              args: [
                ...flags,
                join(ctx.buildDir, 'servers/fsync-floor.mjs'),
                await ctx.tmpDir('dets-bench-fsync-'),
              ],
            }
          : {
              id,
              ...pin,
              args: [...flags, join(ctx.buildDir, 'servers/http-floor.mjs')],
              env: { BENCH_HTTP_FLOOR_BODY: '' },
            };
    });
    ctx.log(
      `  servers: ${describeServers(servers.values())}; ${cpu === null ? 'not pinned' : `pinned to CPU ${cpu}`}`,
    );

    // Every id the bank answered 200 for (spot checks included).
    const acknowledged: string[] = [];
    const checks: SpotCheck[] = [];
    for (const [id, s] of servers) {
      const tx = randomUUID();
      const ok = await post(s.url, JSON.stringify({ transaction_id: tx }));
      if (id === 'bank-notify' && ok.status === 200) acknowledged.push(tx);
      checks.push({
        id: `${id}.accepts`,
        ok: ok.status === 200 && ok.text === '',
        detail: `${ok.status} ${ok.text === '' ? 'no body' : ok.text.slice(0, 200)}`,
      });
      if (id === 'bank-notify') {
        const bad = await post(s.url, JSON.stringify({ transaction_id: 'not-a-uuid' }));
        checks.push({
          id: `${id}.rejects-bad-body`,
          ok: bad.status === 400,
          detail: `${bad.status} for {"transaction_id":"not-a-uuid"} ${bad.text.slice(0, 160)}`,
        });
      }
    }
    reportChecks(ctx, checks);

    const targets: LoadTarget[] = want.map((id) => ({
      id,
      title: TARGETS[id],
      url: servers.get(id)!.url,
      nextRequest: () => {
        const tx = randomUUID();
        return {
          method: 'POST',
          path: PATH,
          headers: { 'content-type': 'application/json' },
          body: `{"transaction_id":"${tx}"}`,
          tag: tx,
        };
      },
      verifyBody: (body) => body === '',
      ...(id === 'bank-notify'
        ? {
            onResponse: (status: number, tag: string | undefined) => {
              if (status === 200 && tag) acknowledged.push(tag);
            },
          }
        : {}),
    }));
    const alive = aliveCheck(servers);
    const threadsBefore = snapshotThreads(servers, ['bank-notify']);
    // The load generator (this process) stays off the servers' core while it loads them.
    const runs = await offServersCore(cpu, () =>
      runInterleaved(targets, roundPlan(cfg), {
        log: ctx.log,
        beforeRun: (t) => alive(t.id),
        // Each child's CPU (every thread: the bank's writer included) per acknowledged request.
        cpuMicros: (t) => servers.get(t.id as TargetId)?.cpuMicros() ?? Promise.resolve(null),
      }),
    );
    // Where the bank's CPU went: its event loop, the store's writer thread, the rest.
    const threadNotes = threadSplits(servers, threadsBefore, runs);
    for (const line of threadNotes) ctx.log(`  ${line}`);

    // Stop the bank (graceful: the core closes and flushes the store), then count what is stored.
    const exits = await Promise.all(
      [...servers.values()].map(async (s) => [s.id, await s.stop(20_000)] as const),
    );
    const bankExit = exits.find(([id]) => id === 'bank-notify')?.[1];
    let durability = null;
    if (servers.has('bank-notify')) {
      const stored = new Set<string>();
      const store = await openEventStore({ dataDir, events: new EventHub() });
      let events = 0;
      try {
        for await (const e of store.scan({ kind: 'notification' })) {
          events++;
          if (e.transaction_id && (e.outcome === 'accepted' || e.outcome === 'repeat'))
            stored.add(e.transaction_id);
        }
      } finally {
        await store.close();
      }
      durability = countDurable(acknowledged, stored);
      ctx.log(
        `  durability: ${formatDurability(durability)} (${events} notification events in the store; bank exited ${bankExit?.signal ?? `code ${bankExit?.code}`})`,
      );
      checks.push({
        id: 'bank-notify.durable',
        ok: durability.missing === 0,
        detail: formatDurability(durability),
      });
    }
    const profiles = profilesOf(ctx, want, (id) =>
      id === 'bank-notify' ? 'bank' : id === 'fsync-floor' ? 'fsync-floor' : 'http-floor',
    );

    const flood = flooding ? await runNotifyFlood(ctx, cpu) : null;

    const { by, ratio, paired } = runFigures<TargetId>(runs);
    const ratios = {
      notify_vs_http_floor: ratio('bank-notify', 'notify-floor'),
      notify_vs_fsync_floor: ratio('bank-notify', 'fsync-floor'),
      fsync_floor_vs_http_floor: ratio('fsync-floor', 'notify-floor'),
      notify_vs_http_floor_paired: paired('bank-notify', 'notify-floor'),
    };
    const verdicts = [
      atLeast(
        'notify_throughput_vs_group_commit',
        'durable notification ingestion ÷ eager group-commit baseline',
        ratios.notify_vs_fsync_floor,
        0.6,
      ),
      atLeast(
        'notify_throughput_vs_http_floor',
        'durable notify throughput ÷ http floor',
        ratios.notify_vs_http_floor,
        0.25,
      ),
      below(
        'notify_p99',
        `durable notification p99 latency at ${cfg.connections} connections (median of rounds)`,
        finite(by.get('bank-notify')?.roundP99Ms),
        10,
      ),
      below(
        'notify_missing',
        'acknowledged notifications missing from the store afterwards',
        durability ? durability.missing : null,
        1,
        'missing',
      ),
      ...(flood?.verdicts ?? []),
    ];
    return {
      id: SUITE_ID,
      title: SUITE_TITLE,
      targets: runs,
      ratios,
      verdicts,
      checks: [...checks, ...(flood?.checks ?? [])],
      notes: [
        ...threadNotes,
        `${cfg.connections} connections, ${cfg.rounds} interleaved rounds of ~${cfg.roundSeconds} s after a ${cfg.warmupSeconds} s warm-up; a fresh UUID per request.`,
        `${pinNote(cpu)}: one core for each server, its writer threads included, as issue 12 measures.`,
        durability
          ? `durability: ${formatDurability(durability)}, read back through openEventStore after the bank child stopped.`
          : 'durability not checked (bank-notify not selected).',
        ...(flood?.notes ?? []),
      ],
      profiles: [...profiles, ...(flood?.profiles ?? [])],
      figures: {
        fdatasync_p50_ms: Number(fsyncMs.p50.toFixed(2)),
        fdatasync_p99_ms: Number(fsyncMs.p99.toFixed(2)),
        fdatasync_max_ms: Number(fsyncMs.max.toFixed(1)),
        ...(durability
          ? { acknowledged: durability.acknowledged, stored: durability.stored, missing: durability.missing }
          : {}),
        ...flood?.figures,
      },
    };
  },
};
