/**
 * `dets-console keys …` through runCli with a captured CliIo, against the real vault: npm test
 * runs vitest inside scripts/with-keyring.sh (a private D-Bus session with gnome-keyring), so
 * the keychain vault is the real Secret Service; the passphrase vault is real scrypt. Keychain
 * items made here are deleted afterwards.
 */
import { type KeyObject } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptHidden, PromptCancelled, type CliIo } from '../../electron/cli/io';
import { createConsoleCore } from '../../electron/core/console-core';
import { privateMaterialIn } from '../core/keys/helpers';
import { runCaptured, tempDataDirs, type Run } from './support/cli-run';
import { rsaKeyPair } from '../support/rsa-pair';

const SPEC_MEMBERS = ['alg', 'e', 'kid', 'kty', 'n', 'use'];
const temp = tempDataDirs('dets-cli-keys-');
const newDir = (prefix?: string) => temp.newDir(prefix);
afterAll(() => temp.cleanup());

function cli(argv: string[], dataDir: string, extra: Partial<CliIo> = {}): Promise<Run> {
  return runCaptured(argv, dataDir, {
    readStdin: async () => {
      throw new Error('this test gives no stdin');
    },
    promptSecret: async () => {
      throw new Error('this test expects no prompt');
    },
    ...extra,
  });
}

/** The one line of stderr a usage error prints. */
function usageLine(r: Run): string {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  return r.stderr.trim();
}

describe('dets-console keys (keychain vault)', () => {
  let dataDir: string;
  /** The private key imported below, to look for in the data folder afterwards. */
  let imported: KeyObject | undefined;
  beforeAll(() => {
    dataDir = newDir();
  });

  it('generate --json prints {"kid","alg","jwk"} with the spec public JWK, and nothing else', async () => {
    const r = await cli(['keys', 'generate', '--json'], dataDir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const out = JSON.parse(r.stdout) as { kid: string; alg: string; jwk: Record<string, string> };
    expect(Object.keys(out)).toEqual(['kid', 'alg', 'jwk']);
    expect(out.alg).toBe('RS256');
    expect(Object.keys(out.jwk)).toEqual(SPEC_MEMBERS);
    expect(out.jwk).toMatchObject({ alg: 'RS256', kid: out.kid, kty: 'RSA', use: 'sig', e: 'AQAB' });
    expect(Buffer.from(out.jwk.n as string, 'base64url').length * 8).toBe(2048);
  });

  it('generate in text mode shows kid, status, expiry, fingerprint and the public JWK', async () => {
    const r = await cli(
      [
        'keys',
        'generate',
        '--alg',
        'PS256',
        '--bits',
        '3072',
        '--kid',
        'cli-text',
        '--label',
        'staging',
        '--expires',
        '2099-12-31',
      ],
      dataDir,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Generated a PS256 signing key \(RSA, 3072 bits\)/);
    expect(r.stdout).toContain('  kid          cli-text\n');
    expect(r.stdout).toContain('  status       next\n');
    expect(r.stdout).toContain('  label        staging\n');
    expect(r.stdout).toMatch(/ {2}expires {6}2099-12-31 \(in \d+ days\)\n/);
    const jwk = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as Record<string, string>;
    expect(Object.keys(jwk)).toEqual(SPEC_MEMBERS);
    expect(r.stdout).toContain(`  fingerprint  ${await calculateJwkThumbprint(jwk as never, 'sha256')} `);
  });

  it('list --json prints [{"kid","alg","status","expires","environment"}]; text mode prints a table', async () => {
    const r = await cli(['keys', 'list', '--json'], dataDir);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(list).toHaveLength(2);
    for (const entry of list) {
      expect(Object.keys(entry)).toEqual(['kid', 'alg', 'status', 'expires', 'environment']);
    }
    // No environment uses these keys yet: their profile-wide status, environment null (issue 26).
    expect(list[0]).toMatchObject({ alg: 'RS256', status: 'active', expires: null, environment: null });
    expect(list[1]).toEqual({
      kid: 'cli-text',
      alg: 'PS256',
      status: 'next',
      expires: '2099-12-31',
      environment: null,
    });

    const text = await cli(['keys', 'list'], dataDir);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^KID\s+ALG\s+BITS\s+STATUS\s+EXPIRES\s+FINGERPRINT\s+LABEL$/);
    expect(lines[2]).toMatch(
      /^cli-text\s+PS256\s+3072\s+next\s+2099-12-31 \(in \d+ days\)\s+\S{43}\s+staging$/,
    );
  });

  it('export prints the public part only: the spec JWK (default), a JWKS, or SPKI PEM', async () => {
    const jwk = await cli(['keys', 'export', 'cli-text'], dataDir);
    expect(jwk.code).toBe(0);
    const parsed = JSON.parse(jwk.stdout) as Record<string, string>;
    expect(Object.keys(parsed)).toEqual(SPEC_MEMBERS);
    expect(parsed).toMatchObject({ kid: 'cli-text', alg: 'PS256' });

    const jwks = await cli(['keys', 'export', 'cli-text', '--format', 'jwks'], dataDir);
    expect(JSON.parse(jwks.stdout)).toEqual({ keys: [parsed] });

    const pem = await cli(['keys', 'export', 'cli-text', '--format', 'pem'], dataDir);
    expect(pem.stdout).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+-----END PUBLIC KEY-----\n$/);
    for (const r of [jwk, jwks, pem]) expect(r.stdout).not.toMatch(/PRIVATE|"d"/);
  });

  it('import FILE takes PEM (PKCS#1 here) or a private JWK on stdin; export gives back the original public part', async () => {
    const outside = newDir('dets-cli-keyfiles-');
    const { privateKey, publicKey } = rsaKeyPair({ modulusLength: 2048 });
    imported = privateKey;
    const { n, e } = publicKey.export({ format: 'jwk' });
    writeFileSync(join(outside, 'pkcs1.pem'), privateKey.export({ type: 'pkcs1', format: 'pem' }) as string);
    const r = await cli(['keys', 'import', join(outside, 'pkcs1.pem'), '--kid', 'imported-1'], dataDir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Imported an RS256 signing key \(RSA, 2048 bits\)/);
    const exported = JSON.parse((await cli(['keys', 'export', 'imported-1'], dataDir)).stdout) as Record<
      string,
      string
    >;
    expect(exported).toEqual({ alg: 'RS256', e, kid: 'imported-1', kty: 'RSA', n, use: 'sig' });

    // The same key again, as PKCS#8 and as a JWK: refused as already stored, naming the kid.
    writeFileSync(join(outside, 'pkcs8.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    const again = await cli(['keys', 'import', join(outside, 'pkcs8.pem')], dataDir);
    expect(usageLine(again)).toMatch(
      /^dets-console keys: FILE: this key is already stored, with kid "imported-1"/,
    );

    const other = rsaKeyPair({ modulusLength: 2048 }).privateKey;
    const fromStdin = await cli(['keys', 'import', '-', '--kid', 'from-stdin'], dataDir, {
      readStdin: async () => JSON.stringify(other.export({ format: 'jwk' })),
    });
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout).toContain('  kid          from-stdin\n');
  });

  it('import refuses what is not a private key with exit 2, naming FILE and what was found', async () => {
    const outside = newDir('dets-cli-keyfiles-');
    const { publicKey } = rsaKeyPair({ modulusLength: 2048 });
    writeFileSync(join(outside, 'public.pem'), publicKey.export({ type: 'spki', format: 'pem' }) as string);
    expect(usageLine(await cli(['keys', 'import', join(outside, 'public.pem')], dataDir))).toMatch(
      /^dets-console keys: FILE: this is a public key \(PEM "PUBLIC KEY"\)/,
    );
    expect(usageLine(await cli(['keys', 'import', join(outside, 'missing.pem')], dataDir))).toMatch(
      /FILE: cannot read ".*missing.pem": no such file$/,
    );
    expect(usageLine(await cli(['keys', 'import'], dataDir))).toMatch(/import: missing FILE/);
  });

  it('refuses bad flags with exit 2 and a one-line reason naming the flag', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['keys', 'generate', '--bits', '1024'],
        /--bits: 1024 bits is too short: an RSA key needs a modulus of at least 2048 bits and an odd public exponent between 2\^16 and 2\^256 \(FIPS 186-5\); choose 2048, 3072 or 4096$/,
      ],
      [['keys', 'generate', '--bits', '5000'], /--bits: must be 2048, 3072 or 4096$/],
      [['keys', 'generate', '--bits', 'lots'], /--bits: must be 2048, 3072 or 4096$/],
      [['keys', 'generate', '--alg', 'HS256'], /--alg: must be one of RS256, RS384, RS512, PS256$/],
      [['keys', 'generate', '--expires', '31.12.2099'], /--expires: must be a date YYYY-MM-DD$/],
      [['keys', 'generate', '--expires', '2099-02-30'], /--expires: must be a date YYYY-MM-DD that exists$/],
      [['keys', 'generate', '--expires', '2001-01-01'], /--expires: 2001-01-01 is in the past/],
      [['keys', 'generate', '--kid', 'has space'], /--kid: kid must be printable ASCII without spaces$/],
      [['keys', 'generate', '--kid', 'cli-text'], /--kid: a key with kid "cli-text" already exists/],
      [['keys', 'generate', '--nope'], /: unknown option --nope$/],
      [['keys', 'generate', '--lable', 'x'], /: unknown option --lable \(did you mean --label\?\)$/],
      [['keys', 'generate', '--bits', '-1'], /--bits: must be 2048, 3072 or 4096$/],
      [['keys', 'export', 'cli-text', '--format', 'der'], /--format: must be jwk, jwks or pem$/],
      [['keys', 'export', 'no-such-kid'], /KID: no signing key with kid "no-such-kid"/],
      [['keys', 'export'], /export: missing KID/],
      [
        ['keys', 'frobnicate'],
        /"frobnicate" is not a subcommand; use: keys generate\|list\|export\|import\|delete\|add-external$/,
      ],
      [['keys', 'lst'], /"lst" is not a subcommand; use: keys .* \(did you mean list\?\)$/],
      [['keys'], /a subcommand is needed; use: keys generate\|list/],
    ];
    for (const [argv, message] of cases)
      expect(usageLine(await cli(argv, dataDir)), argv.join(' ')).toMatch(message);
  });

  it('delete needs --yes (exit 2 naming it) and then removes the key', async () => {
    const refused = await cli(['keys', 'delete', 'cli-text'], dataDir);
    expect(usageLine(refused)).toBe(
      'dets-console keys: --yes: required to delete key "cli-text" (its private part cannot be recovered)',
    );
    expect((await cli(['keys', 'list', '--json'], dataDir)).stdout).toContain('"cli-text"');

    const deleted = await cli(['keys', 'delete', 'cli-text', '--yes'], dataDir);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toBe('Deleted key cli-text.\n');
    expect((await cli(['keys', 'list', '--json'], dataDir)).stdout).not.toContain('"cli-text"');
    expect(usageLine(await cli(['keys', 'delete', 'cli-text', '--yes'], dataDir))).toMatch(
      /KID: no signing key/,
    );
  });

  it('leaves no private key material anywhere under the data folder', async () => {
    const sign = await cli(
      ['jwt', 'sign', '--kid', 'imported-1', '--obj', 'DE89370400440532013000', '--sub', 's'],
      dataDir,
    );
    expect(sign.code).toBe(0);
    const key = imported as KeyObject;
    const der = key.export({ type: 'pkcs8', format: 'der' });
    const jwk = key.export({ format: 'jwk' });
    // The DER's last 300 bytes hold the private exponent and primes; its first half holds the
    // public modulus, which keys.json rightly contains as the JWK's n.
    const tail = (buf: Buffer) => buf.subarray(buf.length - 300);
    const pkcs1 = key.export({ type: 'pkcs1', format: 'der' });
    const secrets = [
      tail(der).toString('base64').slice(0, 60),
      tail(pkcs1).toString('base64').slice(0, 60),
      tail(der).toString('base64url').slice(0, 60),
      tail(der).subarray(0, 60).toString('latin1'),
      String(jwk.d).slice(0, 40),
      String(jwk.p).slice(0, 40),
    ];
    expect(privateMaterialIn(dataDir, secrets)).toEqual([]);
  });

  it('explains a damaged keys.json (STATE_DAMAGED, exit 1) and leaves it as it was', async () => {
    const dir = newDir();
    await cli(['keys', 'generate', '--json'], dir);
    const file = join(dir, 'keys', 'keys.json');
    writeFileSync(file, '{"version": 1, "keys": [');
    const r = await cli(['keys', 'list'], dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `STATE_DAMAGED: the key file ${file} is not valid JSON. It was left untouched`,
    );
    expect(readFileSync(file, 'utf8')).toBe('{"version": 1, "keys": [');
  });
});

describe('dets-console keys (passphrase vault)', () => {
  const passphrase = 'correct horse battery staple';
  let dataDir: string;

  beforeAll(async () => {
    dataDir = newDir();
    const core = await createConsoleCore({ dataDir, host: 'cli', env: {} });
    const made = await core.dispatch('vault.createPassphrase', { passphrase });
    expect(made.ok).toBe(true);
    await core.close();
  });

  it("without DETS_VAULT_PASSPHRASE and without a terminal: exit 1 with the vault's words and what to do", async () => {
    const r = await cli(['keys', 'generate'], dataDir);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^dets-console keys: VAULT_LOCKED: The vault is locked/);
    expect(r.stderr).toContain('set DETS_VAULT_PASSPHRASE, or run the command on a terminal to be asked');
  });

  it('opens with DETS_VAULT_PASSPHRASE', async () => {
    const r = await cli(['keys', 'generate', '--kid', 'env-opened', '--json'], dataDir, {
      env: { DETS_DATA_DIR: dataDir, DETS_VAULT_PASSPHRASE: passphrase },
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kid: 'env-opened' });
  });

  it('reports a wrong DETS_VAULT_PASSPHRASE with exit 1', async () => {
    const r = await cli(['keys', 'generate'], dataDir, {
      env: { DETS_DATA_DIR: dataDir, DETS_VAULT_PASSPHRASE: 'not the passphrase at all' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/VAULT_PASSPHRASE_WRONG: DETS_VAULT_PASSPHRASE does not open this vault/);
    expect(r.stderr).not.toContain('not the passphrase at all');
  });

  it('on a terminal, asks for the passphrase (again when wrong) and never prints it', async () => {
    const answers = ['wrong guess number one', passphrase];
    const prompts: string[] = [];
    const r = await cli(
      ['jwt', 'sign', '--kid', 'env-opened', '--obj', '+4915112345678', '--sub', 'ops'],
      dataDir,
      {
        stdinIsTTY: true,
        promptSecret: async (prompt) => {
          prompts.push(prompt);
          return answers.shift() as string;
        },
      },
    );
    expect(r.code).toBe(0);
    expect(prompts).toEqual(['Vault passphrase: ', 'Vault passphrase: ']);
    expect(r.stderr).toBe('That passphrase does not open the vault; try again.\n');
    expect(r.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(r.stdout + r.stderr).not.toContain(passphrase);
  });

  it('gives up after three wrong passphrases (exit 1)', async () => {
    const r = await cli(['keys', 'generate'], dataDir, {
      stdinIsTTY: true,
      promptSecret: async () => 'wrong every single time',
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/VAULT_PASSPHRASE_WRONG/);
    expect(r.stderr.match(/try again/g)).toHaveLength(2);
  });

  it('does not prompt for commands that need no private key', async () => {
    const r = await cli(['keys', 'list', '--json'], dataDir, { stdinIsTTY: true });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      { kid: 'env-opened', alg: 'RS256', status: 'active', expires: null, environment: null },
    ]);
  });
});

describe('promptHidden (the no-echo passphrase prompt)', () => {
  /** A terminal stand-in: records raw mode and what is written; `type` sends keystrokes. */
  function fakeTerminal() {
    const input = Object.assign(new EventEmitter(), {
      isRaw: false,
      rawModes: [] as boolean[],
      setRawMode(mode: boolean) {
        input.isRaw = mode;
        input.rawModes.push(mode);
        return input;
      },
      setEncoding: () => input,
      resume: () => input,
      pause: () => input,
    });
    let written = '';
    const output = { write: (t: string) => ((written += t), true) };
    return {
      input: input as unknown as NodeJS.ReadStream,
      output: output as unknown as NodeJS.WritableStream,
      type: (keys: string) => input.emit('data', keys),
      written: () => written,
      rawModes: input.rawModes,
    };
  }

  it('reads until Enter with raw mode on (no echo), handles backspace, and restores the terminal', async () => {
    const t = fakeTerminal();
    const answer = promptHidden('Vault passphrase: ', t.input, t.output);
    t.type('secret');
    t.type('x\u007f pass\r');
    await expect(answer).resolves.toBe('secret pass');
    expect(t.written()).toBe('Vault passphrase: \n');
    expect(t.rawModes).toEqual([true, false]);
  });

  it('rejects on Ctrl-C', async () => {
    const t = fakeTerminal();
    const answer = promptHidden('Vault passphrase: ', t.input, t.output);
    t.type('abc\u0003');
    await expect(answer).rejects.toBeInstanceOf(PromptCancelled);
    expect(t.rawModes).toEqual([true, false]);
  });
});
