/**
 * Bad input on the command line is exit 2 with one line naming what is wrong (DESIGN.md
 * "Command line"; issue 24 item 10): a `--data-dir` (or DETS_DATA_DIR) that is not a usable
 * folder, and numbers outside a flag's range, negative ones included (Node's parseArgs called
 * `--limit -5` "ambiguous"). Through the built CLI, as scripts run it; nothing stored is touched.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBuiltCli, type CliResult } from './helpers';

const tmp = mkdtempSync(join(tmpdir(), 'dets-cli-bad-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true, maxRetries: 5 }));

/** A regular file where a profile folder is expected, with content that must survive. */
const FILE = join(tmp, 'not-a-folder');
const CONTENT = 'precious bytes\n';
writeFileSync(FILE, CONTENT);

/** Each command, with the arguments that would make it run, and whether it writes the profile. */
const COMMANDS: Array<{ args: string[]; writes: boolean }> = [
  { args: ['serve', '--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox'], writes: true },
  { args: ['sandbox', '--json', '--port', '0'], writes: true },
  { args: ['keys', 'generate', '--kid', 'k1'], writes: true },
  { args: ['keys', 'import', FILE], writes: true },
  { args: ['keys', 'delete', 'k1', '--yes'], writes: true },
  { args: ['jwt', 'sign', '--kid', 'k1', '--obj', 'o', '--sub', 's'], writes: true },
  { args: ['store', 'recover'], writes: true },
  { args: ['events'], writes: false },
  { args: ['events', '--json', '--follow'], writes: false },
  { args: ['keys', 'list'], writes: false },
  { args: ['keys', 'export', 'k1'], writes: false },
  { args: ['jwt', 'inspect', 'a.b.c'], writes: false },
  {
    args: ['conformance', '--bank-auth-url', 'http://127.0.0.1:9', '--obj', 'o', '--sub', 's'],
    writes: false,
  },
];

/** The one stderr line of a run that must have been refused as bad usage. */
function refusal(r: CliResult, command: string): string {
  expect(r.code, `${command}: ${r.stderr}`).toBe(2);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

/** Runs the command with `dir` as its profile; a command that is not refused is killed (code null). */
function run(args: string[], dir: string, viaEnv = false): Promise<CliResult> {
  return viaEnv
    ? runBuiltCli(args, { env: { DETS_DATA_DIR: dir }, timeoutMs: 20_000 })
    : runBuiltCli([...args, '--data-dir', dir], { timeoutMs: 20_000 });
}

describe('a --data-dir that is not a usable folder: exit 2 naming --data-dir and the path', () => {
  it.each(COMMANDS.map((c) => [c.args.slice(0, 3).join(' '), c.args]))(
    '%s: a regular file, and a path under one',
    async (_, args) => {
      const name = `dets-console ${args[0]}`;
      expect(refusal(await run(args, FILE), name)).toBe(
        `${name}: --data-dir: ${JSON.stringify(FILE)} is a file, not a folder`,
      );
      const under = join(FILE, 'profile', 'deeper');
      expect(refusal(await run(args, under), name)).toBe(
        `${name}: --data-dir: ${JSON.stringify(under)} cannot be a folder: ${JSON.stringify(FILE)} is a file`,
      );
      expect(readFileSync(FILE, 'utf8')).toBe(CONTENT);
    },
  );

  it.each([
    ['/proc/version', 'is a file, not a folder'],
    ['/dev/null', 'is a device, not a folder'],
  ])('%s is refused by reading and writing commands alike', async (dir, why) => {
    for (const args of [
      ['events'],
      ['keys', 'list'],
      ['serve', '--json', '--ui-port', '0', '--no-sandbox'],
    ]) {
      const line = refusal(await run(args, dir), args[0]!);
      expect(line).toBe(`dets-console ${args[0]}: --data-dir: "${dir}" ${why}`);
    }
  });

  it('a folder nothing can be written in is refused by the commands that write, read by the others', async () => {
    // /proc/self: even root cannot create a file there (permissions would not stop root).
    for (const { args } of COMMANDS.filter((c) => c.writes)) {
      expect(refusal(await run(args, '/proc/self'), args[0]!)).toMatch(
        new RegExp(
          `^dets-console ${args[0]}: --data-dir: cannot write in the folder "/proc/self" \\(E[A-Z]+\\)$`,
        ),
      );
    }
    // A reader finds no profile there, and says nothing about the folder.
    for (const args of [['events'], ['keys', 'list'], ['jwt', 'inspect', 'a.b.c']]) {
      const r = await run(args, '/proc/self');
      expect(r.stderr, args.join(' ')).not.toContain('--data-dir');
      expect(r.code, args.join(' ')).toBe(args[0] === 'jwt' ? 1 : 0);
    }
    for (const args of [
      ['serve', '--json', '--ui-port', '0'],
      ['store', 'recover'],
    ]) {
      expect(refusal(await run(args, '/proc/no-such/profile'), args[0]!)).toMatch(
        /--data-dir: cannot create "\/proc\/no-such\/profile": nothing can be written in "\/proc" \(E[A-Z]+\)$/,
      );
    }
  });

  it('names DETS_DATA_DIR when the path came from it', async () => {
    for (const args of [['events'], ['keys', 'generate'], ['sandbox', '--json', '--port', '0']]) {
      expect(refusal(await run(args, FILE, true), args[0]!)).toBe(
        `dets-console ${args[0]}: DETS_DATA_DIR: ${JSON.stringify(FILE)} is a file, not a folder`,
      );
    }
  });

  it('a folder that does not exist yet is an empty profile to a reader, and is not created', async () => {
    const fresh = join(tmp, 'fresh', 'profile');
    const r = await run(['events'], fresh);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('No events stored.\n');
    expect(existsSync(join(tmp, 'fresh'))).toBe(false);
  });

  it('the write check leaves nothing behind in the profile folder', async () => {
    const dir = mkdtempSync(join(tmp, 'profile-'));
    const r = await run(['store', 'recover'], dir);
    expect(r.stderr).toMatch(/no database at/);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('numeric flags name their range, negative numbers included', () => {
  const cases: Array<[string[], string]> = [
    [['events', '--limit', '-5'], 'events: --limit: must be a whole number from 1 to 1000000, not "-5"'],
    [['events', '--limit', '0'], 'events: --limit: must be a whole number from 1 to 1000000, not "0"'],
    [
      ['events', '--limit', '1000001'],
      'events: --limit: must be a whole number from 1 to 1000000, not "1000001"',
    ],
    [['events', '--limit', '2.5'], 'events: --limit: must be a whole number from 1 to 1000000, not "2.5"'],
    [['events', '--limit=-1'], 'events: --limit: must be a whole number from 1 to 1000000, not "-1"'],
    [
      ['serve', '--bank-port', '-1'],
      'serve: --bank-port: must be a whole number from 0 to 65535 (0 picks a free port), not "-1"',
    ],
    [
      ['serve', '--ui-port', '65536'],
      'serve: --ui-port: must be a whole number from 0 to 65535 (0 picks a free port), not "65536"',
    ],
    [
      ['serve', '--sandbox-port', '-7302'],
      'serve: --sandbox-port: must be a whole number from 0 to 65535 (0 picks a free port), not "-7302"',
    ],
    [
      ['sandbox', '--port', '-1'],
      'sandbox: --port: must be a whole number from 0 to 65535 (0 picks a free port), not "-1"',
    ],
    [
      [
        'conformance',
        '--bank-auth-url',
        'http://127.0.0.1:9',
        '--obj',
        'o',
        '--sub',
        's',
        '--jwks-port',
        '-1',
      ],
      'conformance: --jwks-port: must be a whole number from 0 to 65535 (0 picks a free port), not "-1"',
    ],
    [
      ['jwt', 'sign', '--kid', 'k', '--obj', 'o', '--sub', 's', '--ttl', '-1'],
      'jwt: --ttl: must be a whole number of seconds from 1 to 86400, not "-1"',
    ],
    [['keys', 'generate', '--bits', '-1'], 'keys: --bits: must be 2048, 3072 or 4096'],
  ];
  it.each(cases)('%j', async (args, line) => {
    const dir = mkdtempSync(join(tmp, 'numbers-'));
    const r = await runBuiltCli([...args, '--data-dir', dir], { timeoutMs: 20_000 });
    expect(refusal(r, args[0]!)).toBe(`dets-console ${line}`);
    expect(readdirSync(dir), 'nothing written').toEqual([]);
  });
});
