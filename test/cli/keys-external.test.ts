/**
 * `dets-console keys add-external --kid KID --public FILE(.pem|.json) --sign-command CMD`
 * (DESIGN.md "Command line", "Keys held elsewhere"), through the built CLI as a script runs it,
 * with a real SoftHSM 2 token and OpenSC's pkcs11-tool (the PIN only in an environment
 * variable): the key is added from a PEM and from a JWK file, `jwt sign` prints a token
 * node:crypto verifies against the token's public key, `keys list` and `keys export` show it,
 * and bad input exits 2 naming the flag while nothing is stored.
 */
import { createPublicKey, createVerify } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { softHsmToken, type SoftHsmToken } from '../support/softhsm';
import { runBuiltCli } from './helpers';
import { tempDataDirs } from './support/cli-run';

const temp = tempDataDirs('dets-cli-external-');
let hsm: SoftHsmToken;
let pem: string;
beforeAll(async () => {
  hsm = await softHsmToken('dets-cli');
  pem = await hsm.keypair('31');
});
afterAll(async () => {
  temp.cleanup();
  await hsm?.close();
});

/** The built CLI with the token's environment (SOFTHSM2_CONF and the PIN variable). */
const cli = (argv: string[], dataDir: string) =>
  runBuiltCli([...argv, '--data-dir', dataDir], {
    env: { ...hsm.env, DETS_DATA_DIR: '', NO_COLOR: '1' },
    timeoutMs: 30_000,
  });

describe('dets-console keys add-external', () => {
  it('adds a SoftHSM key from its PEM; jwt sign prints a token node:crypto verifies; list and export show it', async () => {
    const dataDir = temp.newDir();
    const pemFile = path.join(hsm.dir, 'hsm-key.pem');
    writeFileSync(pemFile, pem);
    const added = await cli(
      [
        'keys',
        'add-external',
        '--kid',
        'hsm-2026',
        '--public',
        pemFile,
        '--sign-command',
        hsm.signCommand('31'),
      ],
      dataDir,
    );
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(
      /Added an RS256 signing key \(RSA, 2048 bits\); its private part stays where it is held/,
    );
    expect(added.stdout).toContain('signs with   pkcs11-tool --module /usr/lib/softhsm/libsofthsm2.so');

    const signed = await cli(
      ['jwt', 'sign', '--kid', 'hsm-2026', '--obj', 'DE02120300000000202051', '--sub', 'ops'],
      dataDir,
    );
    expect(signed.code, signed.stderr).toBe(0);
    const [h, p, s] = signed.stdout.trim().split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({
      alg: 'RS256',
      kid: 'hsm-2026',
      typ: 'JWT',
    });
    expect(createVerify('sha256').update(`${h}.${p}`).verify(pem, Buffer.from(s, 'base64url'))).toBe(true);

    const list = await cli(['keys', 'list', '--json'], dataDir);
    expect(JSON.parse(list.stdout)).toEqual([
      { kid: 'hsm-2026', alg: 'RS256', status: 'active', expires: null, environment: null },
    ]);
    const exported = await cli(['keys', 'export', 'hsm-2026', '--format', 'pem'], dataDir);
    expect(createPublicKey(exported.stdout).equals(createPublicKey(pem))).toBe(true);
    // The profile holds the public key and the template: no PIN, no private key.
    const keysJson = readFileSync(path.join(dataDir, 'keys', 'keys.json'), 'utf8');
    expect(keysJson).not.toContain(hsm.pin);
    expect(keysJson).not.toMatch(/PRIVATE KEY|"d"\s*:|sealed_private_key/);
  });

  it('takes the public key as a JWK file, with its own alg', async () => {
    const dataDir = temp.newDir();
    const jwk = { ...createPublicKey(pem).export({ format: 'jwk' }), alg: 'RS256', use: 'sig' };
    const jwkFile = path.join(hsm.dir, 'hsm-key.json');
    writeFileSync(jwkFile, JSON.stringify(jwk));
    const added = await cli(
      [
        'keys',
        'add-external',
        '--kid',
        'hsm-jwk',
        '--public',
        jwkFile,
        '--sign-command',
        hsm.signCommand('31'),
      ],
      dataDir,
    );
    expect(added.code, added.stderr).toBe(0);
  });

  it('refuses bad input with exit 2 naming the flag, and stores nothing', async () => {
    const dataDir = temp.newDir();
    const pemFile = path.join(hsm.dir, 'hsm-key-2.pem');
    writeFileSync(pemFile, pem);
    const privateJwk = path.join(hsm.dir, 'private.json');
    writeFileSync(privateJwk, JSON.stringify({ kty: 'RSA', n: 'AQAB', e: 'AQAB', d: 'AQAB' }));
    const withPin = hsm.signCommand('31').replace(`env:DETS_TEST_HSM_PIN`, hsm.pin);
    const cases: Array<[string[], RegExp]> = [
      [['--public', pemFile, '--sign-command', hsm.signCommand('31')], /^dets-console keys: --kid: required/],
      [
        ['--kid', 'k', '--public', '/no/such.pem', '--sign-command', 'x {in}'],
        /^dets-console keys: --public: cannot read "\/no\/such.pem": no such file/,
      ],
      [
        ['--kid', 'k', '--public', privateJwk, '--sign-command', hsm.signCommand('31')],
        /^dets-console keys: --public: this JWK holds private members \(d\)/,
      ],
      [
        ['--kid', 'k', '--public', pemFile, '--sign-command', withPin],
        /^dets-console keys: --sign-command: the signing command would store a secret in the profile \(word \d+ is a literal value of --pin\)/,
      ],
      [
        ['--kid', 'k', '--public', pemFile, '--sign-command', 'signer -o {out}'],
        /^dets-console keys: --sign-command: the signing command never says what to sign/,
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(['keys', 'add-external', ...argv], dataDir);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toMatch(message);
      expect(r.stderr).not.toContain(hsm.pin);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    // A command that cannot sign is a failure (exit 1) with its stderr, and nothing is stored.
    const wrongId = await cli(
      ['keys', 'add-external', '--kid', 'k', '--public', pemFile, '--sign-command', hsm.signCommand('99')],
      dataDir,
    );
    expect(wrongId.code).toBe(1);
    expect(wrongId.stderr).toMatch(
      /^dets-console keys: SIGNER_FAILED: key "k" \(held elsewhere\) did not sign: its command pkcs11-tool exited with status 1; it said on stderr: "error: Private key not found \/ Aborting."\. The command: pkcs11-tool --module/,
    );
    expect((await cli(['keys', 'list', '--json'], dataDir)).stdout.trim()).toBe('[]');
  });
});
