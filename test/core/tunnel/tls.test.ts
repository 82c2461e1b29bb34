/**
 * `--tls-cert/--tls-key` checks (issue 14): a good pair serves HTTPS through the shared listener;
 * a certificate that does not parse, a key that does not match and an expired certificate are
 * refused with one line naming the flag and the file. Certificates made with openssl.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../../electron/core/http/listener';
import { loadTlsFiles, TlsFileError } from '../../../electron/core/tunnel';
import { makeCerts, type TestCerts } from './certs';
import { httpsCall } from './https-get';

let dir = '';
let certs: TestCerts;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'dets-tls-'));
  certs = await makeCerts(dir);
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

describe('loadTlsFiles', () => {
  it('accepts a matching, current pair and serves HTTPS with it', async () => {
    const tls = await loadTlsFiles(certs.cert, certs.key);
    expect(tls.subject).toBe('CN=127.0.0.1');
    expect(tls.fingerprint256).toMatch(/^[0-9A-F:]+$/);
    const server = await startServer((_req, res) => res.end('over tls'), { host: '127.0.0.1', port: 0, tls });
    try {
      expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const answer = await httpsCall(`${server.url}/`, { ca: await readFile(certs.cert, 'utf8') });
      expect(answer).toEqual({ status: 200, body: 'over tls' });
    } finally {
      await server.close();
    }
  });

  it('refuses a key that does not match the certificate, naming --tls-key and both files', async () => {
    const err = await loadTlsFiles(certs.cert, certs.otherKey).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TlsFileError);
    expect((err as Error).message).toBe(
      `--tls-key: "${certs.otherKey}" does not match the certificate in "${certs.cert}"`,
    );
  });

  it('refuses an expired certificate, saying when it expired', async () => {
    await expect(loadTlsFiles(certs.expiredCert, certs.expiredKey)).rejects.toThrow(
      `--tls-cert: "${certs.expiredCert}" expired on 2020-02-01T00:00:00.000Z`,
    );
  });

  it('refuses a file that is not a certificate, or not a key, or missing', async () => {
    await expect(loadTlsFiles(certs.notPem, certs.key)).rejects.toThrow(
      `--tls-cert: "${certs.notPem}" is not a PEM certificate`,
    );
    await expect(loadTlsFiles(certs.cert, certs.notPem)).rejects.toThrow(
      `--tls-key: "${certs.notPem}" is not a PEM private key`,
    );
    await expect(loadTlsFiles(path.join(dir, 'nope.pem'), certs.key)).rejects.toThrow('does not exist');
  });

  it('never puts the key text in a message', async () => {
    const keyText = await readFile(certs.key, 'utf8');
    const err = (await loadTlsFiles(certs.expiredCert, certs.key).catch((e: unknown) => e)) as Error;
    expect(err.message).not.toContain(keyText.split('\n')[1]);
  });
});
