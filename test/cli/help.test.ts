/**
 * DESIGN.md "Command line": every command and subcommand answers `--help` with its usage and
 * exit 0; an unknown flag is exit 2 naming it, with the nearest known flag when one is close;
 * the top-level usage lists every flag of every command (issue 24 item 10). Driven through the
 * built CLI, as a person at a terminal meets it. The flags expected here are DESIGN.md's, written
 * out, not read from the command table the usage is made from.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editDistance, nearest } from '../../electron/cli/nearest';
import { ROOT, runBuiltCli, runInProcess } from './helpers';

/** Every command and subcommand that exists, with the flags DESIGN.md gives it. */
const COMMANDS: Array<[string[], string[]]> = [
  [
    ['serve'],
    [
      '--data-dir',
      '--host',
      '--ui-port',
      '--bank-port',
      '--sandbox-port',
      '--no-sandbox',
      '--service-jwks-url',
      '--users',
      '--open',
      '--json',
      '--public-url',
      '--tunnel',
      '--tls-cert',
      '--tls-key',
    ],
  ],
  [['sandbox'], ['--data-dir', '--host', '--port', '--json']],
  [
    ['keys', 'generate'],
    ['--alg', '--bits', '--kid', '--label', '--expires', '--json', '--data-dir'],
  ],
  [
    ['keys', 'list'],
    ['--json', '--data-dir'],
  ],
  [
    ['keys', 'export'],
    ['--format', '--data-dir'],
  ],
  [
    ['keys', 'import'],
    ['--kid', '--data-dir'],
  ],
  [
    ['keys', 'delete'],
    ['--yes', '--data-dir'],
  ],
  [
    ['keys', 'add-external'],
    ['--kid', '--public', '--sign-command', '--data-dir'],
  ],
  [
    ['jwt', 'sign'],
    ['--kid', '--obj', '--sub', '--ttl', '--data-dir'],
  ],
  [
    ['jwt', 'inspect'],
    ['--jwks-url', '--obj', '--sub', '--json', '--data-dir'],
  ],
  [['conformance'], ['--bank-auth-url', '--obj', '--sub', '--jwks-port', '--json', '--junit', '--data-dir']],
  [['events'], ['--data-dir', '--kind', '--json', '--since', '--search', '--limit', '--follow']],
  [['store', 'recover'], ['--data-dir']],
  [
    ['scenario', 'record'],
    ['--events', '--walkthrough', '--out', '--data-dir'],
  ],
  [
    ['scenario', 'run'],
    [
      '--bank-auth-url',
      '--notify-url',
      '--obj',
      '--sub',
      '--time-scale',
      '--expected-failures',
      '--json',
      '--junit',
      '--data-dir',
    ],
  ],
  [['attach'], ['--token', '--forward-to', '--route', '--ui-port', '--json']],
];

/** The commands made of subcommands, and what their own `--help` must name. */
const GROUPS: Array<[string, string[]]> = [
  ['keys', ['generate', 'list', 'export', 'import', 'delete', 'add-external']],
  ['jwt', ['sign', 'inspect']],
  ['store', ['recover']],
  ['scenario', ['record', 'run']],
];

/** Commands and flags DESIGN.md lists that later issues build: the usage must not offer them. */
const NOT_BUILT: string[] = [];

/** `flag` as a whole word of `text` (`--tls` is not found in `--tls-cert`). */
function hasFlag(text: string, flag: string): boolean {
  return new RegExp(`(^|[\\s[])${flag}(?=[\\s\\]=,]|$)`, 'm').test(text);
}

describe('--help on every command and subcommand', () => {
  it.each(COMMANDS)(
    '%j --help: exit 0, its usage and every flag on stdout, nothing on stderr',
    async (cmd, flags) => {
      // --help through the built CLI, as a terminal runs it; -h in this process (the same answer).
      const runs = [
        await runBuiltCli([...cmd, '--help'], { timeoutMs: 20_000 }),
        await runInProcess([...cmd, '-h']),
      ];
      for (const r of runs) {
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toBe('');
        expect(r.stdout).toMatch(new RegExp(`^Usage: dets-console ${cmd.join(' ')}`));
        for (const flag of flags)
          expect(hasFlag(r.stdout, flag), `${cmd.join(' ')} lists ${flag}`).toBe(true);
      }
      expect(runs[1]!.stdout).toBe(runs[0]!.stdout);
    },
  );

  it.each(GROUPS)('%s --help names each subcommand with its usage', async (group, subs) => {
    const r = await runBuiltCli([group, '--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage:/);
    for (const sub of subs) expect(r.stdout).toContain(`dets-console ${group} ${sub}`);
  });

  it('--help wins over anything else on the line, and starts nothing', async () => {
    // serve would listen and never exit; an unknown flag would be exit 2.
    const r = await runBuiltCli(['serve', '--nope', '--ui-port', '0', '--help'], { timeoutMs: 20_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: dets-console serve/);
    const sub = await runBuiltCli(['keys', 'generate', '--bits', '-1', '-h']);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toMatch(/^Usage: dets-console keys generate/);
  });

  it('`help COMMAND [SUBCOMMAND]` prints the same text as --help', async () => {
    const viaHelp = await runBuiltCli(['help', 'jwt', 'sign']);
    const viaFlag = await runBuiltCli(['jwt', 'sign', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect((await runBuiltCli(['help', 'sevre'])).stderr).toBe(
      'dets-console help: unknown command "sevre" (did you mean serve?)\n',
    );
  });
});

describe('the top-level usage', () => {
  it('lists every command with every one of its flags, and nothing that is not built', async () => {
    const r = await runBuiltCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    for (const [cmd, flags] of COMMANDS) {
      // The command's synopsis: its line and the continuation lines under it.
      const at = lines.findIndex((l) => {
        const words = l.trim().split(/\s+/);
        return (
          words[0] === 'dets-console' && words[1] === cmd[0] && (cmd[1] === undefined || words[2] === cmd[1])
        );
      });
      expect(at, cmd.join(' ')).toBeGreaterThan(-1);
      let end = at + 1;
      while (end < lines.length && /^\s{20,}\S/.test(lines[end]!)) end++;
      const synopsis = lines.slice(at, end).join('\n');
      for (const flag of flags) expect(hasFlag(synopsis, flag), `${cmd.join(' ')}: ${flag}`).toBe(true);
    }
    for (const missing of NOT_BUILT) expect(r.stdout).not.toContain(missing);
  });

  it('is the block the README shows, so the two cannot drift apart', async () => {
    const r = await runInProcess(['--help']);
    const usage = r.stdout.slice(r.stdout.indexOf('Usage:\n') + 'Usage:\n'.length).split('\n\n')[0]!;
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain(`\`\`\`\n${usage.replace(/^ {2}/gm, '')}\n\`\`\`\n`);
  });

  it('is printed on stderr with exit 2 when no command is given', async () => {
    const r = await runBuiltCli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^dets-console: developer console/);
  });
});

describe('unknown flags, subcommands and commands: exit 2, one line, the nearest known one', () => {
  const cases: Array<[string[], string]> = [
    [
      ['serve', '--bank-prot', '7301'],
      'dets-console serve: unknown option --bank-prot (did you mean --bank-port?)',
    ],
    [['serve', '--tls-crt=a.pem'], 'dets-console serve: unknown option --tls-crt (did you mean --tls-cert?)'],
    [['sandbox', '--prot', '0'], 'dets-console sandbox: unknown option --prot (did you mean --port?)'],
    [['events', '--limt', '5'], 'dets-console events: unknown option --limt (did you mean --limit?)'],
    [['events', '--serach', 'x'], 'dets-console events: unknown option --serach (did you mean --search?)'],
    [
      ['keys', 'generate', '--lable', 'x'],
      'dets-console keys: unknown option --lable (did you mean --label?)',
    ],
    [
      ['jwt', 'inspect', 'a.b.c', '--jwks', 'u'],
      'dets-console jwt: unknown option --jwks (did you mean --jwks-url?)',
    ],
    [
      ['conformance', '--bank-auth', 'u'],
      'dets-console conformance: unknown option --bank-auth (did you mean --bank-auth-url?)',
    ],
    [
      ['store', 'recover', '--data-dri', 'x'],
      'dets-console store: unknown option --data-dri (did you mean --data-dir?)',
    ],
    [['events', '--colour'], 'dets-console events: unknown option --colour'],
    [['events', '-x'], 'dets-console events: unknown option -x'],
    [['sandbox', '--sandbox-port', '0'], 'dets-console sandbox: unknown option --sandbox-port'],
    [
      ['keys', 'genrate'],
      'dets-console keys: "genrate" is not a subcommand; use: keys generate|list|export|import|delete|add-external (did you mean generate?)',
    ],
    [
      ['jwt', 'sing'],
      'dets-console jwt: "sing" is not a subcommand; use: jwt sign|inspect (did you mean sign?)',
    ],
    [
      ['sever'],
      'dets-console: unknown command "sever" (did you mean serve?); the commands: serve, sandbox, keys, jwt, conformance, events, store, scenario, team, attach',
    ],
  ];
  it.each(cases)('%j', async (args, line) => {
    const r = await runBuiltCli(args, { timeoutMs: 20_000 });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${line}\n`);
  });

  it('a flag missing its value says so, and a flag given where a value belongs is named', async () => {
    expect((await runBuiltCli(['events', '--search'])).stderr).toBe(
      'dets-console events: --search: expects a value\n',
    );
    expect((await runBuiltCli(['events', '--kind', '--json'])).stderr).toBe(
      'dets-console events: --kind: expects a value, not the flag --json (write --kind=--json if that is the value)\n',
    );
    expect((await runBuiltCli(['events', '--follow=yes'])).stderr).toBe(
      'dets-console events: --follow: takes no value\n',
    );
  });
});

describe('nearest: the one helper behind every suggestion', () => {
  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('bank-prot', 'bank-port')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests only what is close, never one of two equally close', () => {
    expect(nearest('bank-prot', ['ui-port', 'bank-port', 'sandbox-port'])).toBe('bank-port');
    expect(nearest('jwks', ['jwks-url', 'json'])).toBe('jwks-url');
    expect(nearest('colour', ['kind', 'json', 'limit'])).toBeUndefined();
    expect(nearest('ab', ['ax', 'ay'])).toBeUndefined();
    expect(nearest('kid', ['kind', 'json'])).toBe('kind');
  });
});
