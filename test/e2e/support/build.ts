import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '../../..');
export const CLI = join(ROOT, 'dist/cli/dets-console.js');

/**
 * `node scripts/build.mjs`: the CLI and the renderer exactly as they ship. Vitest sets
 * NODE_ENV=test, which Vite would honour with a development bundle (React's dev build, other
 * warnings, other timing), so the build runs without it, as it does from a shell.
 */
export async function buildAll(): Promise<void> {
  const env = { ...process.env };
  delete env.NODE_ENV;
  const child = spawn(process.execPath, [join(ROOT, 'scripts/build.mjs')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`build failed (exit ${code}):\n${output}`);
}
