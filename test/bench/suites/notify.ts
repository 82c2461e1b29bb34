/**
 * Issue 5: durable notification ingestion, POST /api/svc/notify/pay-in with
 * {"transaction_id": "<uuid>"}, each one stored (fsync'd, group commit allowed) before its 200.
 *
 *   bank-notify   the real bank endpoints (servers/bank.ts, core bundled from source, fresh data dir)
 *   http-floor    node:http answering 200 with no body, persisting nothing
 *
 * Every request carries a fresh UUID; every id answered 200 is remembered. After the load the
 * bank child is stopped (SIGTERM: the core closes and flushes its store), the store is opened in
 * this process through the real openEventStore, and every acknowledged id must be in it.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore } from '../../../electron/core/store';
import { startChild, type ChildServer } from '../lib/children';
import { countDurable, formatDurability } from '../lib/durability';
import { BenchBroken } from '../lib/errors';
import type { LoadTarget } from '../lib/load';
import { profilesOf } from '../lib/profiles';
import { runInterleaved } from '../lib/rounds';
import { judge, pairedRatio, ratio } from '../lib/stats';
import type { SpotCheck, Suite, SuiteResult } from '../lib/suite';

const TARGETS = {
  'bank-notify': 'bank POST /api/svc/notify/pay-in (durable)',
  'notify-floor': 'http floor (200, nothing stored)',
} as const;
type TargetId = keyof typeof TARGETS;
const ORDER: TargetId[] = ['bank-notify', 'notify-floor'];
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

export const notifySuite: Suite = {
  id: SUITE_ID,
  title: SUITE_TITLE,
  async run(ctx): Promise<SuiteResult> {
    const cfg = ctx.config;
    const want = ORDER.filter((id) => ctx.wants(id));
    if (want.length === 0)
      throw new BenchBroken('notify suite: BENCH_TARGETS selects none of bank-notify, notify-floor');
    const dataDir = await ctx.tmpDir('dets-bench-notify-');
    const servers = new Map<TargetId, ChildServer>();
    await Promise.all(
      want.map(async (id) => {
        const flags = ctx.nodeFlags(id);
        servers.set(
          id,
          id === 'bank-notify'
            ? await startChild({
                id,
                args: [...flags, join(ctx.buildDir, 'servers/bank.mjs'), dataDir],
                cwd: ctx.root,
                env: { DETS_DATA_DIR: dataDir },
              })
            : await startChild({
                id,
                args: [...flags, join(ctx.buildDir, 'servers/http-floor.mjs')],
                env: { BENCH_HTTP_FLOOR_BODY: '' },
              }),
        );
      }),
    );
    ctx.log(`  servers: ${[...servers.values()].map((s) => `${s.id} pid ${s.pid}`).join(', ')}`);

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
    for (const c of checks) ctx.log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.id}: ${c.detail}`);
    const failed = checks.filter((c) => !c.ok);
    if (failed.length)
      throw new BenchBroken(`spot checks failed: ${failed.map((c) => `${c.id}: ${c.detail}`).join('; ')}`);

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
    const runs = await runInterleaved(
      targets,
      {
        connections: cfg.connections,
        rounds: cfg.rounds,
        roundSeconds: cfg.roundSeconds,
        warmupSeconds: cfg.warmupSeconds,
        minAmount: cfg.minAmount,
        maxAmount: cfg.maxAmount,
        capFactor: cfg.capFactor,
      },
      {
        log: ctx.log,
        beforeRun: (t) => {
          const s = servers.get(t.id as TargetId)!;
          if (!s.alive()) throw new BenchBroken(`${t.id} exited during the bench\n${s.stderrTail()}`);
        },
      },
    );

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
    const profiles = profilesOf(ctx, want, (id) => (id === 'bank-notify' ? 'bank' : 'http-floor'));

    const by = new Map(runs.map((r) => [r.id, r.summary]));
    const rps = (id: TargetId) => by.get(id)?.rps ?? Number.NaN;
    const roundsOf = (id: TargetId) => runs.find((r) => r.id === id)?.rounds ?? [];
    const ratios = {
      notify_vs_http_floor: ratio(rps('bank-notify'), rps('notify-floor')),
      notify_vs_http_floor_paired: pairedRatio(roundsOf('bank-notify'), roundsOf('notify-floor')),
    };
    const p99 = by.get('bank-notify')?.roundP99Ms;
    const verdicts = [
      judge({
        id: 'notify_throughput_vs_http_floor',
        title: 'durable notify throughput ÷ http floor',
        value: ratios.notify_vs_http_floor,
        op: '>=',
        threshold: 0.25,
        unit: '×',
      }),
      judge({
        id: 'notify_p99',
        title: 'durable notify p99 latency (median of rounds)',
        value: p99 === undefined || !Number.isFinite(p99) ? null : p99,
        op: '<',
        threshold: 10,
        unit: 'ms',
      }),
      judge({
        id: 'notify_missing',
        title: 'acknowledged notifications missing from the store',
        value: durability ? durability.missing : null,
        op: '<',
        threshold: 1,
        unit: 'missing',
      }),
    ];
    return {
      id: SUITE_ID,
      title: SUITE_TITLE,
      targets: runs,
      ratios,
      verdicts,
      checks,
      notes: [
        `${cfg.connections} connections, ${cfg.rounds} interleaved rounds of ~${cfg.roundSeconds} s after a ${cfg.warmupSeconds} s warm-up; a fresh UUID per request.`,
        durability
          ? `durability: ${formatDurability(durability)}, read back through openEventStore after the bank child stopped.`
          : 'durability not checked (bank-notify not selected).',
      ],
      profiles,
      figures: durability
        ? { acknowledged: durability.acknowledged, stored: durability.stored, missing: durability.missing }
        : {},
    };
  },
};
