/**
 * X.509 certificates made with the system openssl for the TLS tests: a valid self-signed one for
 * 127.0.0.1, a second key that matches nothing, and an expired certificate. OpenSSL 3.0 (Debian
 * 12) has no -not_before/-not_after on `x509`/`req`, so the expired one is signed by
 * `openssl ca -selfsign` with -startdate/-enddate in 2020.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface TestCerts {
  cert: string;
  key: string;
  otherKey: string;
  expiredCert: string;
  expiredKey: string;
  notPem: string;
}

const openssl = (args: string[], cwd: string) =>
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

export async function makeCerts(dir: string): Promise<TestCerts> {
  await mkdir(path.join(dir, 'db'), { recursive: true });
  const p = (f: string) => path.join(dir, f);
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-days',
      '30',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    dir,
  );
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'other.key'], dir);
  await writeFile(p('db/index.txt'), '');
  await writeFile(p('db/serial'), '01\n');
  await writeFile(
    p('ca.cnf'),
    [
      '[ ca ]',
      'default_ca = CA_default',
      '[ CA_default ]',
      'database = db/index.txt',
      'new_certs_dir = db',
      'serial = db/serial',
      'default_md = sha256',
      'policy = any',
      'unique_subject = no',
      '[ any ]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  openssl(
    [
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'old.key',
      '-out',
      'old.csr',
      '-subj',
      '/CN=127.0.0.1',
    ],
    dir,
  );
  openssl(
    [
      'ca',
      '-batch',
      '-config',
      'ca.cnf',
      '-selfsign',
      '-keyfile',
      'old.key',
      '-in',
      'old.csr',
      '-out',
      'old.pem',
      '-startdate',
      '20200101000000Z',
      '-enddate',
      '20200201000000Z',
    ],
    dir,
  );
  await writeFile(p('not.pem'), 'this is not a certificate\n');
  return {
    cert: p('cert.pem'),
    key: p('key.pem'),
    otherKey: p('other.key'),
    expiredCert: p('old.pem'),
    expiredKey: p('old.key'),
    notPem: p('not.pem'),
  };
}
