/**
 * Crash tests' child processes: a TypeScript fixture bundled with esbuild (tsx is not installed),
 * run with node, and SIGKILLed by its PID at the moment the test chooses.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { workersBeside } from './worker-files';

const nodeModules = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'node_modules');

/**
 * Bundles `entry` (and the sources it imports) into `outfile`; libsql stays external (native).
 * The built worker files go beside it, where the bundle looks for them.
 */
export async function bundleChild(entry: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    // pg is bundled (pure JavaScript); its optional native binding is never loaded.
    external: ['libsql', 'pg-native'],
    // pg is CommonJS: its require() of Node's built-ins needs a real require in an ESM bundle.
    banner: {
      js: "import { createRequire as __dets_cr } from 'node:module'; const require = __dets_cr(import.meta.url);",
    },
  });
  await workersBeside(path.dirname(outfile));
  return outfile;
}

/**
 * Runs `node child ...args`, hands each stdout line to `onLine`, and SIGKILLs the child (by its
 * PID) as soon as `onLine` answers true. Rejects when the child exits by itself.
 */
export function runUntilKilled(
  child: string,
  args: string[],
  onLine: (line: string) => boolean,
): Promise<void> {
  return new Promise((resolve, reject) => {
    // The bundle lives in a temp dir: libsql (external, native) resolves through NODE_PATH.
    const env = { ...process.env, NODE_PATH: nodeModules };
    const proc = spawn(process.execPath, [child, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let buffer = '';
    let stderr = '';
    let killed = false;
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (!killed && onLine(line)) {
          killed = true;
          process.kill(proc.pid!, 'SIGKILL');
        }
      }
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited ${code}: ${stderr}`));
      else resolve();
    });
  });
}
