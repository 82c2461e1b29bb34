/** Reads the .cpuprofile files of the profiled targets of a suite (after their children exited). */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { summarizeProfileFile, type ProfileSummary } from './profile';
import type { SuiteContext } from './suite';

/**
 * Summaries of every target in `ids` that BENCH_PROFILE named and that wrote its profile. A
 * target's code is read from dist/bench/servers/<bundleOf(id)>.mjs, then from `moreBundles`
 * (e.g. the built CLI), where they exist.
 */
export function profilesOf(
  ctx: SuiteContext,
  ids: readonly string[],
  bundleOf?: (id: string) => string,
  moreBundles: readonly string[] = [],
): ProfileSummary[] {
  const out: ProfileSummary[] = [];
  for (const id of ids) {
    const file = ctx.profileFile(id);
    if (!file) continue;
    if (!existsSync(file)) {
      ctx.log(`  (no profile written for ${id} at ${file})`);
      continue;
    }
    const bundles = new Map<string, string>();
    for (const bundle of [join(ctx.buildDir, 'servers', `${bundleOf?.(id) ?? id}.mjs`), ...moreBundles]) {
      if (existsSync(bundle)) bundles.set(pathToFileURL(bundle).href, readFileSync(bundle, 'utf8'));
    }
    out.push(summarizeProfileFile(file, bundles));
  }
  return out;
}
