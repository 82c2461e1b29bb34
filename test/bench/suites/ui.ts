/**
 * Issue 5: the Notifications page with 100,000 events, in headless Chromium. The events are
 * seeded through the real event store (non-durable appends, then one flush) into a fresh data
 * directory; the built CLI's `serve` (dist/cli/dets-console.js: run `npm run build` first) serves
 * the console on it; the page is opened from the nav, and once its rows show, the list is
 * scrolled programmatically top to bottom in BENCH_UI_STEPS steps, one step per animation frame,
 * while the page records every requestAnimationFrame timestamp and every long task. Target: no
 * frame over 50 ms.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium, type Browser } from 'playwright-core';
import { EventHub } from '../../../electron/core/event-hub';
import { openEventStore, type NewEvent } from '../../../electron/core/store';
import { startChild } from '../lib/children';
import { BenchBroken } from '../lib/errors';
import { frameDeltas, summarizeFrames } from '../lib/frames';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from '../lib/profile';
import { below } from '../lib/steps';
import type { SpotCheck, Suite, SuiteResult } from '../lib/suite';

const SUITE_ID = 'ui';
const SUITE_TITLE = 'Notifications page: render and scroll 100,000 events in headless Chromium (issue 5)';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ROUTES = ['pay-in', 'pay-out', 'transfer'] as const;

/** The i-th seeded notification, `at` spread one second apart ending now. */
export function seedEvent(i: number, count: number, nowMs: number): NewEvent {
  const route = ROUTES[i % 3]!;
  const rejected = i % 97 === 0;
  const repeat = !rejected && i % 53 === 0;
  const tx = randomUUID();
  const body = rejected ? '{"transaction_id":"not-a-uuid"}' : `{"transaction_id":"${tx}"}`;
  return {
    at: new Date(nowMs - (count - i) * 1000).toISOString(),
    kind: 'notification',
    path: `/api/svc/notify/${route}`,
    method: 'POST',
    status: rejected ? 400 : 200,
    outcome: rejected ? 'rejected' : repeat ? 'repeat' : 'accepted',
    transaction_id: rejected ? null : tx,
    failed_check: null,
    obj: null,
    sub: null,
    duration_ms: 1 + (i % 7) / 10,
    warning: null,
    remote: '127.0.0.1',
    request: {
      method: 'POST',
      url: `/api/svc/notify/${route}`,
      headers: { 'content-type': 'application/json' },
      body,
    },
    response: { status: rejected ? 400 : 200, headers: {}, body: rejected ? '{"error":"bad_request"}' : '' },
    checks: null,
    token: null,
    jwks: null,
    forward: null,
  };
}

/** Newest mtime under a folder (files and folders), 0 when it does not exist. */
function newestMtime(path: string): number {
  try {
    const st = statSync(path);
    if (!st.isDirectory()) return st.mtimeMs;
    return readdirSync(path).reduce((m, e) => Math.max(m, newestMtime(join(path, e))), st.mtimeMs);
  } catch {
    return 0;
  }
}

/** Whether the built CLI is older than the sources it serves (a stale build measures old code). */
function staleBuild(root: string, cli: string): boolean {
  const built = statSync(cli).mtimeMs;
  return ['renderer', 'electron/core', 'electron/headless'].some((d) => newestMtime(join(root, d)) > built);
}

interface PageMeasure {
  timestamps: number[];
  stepAt: number[];
  heightAt: number[];
  longTasks: number[];
  longTaskStarts: number[];
  steps: number;
  scrollHeight: number;
  clientHeight: number;
  finalScrollTop: number;
  rowsRendered: number;
  rowHeight: number;
  capped: boolean;
}

export const uiSuite: Suite = {
  id: SUITE_ID,
  title: SUITE_TITLE,
  async run(ctx): Promise<SuiteResult> {
    const cfg = ctx.config;
    const cli = join(ctx.root, 'dist/cli/dets-console.js');
    if (!existsSync(cli)) throw new BenchBroken(`ui suite: ${cli} is missing: run npm run build first`);
    if (!existsSync(cfg.chromium))
      throw new BenchBroken(`ui suite: no Chromium at ${cfg.chromium} (BENCH_CHROMIUM)`);
    const notes: string[] = [];
    if (staleBuild(ctx.root, cli))
      notes.push(
        'dist/ is older than renderer/ or the core: the figures measure the last build (run npm run build).',
      );

    // Seed through the real store: bulk, non-durable appends, then one flush.
    const dataDir = await ctx.tmpDir('dets-bench-ui-');
    const count = cfg.uiEvents;
    const seedStart = performance.now();
    const store = await openEventStore({ dataDir, events: new EventHub() });
    const now = Date.now();
    try {
      const batch = 1000;
      for (let i = 0; i < count; i += batch) {
        const pending: Promise<unknown>[] = [];
        for (let j = i; j < Math.min(count, i + batch); j++)
          pending.push(store.append(seedEvent(j, count, now), { durable: false }));
        await Promise.all(pending);
      }
      await store.flush();
    } finally {
      await store.close();
    }
    const seedMs = performance.now() - seedStart;
    ctx.log(
      `  seeded ${count} notification events in ${(seedMs / 1000).toFixed(1)} s (${Math.round((count * 1000) / seedMs)}/s)`,
    );

    const serve = await startChild({
      id: 'serve',
      args: [
        cli,
        'serve',
        '--ui-port',
        '0',
        '--bank-port',
        '0',
        '--no-sandbox',
        '--json',
        '--data-dir',
        dataDir,
      ],
      cwd: ctx.root,
      env: { DETS_DATA_DIR: dataDir },
      readyTimeoutMs: 60_000,
      urlOf: (r) => (typeof r.ui === 'string' ? new URL(r.ui).origin : null),
    });
    const uiUrl = String(serve.ready.ui);
    ctx.log(`  serve pid ${serve.pid}: ${new URL(uiUrl).origin}`);

    let browser: Browser | null = null;
    const checks: SpotCheck[] = [];
    try {
      browser = await chromium.launch({ executablePath: cfg.chromium, headless: true, args: ARGS });
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      page.setDefaultTimeout(60_000);
      const pageErrors: string[] = [];
      page.on('pageerror', (e) => pageErrors.push(e.message));
      await page.goto(uiUrl);
      await page.locator('[data-testid="connection-status"][data-status="connected"]').waitFor();
      const nav = page.locator('[data-testid="nav-notifications"]');
      if ((await nav.count()) === 0)
        throw new BenchBroken(
          'ui suite: no nav-notifications entry: the Notifications page is not in this build',
        );
      const openStart = performance.now();
      await nav.click();
      const scroller = page.locator('[data-testid="notifications-scroller"]');
      await scroller.waitFor();
      await page.locator('[data-testid="notifications-row"]').first().waitFor();
      const loadMs = performance.now() - openStart;
      const rowsAtStart = await page.locator('[data-testid="notifications-row"]').count();
      checks.push({
        id: 'ui.rows',
        ok: rowsAtStart > 0,
        detail: `${rowsAtStart} rows rendered after ${Math.round(loadMs)} ms`,
      });
      ctx.log(
        `  notifications page: first rows after ${Math.round(loadMs)} ms, ${rowsAtStart} rows in the DOM`,
      );

      // BENCH_PROFILE=ui: the page's JavaScript sampled over the scroll (Chrome DevTools Protocol).
      const profileFile = ctx.profileFile('ui');
      const cdp = profileFile ? await page.context().newCDPSession(page) : null;
      if (cdp) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
        await cdp.send('Profiler.start');
      }
      const measure = (await scroller.evaluate(
        async (el, opts: { steps: number; maxMs: number; rows: number }) => {
          // Runs in the page: only globals (the bundler renames this module's own imports), and
          // scrollTarget (lib/frames.ts) inlined, as the console's CSP allows no eval. The steps
          // spread over the height all `rows` events would take, never past the list's current
          // end: a list that pages in more rows at its end is scrolled as far as it loads.
          const firstRow = el.querySelector('[data-testid="notifications-row"]');
          const rowHeight = firstRow ? firstRow.getBoundingClientRect().height : 0;
          const fullHeight = Math.max(el.scrollHeight, rowHeight * opts.rows);
          const target = (s: number, n: number, h: number, c: number) =>
            Math.min(Math.max(0, h - c), Math.round((Math.min(s, n) / n) * Math.max(0, fullHeight - c)));
          const timestamps: number[] = [];
          /** The scroll step each timestamp follows (0: before scrolling), and the list's height then. */
          const stepAt: number[] = [];
          const heightAt: number[] = [];
          const longTasks: number[] = [];
          const longTaskStarts: number[] = [];
          const observer = new PerformanceObserver((list) => {
            for (const e of list.getEntries()) {
              longTasks.push(e.duration);
              longTaskStarts.push(e.startTime);
            }
          });
          try {
            observer.observe({ type: 'longtask', buffered: false });
          } catch {
            // no longtask support: rAF deltas alone
          }
          const frame = () => new Promise<number>((r) => requestAnimationFrame(r));
          const started = globalThis.performance.now();
          let capped = false;
          // One layout read per step (the height the step scrolls within), none in between.
          const mark = async (step: number, height: number) => {
            timestamps.push(await frame());
            stepAt.push(step);
            heightAt.push(height);
          };
          for (let i = 0; i < 5; i++) await mark(0, el.scrollHeight);
          let step = 1;
          for (; step <= opts.steps; step++) {
            const height = el.scrollHeight;
            el.scrollTop = target(step, opts.steps, height, el.clientHeight);
            await mark(step, height);
            if (globalThis.performance.now() - started > opts.maxMs) {
              capped = true;
              break;
            }
          }
          el.scrollTop = el.scrollHeight; // the very end, then let it settle
          for (let i = 0; i < 10; i++) await mark(opts.steps + 1, el.scrollHeight);
          observer.disconnect();
          const rows = el.querySelectorAll('[data-testid="notifications-row"]');
          const first = rows[0] as HTMLElement | undefined;
          return {
            timestamps,
            stepAt,
            heightAt,
            longTasks,
            longTaskStarts,
            steps: Math.min(step, opts.steps),
            scrollHeight: el.scrollHeight,
            clientHeight: el.clientHeight,
            finalScrollTop: el.scrollTop,
            rowsRendered: rows.length,
            rowHeight: first ? first.getBoundingClientRect().height : 0,
            capped,
          };
        },
        { steps: cfg.uiSteps, maxMs: 60_000, rows: count },
      )) as PageMeasure;
      const profiles: ProfileSummary[] = [];
      if (cdp && profileFile) {
        const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile };
        await mkdir(join(profileFile, '..'), { recursive: true });
        await writeFile(profileFile, JSON.stringify(profile));
        // Script URLs without the origin: the renderer's chunks (assets/…) are the areas.
        const origin = new URL(uiUrl).origin;
        for (const n of profile.nodes) n.callFrame.url = n.callFrame.url.replace(origin, '');
        profiles.push(summarizeProfile(profile, { file: profileFile }));
      }
      const slow = measure.timestamps.flatMap((t, i) => {
        const d = i > 0 ? t - measure.timestamps[i - 1]! : 0;
        return d > 50
          ? [`${d.toFixed(0)} ms at step ${measure.stepAt[i]} (list ${measure.heightAt[i]} px high)`]
          : [];
      });
      if (slow.length) notes.push(`frames over 50 ms: ${slow.slice(0, 10).join('; ')}`);
      const tasks = measure.longTasks.map((d, i) => {
        const at = measure.timestamps.findIndex((t) => t >= measure.longTaskStarts[i]!);
        return `${d.toFixed(0)} ms before step ${at >= 0 ? measure.stepAt[at] : '?'} (list ${at >= 0 ? measure.heightAt[at] : '?'} px high)`;
      });
      if (tasks.length) notes.push(`long tasks (the page's main thread): ${tasks.slice(0, 10).join('; ')}`);
      if (pageErrors.length) notes.push(`page errors: ${pageErrors.slice(0, 3).join(' | ')}`);

      const frames = summarizeFrames(frameDeltas(measure.timestamps), 50);
      const listRows = measure.rowHeight > 0 ? Math.round(measure.scrollHeight / measure.rowHeight) : null;
      const rowReached =
        measure.rowHeight > 0
          ? Math.round((measure.finalScrollTop + measure.clientHeight) / measure.rowHeight)
          : null;
      const reachedEnd = measure.finalScrollTop + measure.clientHeight >= measure.scrollHeight - 2;
      ctx.log(
        `  scrolled ${measure.steps} steps${measure.capped ? ' (time cap)' : ''}: ${frames.frames} frames, max ${frames.maxMs.toFixed(1)} ms, p99 ${frames.p99Ms.toFixed(1)} ms, ${frames.over} over 50 ms, ${measure.longTasks.length} long tasks`,
      );
      checks.push({
        id: 'ui.scrolled-to-end',
        ok: reachedEnd,
        detail: `scrollTop ${Math.round(measure.finalScrollTop)} + ${measure.clientHeight} of ${measure.scrollHeight} px (${listRows ?? '?'} rows of ${measure.rowHeight.toFixed(1)} px)`,
      });
      if (listRows !== null && listRows < count * 0.9)
        notes.push(
          `the scroller ended ${measure.scrollHeight} px high, about ${listRows} rows, and the scroll reached row ${rowReached ?? '?'} of ${count}: the page lays out its events in pages loaded at the end of the list, and ${measure.steps} steps reached only so far`,
        );
      await page.close();

      const verdicts = [
        below(
          'ui_max_frame',
          `notifications page, ${count} events: longest frame while scrolling`,
          Number.isFinite(frames.maxMs) ? frames.maxMs : null,
          50,
        ),
      ];
      return {
        id: SUITE_ID,
        title: SUITE_TITLE,
        targets: [],
        ratios: {},
        verdicts,
        checks,
        notes: [
          `${count} events seeded through openEventStore (append durable:false, then flush); dist/cli serve --no-sandbox; Chromium ${browser.version()} headless, 1280×800; ${measure.steps} scroll steps, one per animation frame, top to bottom.`,
          ...notes,
        ],
        profiles,
        figures: {
          events_seeded: count,
          seed_seconds: Number((seedMs / 1000).toFixed(2)),
          first_rows_ms: Math.round(loadMs),
          rows_in_dom: measure.rowsRendered,
          scroll_steps: measure.steps,
          frames: frames.frames,
          frame_max_ms: Number(frames.maxMs.toFixed(1)),
          frame_p50_ms: Number(frames.p50Ms.toFixed(1)),
          frame_p99_ms: Number(frames.p99Ms.toFixed(1)),
          frames_over_50ms: frames.over,
          long_tasks: measure.longTasks.length,
          long_task_max_ms: measure.longTasks.length ? Number(Math.max(...measure.longTasks).toFixed(1)) : 0,
          scroll_height_px: measure.scrollHeight,
          list_rows_by_height: listRows,
          last_row_reached: rowReached,
        },
      };
    } finally {
      await browser?.close().catch(() => undefined);
      await serve.stop();
    }
  },
};
