/**
 * The event pages with 100,000 stored events, in headless Chromium. The profile is built with the
 * store suite's builder (lib/build-profile.ts: the writer's own statements); the built CLI's
 * `serve` (dist/cli/dets-console.js: run `node scripts/build.mjs` first) serves the console on it.
 *
 * - Issue 5: the Notifications page is scrolled programmatically top to bottom in BENCH_UI_STEPS
 *   steps, one per animation frame. Target: no frame over 50 ms.
 * - Issue 13 item 9: the Notifications and the Callbacks page each stay open while BENCH_RATE
 *   (2,000) events a second arrive at the bank listener for BENCH_UI_LOAD_SECONDS, paced
 *   (lib/paced.ts; notifications, or callbacks without a token), bounded in count and time. The
 *   page records every requestAnimationFrame delta and every long task; meanwhile the filters are
 *   changed (the outcome filter, the store search) and timed in the page from the change to the
 *   first frame whose rows all match (the server-side answer). Targets: frame p99 < 33 ms, no long
 *   task over 50 ms, every filter < 100 ms. Every figure is printed with the load it was taken
 *   under: what arrived and the rate reached (accepted notifications wait for their fsync, so they
 *   are sent with up to 160 in flight, as a service sending 2,000 a second would have).
 * - BENCH_PROFILE=ui-notifications,ui-callbacks: the live page's JavaScript sampled (CDP
 *   Profiler) into .bench/profiles/, and each stretch of 40 ms or more the main thread was busy
 *   printed with the functions on its stack (lib/frames.ts busyRuns). A renderer built with
 *   `npx vite build --minify false` gives readable names.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium, type Browser } from 'playwright-core';
import { blankEvent, formatEventId, type NewEvent } from '../../../electron/core/store';
import type { EventDetail } from '../../../electron/contract/schemas/events';
import { buildProfile, yearEvent } from '../lib/build-profile';
import type { RequestSpec } from '../lib/load';
import { runPaced } from '../lib/paced';
import { startChild } from '../lib/children';
import { BenchBroken } from '../lib/errors';
import { busyRuns, frameDeltas, summarizeFrames, type BusyRun } from '../lib/frames';
import { summarizeProfile, type CpuProfile, type ProfileSummary } from '../lib/profile';
import { atMost, below } from '../lib/steps';
import type { SpotCheck, Suite, SuiteResult } from '../lib/suite';

const SUITE_ID = 'ui';
const SUITE_TITLE =
  'Event pages with 100,000 events in headless Chromium: scroll (issue 5), 2,000 arriving a second and filters (issue 13 item 9)';
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

/** One event in NEEDLE_EVERY carries the search needle (in a transaction_id or an obj). */
const NEEDLE_EVERY = 20_000;

/**
 * Event `i` of the UI profile, one second apart ending at `nowMs`: notifications as seedEvent
 * makes them (accepted, repeats, rejected), every fourth a /user_auth callback (one in five of
 * them failed on exp); `needle` in a few of each, for the search to find.
 */
export function uiEvent(i: number, count: number, nowMs: number, needle: string): EventDetail {
  const at = new Date(nowMs - (count - i) * 1000).toISOString();
  const id = formatEventId(i + 1);
  const carries = i % NEEDLE_EVERY === (i % 4 === 3 ? 11 : 10);
  if (i % 4 === 3) {
    const c = yearEvent(i, count, nowMs, carries ? needle : null);
    const failed = i % 5 === 0;
    return {
      ...c,
      at,
      ...(failed
        ? {
            status: 401,
            failed_check: 'exp',
            response: { status: 401, headers: {}, body: '{"error":"unauthorized","check":"exp"}' },
          }
        : {}),
    };
  }
  const e = seedEvent(i, count, nowMs);
  const tx =
    carries && e.transaction_id ? `${needle}-${e.transaction_id.slice(needle.length + 1)}` : e.transaction_id;
  return { ...blankEvent('notification', at), ...e, transaction_id: tx, id };
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

/** A filter changed on a live page, and how a row of its answer is known. */
interface FilterSpec {
  id: string;
  testId: string;
  /** How the control is changed: a select's value, or a search box's text. */
  kind: 'select' | 'text';
  value: string;
  /** A row of the answer: this attribute equals `value`, or (null) the row's text holds `value`. */
  attr: string | null;
  /** With `value` '': answered when some row's outcome is not this (the filter just left). */
  allBut?: string;
}

interface LivePage {
  /** The measurement: the page, and for a second load on the same page, the load's name. */
  id: 'notifications' | 'callbacks';
  /** The page, for the verdicts' words. */
  page: 'notifications' | 'callbacks';
  nav: string;
  row: string;
  /** What arrives while the page is open, in words (printed beside every figure). */
  load: string;
  /** What arrives while the page is open. */
  request: () => RequestSpec;
  /** Every arrival is answered non-2xx (a callback without a token). */
  refused: boolean;
  /**
   * Requests in flight at most. An accepted notification is answered after its fsync (group
   * commits, DESIGN: the notify path), so at 2,000 a second with answers taking tens of
   * milliseconds a sender has ~100 in flight, as the service would; 16 would cap the rate at
   * 16 / fsync time (the 375–450/s measured before).
   */
  connections: number;
  filters: (needle: string) => FilterSpec[];
}

/**
 * The Notifications page's filters: the outcome filter on `picked` (an outcome the arrivals do not
 * have, so its answer is the store's, not the live rows), back to all outcomes (answered when a row
 * of another outcome shows), and the search.
 */
const notificationFilters =
  (picked: string) =>
  (needle: string): FilterSpec[] => [
    { id: 'outcome', testId: 'notifications-outcome', kind: 'select', value: picked, attr: 'data-outcome' },
    {
      id: 'outcome-all',
      testId: 'notifications-outcome',
      kind: 'select',
      value: '',
      attr: null,
      allBut: picked,
    },
    { id: 'search', testId: 'notifications-search', kind: 'text', value: needle, attr: null },
  ];

/** Accepted notifications: each stored durably (fsync'd) before its 200 (DESIGN: the notify path). */
const NOTIFICATIONS_DURABLE: LivePage = {
  id: 'notifications',
  page: 'notifications',
  nav: 'nav-notifications',
  row: 'notifications-row',
  load: 'accepted notifications (durable path)',
  request: () => ({
    method: 'POST',
    path: '/api/svc/notify/pay-in',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ transaction_id: randomUUID() }),
  }),
  refused: false,
  connections: 160,
  filters: notificationFilters('rejected'),
};

const LIVE_PAGES: readonly LivePage[] = [
  NOTIFICATIONS_DURABLE,
  {
    id: 'callbacks',
    page: 'callbacks',
    nav: 'nav-callbacks',
    row: 'callback-row',
    load: 'callbacks without a token (answered 401)',
    // No X-Session-ID: answered 401 (check "present") and stored, as a service's bad call would be.
    request: () => ({ method: 'GET', path: '/user_auth' }),
    refused: true,
    connections: 32,
    filters: (needle) => [
      { id: 'search', testId: 'callbacks-search', kind: 'text', value: needle, attr: null },
    ],
  },
];

interface LiveMeasure {
  id: LivePage['id'];
  page: LivePage['page'];
  load: string;
  frames: ReturnType<typeof summarizeFrames>;
  longTasks: number[];
  /** Each filter's time to the matching list, and the events.query round trips it waited on. */
  filters: Array<{ id: string; ms: number | null; queries: number[] }>;
  sent: number;
  rps: number;
  non2xx: number;
  errors: number;
}

/**
 * Opens `spec`'s page, records its frames and long tasks while `rate` events a second arrive for
 * `seconds`, and times each filter meanwhile (in the page: from the change to the first frame
 * whose rows all match).
 */
async function measureLive(
  browser: Browser,
  uiUrl: string,
  bankUrl: string,
  spec: LivePage,
  opts: {
    rate: number;
    seconds: number;
    needle: string;
    log: (line: string) => void;
    /** BENCH_PROFILE=ui-<page>: the page's JavaScript sampled while events arrive (CDP Profiler). */
    profileFile: string | null;
  },
): Promise<LiveMeasure> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.setDefaultTimeout(60_000);
  try {
    await page.goto(uiUrl);
    await page.locator('[data-testid="connection-status"][data-status="connected"]').waitFor();
    await page.locator(`[data-testid="${spec.nav}"]`).click();
    await page.locator(`[data-testid="${spec.row}"]`).first().waitFor();
    await page.evaluate(() => {
      type Rec = { ts: number[]; lt: number[]; stop: boolean; obs: PerformanceObserver | null };
      const rec: Rec = { ts: [], lt: [], stop: false, obs: null };
      (globalThis as unknown as { __bench: Rec }).__bench = rec;
      try {
        rec.obs = new PerformanceObserver((list) => {
          for (const e of list.getEntries()) rec.lt.push(e.duration);
        });
        rec.obs.observe({ type: 'longtask', buffered: false });
      } catch {
        // no longtask support: rAF deltas alone
      }
      const loop = (t: number) => {
        if (rec.stop) return;
        rec.ts.push(t);
        requestAnimationFrame(loop);
      };
      requestAnimationFrame(loop);
    });
    const cdp = opts.profileFile ? await page.context().newCDPSession(page) : null;
    if (cdp) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
      await cdp.send('Profiler.start');
    }
    const amount = Math.max(1, Math.round(opts.rate * opts.seconds));
    const load = runPaced(
      { id: `ui-${spec.id}`, title: spec.id, url: bankUrl, nextRequest: spec.request },
      { rate: opts.rate, amount, connections: spec.connections, maxSeconds: opts.seconds + 15 },
    );
    // Let the arrivals reach the page, then change each filter while they go on.
    await new Promise((r) => setTimeout(r, Math.min(1500, (opts.seconds * 1000) / 4)));
    const filters: LiveMeasure['filters'] = [];
    for (const f of spec.filters(opts.needle)) {
      const ms = await page.evaluate(
        async (o: FilterSpec & { row: string; maxMs: number }) => {
          const ctl = document.querySelector(`[data-testid="${o.testId}"]`) as
            HTMLSelectElement | HTMLInputElement | null;
          if (!ctl) return { ms: null, queries: [] as number[], calls: [] as string[] };
          const frame = () => new Promise<number>((r) => requestAnimationFrame(r));
          const rows = () => [...document.querySelectorAll(`[data-testid="${o.row}"]`)];
          const matches = () => {
            const list = rows();
            if (list.length === 0) return false;
            if (o.value === '') return list.some((r) => r.getAttribute('data-outcome') !== o.allBut);
            return list.every((r) =>
              o.attr ? r.getAttribute(o.attr) === o.value : (r.textContent ?? '').includes(o.value),
            );
          };
          // Page code: globals only (the bundler renames this module's imports, such as performance).
          await frame();
          // The store's share: how long each events.query the change caused took (resource timing).
          globalThis.performance.clearResourceTimings();
          globalThis.performance.setResourceTimingBufferSize(2000);
          const t0 = globalThis.performance.now();
          const queries = () =>
            globalThis.performance
              .getEntriesByType('resource')
              .filter((e) => e.name.includes('events.query') && e.startTime >= t0)
              .map((e) => Math.round(e.duration));
          // Every console call in flight meanwhile (one answered before it may have held it up).
          const calls = () =>
            globalThis.performance
              .getEntriesByType('resource')
              .filter((e) => e.name.includes('/api/call/') && e.startTime + e.duration >= t0)
              .map(
                (e) =>
                  `${e.name.slice(e.name.lastIndexOf('/') + 1)} ${Math.round(e.startTime - t0)}+${Math.round(e.duration)}`,
              );
          // React listens to the native setter's value plus the event it expects.
          const proto = o.kind === 'select' ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
          Object.getOwnPropertyDescriptor(proto, 'value')!.set!.call(ctl, o.value);
          ctl.dispatchEvent(new Event(o.kind === 'select' ? 'change' : 'input', { bubbles: true }));
          while (globalThis.performance.now() - t0 < o.maxMs) {
            await frame();
            if (matches())
              return { ms: globalThis.performance.now() - t0, queries: queries(), calls: calls() };
          }
          return { ms: null, queries: queries(), calls: calls() };
        },
        { ...f, row: spec.row, maxMs: 10_000 },
      );
      filters.push({ id: f.id, ms: ms.ms, queries: ms.queries });
      opts.log(
        `  ${spec.id}: filter ${f.id} ${ms.ms === null ? 'never matched' : `${ms.ms.toFixed(0)} ms`}; events.query calls meanwhile: ${ms.queries.join(', ') || 'none'} ms; calls in flight (ms from the change + ms): ${ms.calls.join(', ') || 'none'}`,
      );
    }
    const result = await load;
    const rec = await page.evaluate(() => {
      const r = (
        globalThis as unknown as {
          __bench: { ts: number[]; lt: number[]; stop: boolean; obs: PerformanceObserver | null };
        }
      ).__bench;
      r.stop = true;
      r.obs?.disconnect();
      return { ts: r.ts, lt: r.lt };
    });
    let runs: BusyRun[] = [];
    if (cdp && opts.profileFile) {
      const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile };
      await mkdir(join(opts.profileFile, '..'), { recursive: true });
      await writeFile(opts.profileFile, JSON.stringify(profile));
      runs = busyRuns(profile, 40);
      for (const r of runs)
        opts.log(
          `  ${spec.id}: busy ${r.ms.toFixed(0)} ms at +${(r.atMs / 1000).toFixed(2)} s: ${r.top.map((f) => `${f.name} ${f.ms}`).join(' | ')}`,
        );
    }
    return {
      id: spec.id,
      page: spec.page,
      load: spec.load,
      frames: summarizeFrames(frameDeltas(rec.ts), 33),
      longTasks: rec.lt,
      filters,
      sent: result.responses,
      rps: result.rps,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    };
  } finally {
    await page.close().catch(() => undefined);
  }
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

    // The store suite's builder: the writer's own statements, big transactions.
    const dataDir = await ctx.tmpDir('dets-bench-ui-');
    const count = cfg.uiEvents;
    const needle = `needle${randomUUID().slice(0, 8)}`;
    const now = Date.now();
    const seedMs = await buildProfile({
      root: ctx.root,
      dataDir,
      n: count,
      eventAt: (i) => uiEvent(i, count, now, needle),
      maxSeconds: 600,
      suite: SUITE_ID,
      log: ctx.log,
    });
    ctx.log(
      `  built ${count} events in ${(seedMs / 1000).toFixed(1)} s (${Math.round((count * 1000) / seedMs)}/s)`,
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
    const bankUrl = String(serve.ready.bank).replace(/\/+$/, '');
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

      // Issue 13 item 9: each page open while events arrive, its filters changed meanwhile.
      const lives: LiveMeasure[] = [];
      for (const spec of LIVE_PAGES) {
        const m = await measureLive(browser, uiUrl, bankUrl, spec, {
          rate: cfg.rate,
          seconds: cfg.uiLoadSeconds,
          needle,
          log: ctx.log,
          profileFile: ctx.profileFile(`ui-${spec.id}`),
        });
        const longest = m.longTasks.length ? Math.max(...m.longTasks) : 0;
        ctx.log(
          `  ${spec.page} page under ${m.sent} ${spec.load} at ${Math.round(m.rps)}/s reached (aimed ${cfg.rate}/s): frame p99 ${m.frames.p99Ms.toFixed(1)} ms (target < 33), max ${m.frames.maxMs.toFixed(1)} ms, ${m.longTasks.length} long tasks, longest ${longest.toFixed(0)} ms (target ≤ 50); filters ${m.filters.map((f) => `${f.id} ${f.ms === null ? 'never' : `${f.ms.toFixed(0)} ms`}`).join(', ')} (target < 100)`,
        );
        checks.push({
          id: `ui.${spec.id}.arrivals`,
          ok: m.errors === 0 && m.non2xx === (spec.refused ? m.sent : 0),
          detail: `${m.sent} ${spec.load} answered, ${m.non2xx} non-2xx, ${m.errors} errors, ${Math.round(m.rps)}/s`,
        });
        lives.push(m);
        if (m.rps < cfg.rate * 0.9)
          notes.push(
            `${spec.page} page: ${spec.load} reached ${Math.round(m.rps)}/s of the ${cfg.rate}/s aimed at (${spec.connections} in flight at most): its figures are taken under that rate, not the target's.`,
          );
      }

      const underLoad = (m: LiveMeasure) => `${Math.round(m.rps)}/s ${m.load} arriving (aimed ${cfg.rate}/s)`;
      const verdicts = [
        below(
          'ui_max_frame',
          `notifications page, ${count} events: longest frame while scrolling`,
          Number.isFinite(frames.maxMs) ? frames.maxMs : null,
          50,
        ),
        ...lives.flatMap((m) => [
          below(
            `ui_${m.id.replace('-', '_')}_live_frame_p99`,
            `${m.page} page, ${count} events, ${underLoad(m)}: frame p99`,
            Number.isFinite(m.frames.p99Ms) ? m.frames.p99Ms : null,
            33,
          ),
          atMost(
            `ui_${m.id.replace('-', '_')}_live_long_task_max`,
            `${m.page} page, ${underLoad(m)}: longest task`,
            m.longTasks.length ? Math.max(...m.longTasks) : 0,
            50,
            'ms',
          ),
          ...m.filters.map((f) =>
            below(
              `ui_${m.id.replace('-', '_')}_filter_${f.id}`,
              `${m.page} page, ${underLoad(m)}: filter "${f.id}" until the list shows the store's answer`,
              f.ms,
              100,
            ),
          ),
        ]),
      ];
      return {
        id: SUITE_ID,
        title: SUITE_TITLE,
        targets: [],
        ratios: {},
        verdicts,
        checks,
        notes: [
          `${count} events built with the store suite's builder (lib/build-profile.ts); dist/cli serve --no-sandbox; ${cfg.rate}/s arriving for ${cfg.uiLoadSeconds} s on each live page (accepted notifications, each answered after its fsync; callbacks without a token); Chromium ${browser.version()} headless, 1280×800; ${measure.steps} scroll steps, one per animation frame, top to bottom.`,
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
          ...Object.fromEntries(
            lives.flatMap((m) => [
              [`${m.id.replace('-', '_')}_live_arrivals`, m.sent],
              [`${m.id.replace('-', '_')}_live_rps`, Math.round(m.rps)],
              [`${m.id.replace('-', '_')}_live_frames`, m.frames.frames],
              [`${m.id.replace('-', '_')}_live_frame_p99_ms`, Number(m.frames.p99Ms.toFixed(1))],
              [`${m.id.replace('-', '_')}_live_frame_max_ms`, Number(m.frames.maxMs.toFixed(1))],
              [`${m.id.replace('-', '_')}_live_long_tasks`, m.longTasks.length],
              [
                `${m.id.replace('-', '_')}_live_long_task_max_ms`,
                m.longTasks.length ? Number(Math.max(...m.longTasks).toFixed(1)) : 0,
              ],
              ...m.filters.map((f) => [
                `${m.id.replace('-', '_')}_filter_${f.id}_ms`,
                f.ms === null ? null : Number(f.ms.toFixed(0)),
              ]),
            ]),
          ),
        },
      };
    } finally {
      await browser?.close().catch(() => undefined);
      await serve.stop();
    }
  },
};
