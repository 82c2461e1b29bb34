/**
 * A real PKCS#11 token for the tests of keys held elsewhere (issue 29): SoftHSM 2 from Debian
 * (`softhsm2`), driven by OpenSC's `pkcs11-tool` (`opensc`), both installed by `.ci/run`. Each
 * token lives in its own temporary SOFTHSM2_CONF folder, with a random user PIN that only ever
 * travels in an environment variable (`pkcs11-tool --pin env:VAR`), as the recipe in
 * docs/keys-held-elsewhere.md tells a bank to do.
 */
import { execFile } from 'node:child_process';
import { createPublicKey, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { SigningAlg } from '../../electron/contract/schemas/keys';

const run = promisify(execFile);

/** Debian's SoftHSM 2 PKCS#11 module. */
export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';
/** The variable the token's user PIN is in. */
export const PIN_VAR = 'DETS_TEST_HSM_PIN';

/** pkcs11-tool's mechanism (and PSS parameters) for each JWS alg (RFC 7518 §3.3, §3.5). */
export const MECHANISM: Record<SigningAlg, string[]> = {
  RS256: ['-m', 'SHA256-RSA-PKCS'],
  RS384: ['-m', 'SHA384-RSA-PKCS'],
  RS512: ['-m', 'SHA512-RSA-PKCS'],
  PS256: ['-m', 'SHA256-RSA-PKCS-PSS', '--mgf', 'MGF1-SHA256', '--salt-len', '32'],
};

export interface SoftHsmToken {
  dir: string;
  label: string;
  /** SOFTHSM2_CONF and the PIN variable over this process's environment. */
  env: NodeJS.ProcessEnv;
  pin: string;
  /** Generates an RSA-2048 key pair in the token and returns its public key as SPKI PEM. */
  keypair(id: string): Promise<string>;
  /** The `keys add-external` template that signs with key `id` under `alg`. */
  signCommand(id: string, alg?: SigningAlg): string;
  close(): Promise<void>;
}

/** A fresh token, initialised with random SO and user PINs. */
export async function softHsmToken(label = 'dets-test'): Promise<SoftHsmToken> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dets-softhsm-'));
  await fs.mkdir(path.join(dir, 'tokens'));
  const conf = path.join(dir, 'softhsm2.conf');
  await fs.writeFile(
    conf,
    `directories.tokendir = ${path.join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`,
  );
  const pin = randomBytes(12).toString('hex');
  const soPin = randomBytes(12).toString('hex');
  const env = { ...process.env, SOFTHSM2_CONF: conf, [PIN_VAR]: pin };
  // softhsm2-util takes its PINs only literally: this is test setup, never stored anywhere.
  await run('softhsm2-util', ['--init-token', '--free', '--label', label, '--so-pin', soPin, '--pin', pin], {
    env,
  });
  const base = ['--module', SOFTHSM_MODULE, '--token-label', label];
  return {
    dir,
    label,
    env,
    pin,
    async keypair(id) {
      await run(
        'pkcs11-tool',
        [
          ...base,
          '--login',
          '--pin',
          `env:${PIN_VAR}`,
          '--keypairgen',
          '--key-type',
          'rsa:2048',
          '--id',
          id,
          '--label',
          `key-${id}`,
          '--usage-sign',
        ],
        { env },
      );
      const der = path.join(dir, `pub-${id}.der`);
      await run('pkcs11-tool', [...base, '--read-object', '--type', 'pubkey', '--id', id, '-o', der], {
        env,
      });
      const key = createPublicKey({ key: await fs.readFile(der), format: 'der', type: 'spki' });
      return String(key.export({ type: 'spki', format: 'pem' }));
    },
    signCommand(id, alg = 'RS256') {
      return [
        'pkcs11-tool',
        ...base,
        '--login',
        '--pin',
        `env:${PIN_VAR}`,
        '--sign',
        '--id',
        id,
        ...MECHANISM[alg],
        '-i',
        '{in}',
        '-o',
        '{out}',
      ].join(' ');
    },
    close: () => fs.rm(dir, { recursive: true, force: true }),
  };
}
