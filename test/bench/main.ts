/**
 * `npm run bench`: runs the bench suites, prints their figures, ratios and PASS/MISSED verdicts,
 * and writes everything to .bench/results.json. scripts/bench.mjs bundles this file (and the
 * server entries under servers/) into dist/bench and calls `main`.
 *
 * Exit code: 0 when the bench ran, even if a target was missed (the report says MISSED);
 * 1 when the bench itself broke (a server failed, a non-2xx or bad response, a spot check failed);
 * 2 for a bad BENCH_* setting; 130/143 on SIGINT/SIGTERM. Every child is killed on the way out.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { installCleanup, killAllSync, liveChildren } from './lib/children';
import { ConfigError, readConfig, type BenchConfig } from './lib/config';
import { formatProfile } from './lib/profile';
import { formatFigure, formatRuns, formatVerdict } from './lib/report';
import { BenchBroken } from './lib/errors';
import type { Suite, SuiteContext, SuiteResult } from './lib/suite';
import { bankSuite } from './suites/bank';
import { deliverySuite } from './suites/delivery';
import { notifySuite } from './suites/notify';
import { sandboxSuite } from './suites/sandbox';
import { storeSuite } from './suites/store';
import { uiSuite } from './suites/ui';
import { teamSuite } from './suites/team';

/** Every suite, in run order. */
export const SUITES: readonly Suite[] = [
  sandboxSuite,
  bankSuite,
  notifySuite,
  uiSuite,
  storeSuite,
  teamSuite,
  deliverySuite,
];

export interface MainOptions {
  root: string;
  buildDir: string;
  env?: NodeJS.ProcessEnv;
  out?: (line: string) => void;
}

interface SuiteOutcome {
  id: string;
  title: string;
  broken: string | null;
  result: SuiteResult | null;
}

export async function main(opts: MainOptions): Promise<number> {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const env = opts.env ?? process.env;
  let config: BenchConfig;
  try {
    config = readConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`bench: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const tmpDirs: string[] = [];
  installCleanup((signal) => {
    out(`\nbench: ${signal}, stopping the servers`);
    for (const d of tmpDirs) void rm(d, { recursive: true, force: true, maxRetries: 5 });
  });

  const workDir = join(opts.root, '.bench');
  const profileDir = join(workDir, 'profiles');
  const profileFile = (id: string) =>
    config.profile.includes(id) ? join(profileDir, `${id}.cpuprofile`) : null;
  if (config.profile.length) {
    await mkdir(profileDir, { recursive: true });
    for (const id of config.profile) await rm(join(profileDir, `${id}.cpuprofile`), { force: true });
  }
  const ctx: SuiteContext = {
    config,
    root: opts.root,
    buildDir: opts.buildDir,
    workDir,
    async tmpDir(prefix) {
      const d = await mkdtemp(join(tmpdir(), prefix));
      tmpDirs.push(d);
      return d;
    },
    wants: (id) => config.targets === null || config.targets.includes(id),
    nodeFlags: (id) =>
      profileFile(id)
        ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${id}.cpuprofile`]
        : [],
    profileFile,
    log: out,
  };

  const suites = SUITES.filter((s) => config.suites === null || config.suites.includes(s.id));
  const unknown = (config.suites ?? []).filter((id) => !SUITES.some((s) => s.id === id));
  if (unknown.length || suites.length === 0) {
    process.stderr.write(
      `bench: BENCH_SUITES names no known suite (${unknown.join(', ') || 'none'}); known: ${SUITES.map((s) => s.id).join(', ')}\n`,
    );
    return 2;
  }

  const started = new Date();
  const loadBefore = loadavg().map((l) => Number(l.toFixed(2)));
  out(
    `DETS Console bench · node ${process.version} · ${cpus().length} CPU (${cpus()[0]?.model.trim() ?? 'unknown'}) · BENCH_SCALE=${config.scale} · load average ${loadBefore.join(' ')}`,
  );
  const outcomes: SuiteOutcome[] = [];
  for (const suite of suites) {
    out(`\n== ${suite.title}`);
    try {
      outcomes.push({ id: suite.id, title: suite.title, broken: null, result: await suite.run(ctx) });
    } catch (err) {
      const why = err instanceof BenchBroken ? err.message : `${(err as Error)?.stack ?? String(err)}`;
      outcomes.push({ id: suite.id, title: suite.title, broken: why, result: null });
    } finally {
      killAllSync(); // anything a suite left behind (a failed start, an abort)
    }
  }
  for (const d of tmpDirs) await rm(d, { recursive: true, force: true, maxRetries: 5 });
  // Other work on the machine shows here; a high figure explains noisy rounds.
  const loadAfter = loadavg().map((l) => Number(l.toFixed(2)));

  // The report.
  for (const o of outcomes) {
    out(`\n== Results: ${o.title}`);
    if (o.broken !== null) {
      out(`BROKEN: ${o.broken}`);
      continue;
    }
    const r = o.result!;
    if (r.targets.length) {
      out(formatRuns(r.targets));
      out('');
    }
    for (const [name, v] of Object.entries(r.figures ?? {}))
      out(`${name.replaceAll('_', ' ')}: ${typeof v === 'number' ? formatFigure(v) : String(v)}`);
    if (r.figures && Object.keys(r.figures).length) out('');
    for (const [name, v] of Object.entries(r.ratios))
      out(`${name.replaceAll('_', ' ')}: ${v === null ? 'n/a' : `${v.toFixed(3)}×`}`);
    out('');
    for (const v of r.verdicts) out(formatVerdict(v));
    for (const n of r.notes) out(`note: ${n}`);
    for (const p of r.profiles) out(`\nprofile\n${formatProfile(p)}`);
  }
  const broken = outcomes.some((o) => o.broken !== null);
  const missed = outcomes.flatMap((o) => o.result?.verdicts ?? []).filter((v) => !v.pass);

  const resultsFile = isAbsolute(config.resultsFile)
    ? config.resultsFile
    : join(opts.root, config.resultsFile);
  await mkdir(dirname(resultsFile), { recursive: true });
  await writeFile(
    resultsFile,
    `${JSON.stringify(
      {
        schema: 1,
        started_at: started.toISOString(),
        finished_at: new Date().toISOString(),
        node: process.version,
        cpus: cpus().length,
        cpu_model: cpus()[0]?.model.trim() ?? null,
        load_average: { before: loadBefore, after: loadAfter },
        config,
        ok: !broken,
        targets_met: !broken && missed.length === 0,
        suites: outcomes,
      },
      null,
      2,
    )}\n`,
  );
  out(`\nload average before → after: ${loadBefore.join(' ')} → ${loadAfter.join(' ')} (1, 5, 15 min)`);
  out(`results: ${resultsFile}`);
  if (broken) out('BENCH BROKEN: the figures above are not valid (see BROKEN).');
  else if (missed.length) out(`TARGETS MISSED: ${missed.map((v) => v.title).join('; ')}`);
  else out('ALL TARGETS PASS');
  if (liveChildren() > 0) killAllSync();
  return broken ? 1 : 0;
}
