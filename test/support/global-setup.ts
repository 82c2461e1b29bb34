/**
 * Builds dist/ once before any test file runs (CLI, Electron main/preload, renderer), so test
 * files that spawn the built CLI or serve the built renderer never rebuild it under each
 * other's feet. `npm test` has just built it and says so with DETS_TEST_BUILT=1.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  if (process.env.DETS_TEST_BUILT === '1') return;
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const env = { ...process.env };
  delete env.NODE_ENV; // vitest's NODE_ENV=test would make Vite emit React's development build
  const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
}
