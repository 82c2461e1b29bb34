/**
 * `dets-console jwt sign` through runCli with a captured CliIo, and the built CLI
 * (dist/cli/dets-console.js, built once per run by test/support/global-setup.ts) spawned as a
 * script would: generate, sign, export, and verify the token with jose against the exported
 * JWK alone. The vault is the real one (npm test runs inside scripts/with-keyring.sh).
 */
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSignedPairs } from '../../electron/core/bank/signed-pairs';
import { runBuiltCli } from './helpers';
import { runCaptured, tempDataDirs, type Run } from './support/cli-run';

const IBAN = 'DE89370400440532013000';
const temp = tempDataDirs('dets-cli-jwt-sign-');
const newDir = () => temp.newDir();
afterAll(() => temp.cleanup());

const cli = (argv: string[], dataDir: string): Promise<Run> => runCaptured(argv, dataDir);

/** Runs the built CLI as a separate process, as scripts and CI do. */
const spawnCli = (argv: string[], dataDir: string) =>
  runBuiltCli([...argv, '--data-dir', dataDir], {
    env: { DETS_DATA_DIR: '', NO_COLOR: '1' },
    timeoutMs: 20_000,
  });

async function verifyWithExport(
  run: (argv: string[]) => Promise<{ code: number | null; stdout: string }>,
  kid: string,
  token: string,
) {
  const exported = await run(['keys', 'export', kid, '--format', 'jwk']);
  expect(exported.code).toBe(0);
  const jwk = JSON.parse(exported.stdout) as { alg: string };
  return jwtVerify(token, await importJWK(jwk, jwk.alg));
}

describe('dets-console jwt sign', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = newDir();
    expect((await cli(['keys', 'generate', '--kid', 'bank-1'], dataDir)).code).toBe(0);
  });

  it('prints the compact token alone on stdout; it verifies against `keys export --format jwk`', async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await cli(
      ['jwt', 'sign', '--kid', 'bank-1', '--obj', IBAN, '--sub', 'ops@bank.example'],
      dataDir,
    );
    const after = Math.floor(Date.now() / 1000);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const token = r.stdout.trim();
    const { payload, protectedHeader } = await verifyWithExport((a) => cli(a, dataDir), 'bank-1', token);
    expect(protectedHeader).toEqual({ alg: 'RS256', kid: 'bank-1', typ: 'JWT' });
    expect(Object.keys(payload)).toEqual(['flow', 'obj', 'sub', 'iat', 'exp']);
    expect(payload).toMatchObject({ flow: 'sign-in', obj: IBAN, sub: 'ops@bank.example' });
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(after);
    expect(payload.exp).toBe((payload.iat as number) + 300);
  });

  it('takes --ttl, and remembers the obj/sub pair for the bank endpoints', async () => {
    const r = await cli(
      ['jwt', 'sign', '--kid', 'bank-1', '--obj', '+4915112345678', '--sub', 'teller-7', '--ttl', '60'],
      dataDir,
    );
    expect(r.code).toBe(0);
    const claims = decodeJwt(r.stdout.trim());
    expect((claims.exp as number) - (claims.iat as number)).toBe(60);
    expect(await createSignedPairs({ dataDir }).subsFor('+4915112345678')).toEqual(['teller-7']);
  });

  it('puts hints on stderr and still signs: a failing IBAN checksum, a lifetime over an hour', async () => {
    const r = await cli(
      ['jwt', 'sign', '--kid', 'bank-1', '--obj', 'DE89370400440532013001', '--sub', 's', '--ttl', '7200'],
      dataDir,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const warnings = r.stderr.trim().split('\n');
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^warning: obj looks like an IBAN but its checksum fails/);
    expect(warnings[1]).toMatch(
      /^warning: the lifetime is 7200 s: the sandbox refuses tokens living over 1 hour/,
    );
  });

  it('refuses bad usage with exit 2 and one line naming the flag', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--obj', IBAN, '--sub', 's'], /^dets-console jwt: --kid: required/],
      [['--kid', 'bank-1', '--sub', 's'], /^dets-console jwt: --obj: required/],
      [['--kid', 'bank-1', '--obj', IBAN], /^dets-console jwt: --sub: required/],
      [['--kid', 'bank-1', '--obj', '', '--sub', 's'], /--obj: obj must not be empty$/],
      [['--kid', 'bank-1', '--obj', IBAN, '--sub', ''], /--sub: sub must not be empty$/],
      [
        ['--kid', 'bank-1', '--obj', IBAN, '--sub', 's', '--ttl', '5m'],
        /--ttl: must be a whole number of seconds from 1 to 86400, not "5m"$/,
      ],
      [['--kid', 'bank-1', '--obj', IBAN, '--sub', 's', '--ttl', '0'], /--ttl: .* from 1 to 86400, not "0"$/],
      [
        ['--kid', 'bank-1', '--obj', IBAN, '--sub', 's', '--ttl', '-1'],
        /--ttl: .* from 1 to 86400, not "-1"$/,
      ],
      [
        ['--kid', 'bank-1', '--obj', IBAN, '--sub', 's', '--ttl', '86401'],
        /--ttl: .* from 1 to 86400, not "86401"$/,
      ],
      [['--kid', 'nope', '--obj', IBAN, '--sub', 's'], /--kid: no signing key with kid "nope"/],
      [['--kid', 'bank-1', '--obj', IBAN, '--sub', 's', '--iat', '1'], /unknown option --iat$/],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(['jwt', 'sign', ...argv], dataDir);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr.trim(), argv.join(' ')).toMatch(message);
    }
  });
});

describe('the built CLI (dist/cli/dets-console.js)', () => {
  it('generate --json, jwt sign, keys export: the token verifies against the exported JWK', async () => {
    const dataDir = newDir();
    const run = (argv: string[]) => spawnCli(argv, dataDir);
    const generated = await run(['keys', 'generate', '--alg', 'RS384', '--json']);
    expect(generated.stderr).toBe('');
    expect(generated.code).toBe(0);
    const { kid, alg, jwk } = JSON.parse(generated.stdout) as { kid: string; alg: string; jwk: object };
    expect(alg).toBe('RS384');

    const signed = await run(['jwt', 'sign', '--kid', kid, '--obj', IBAN, '--sub', 'ci@bank.example']);
    expect(signed.stderr).toBe('');
    expect(signed.code).toBe(0);
    expect(signed.stdout.split('\n')).toEqual([expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/), '']);
    const token = signed.stdout.trim();
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS384', kid, typ: 'JWT' });
    const { payload } = await verifyWithExport(run, kid, token);
    expect(payload).toMatchObject({ flow: 'sign-in', obj: IBAN, sub: 'ci@bank.example' });

    const list = await run(['keys', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toEqual([
      { kid, alg: 'RS384', status: 'active', expires: null, environment: null },
    ]);
    const exported = JSON.parse((await run(['keys', 'export', kid])).stdout) as object;
    expect(exported).toEqual(jwk);
  });

  it('exits 2 naming --yes when delete lacks it', async () => {
    const dataDir = newDir();
    const r = await spawnCli(['keys', 'delete', 'whatever'], dataDir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes: required/);
  });
});
