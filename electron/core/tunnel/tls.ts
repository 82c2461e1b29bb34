/**
 * `--tls-cert FILE --tls-key FILE` (DESIGN.md "Command line"): the PEM certificate and key the
 * bank endpoints serve HTTPS with, checked before anything listens. A certificate that does not
 * parse, a key that does not match it, and a certificate outside its validity period are
 * refused with one line naming the flag and the file.
 *
 * Threat model: the key is read into memory and handed to node:tls only; no message, log or
 * event ever carries its text (errors name the file, never the content).
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { TlsMaterial } from '../http';

/** A refused certificate or key; `flag` is the one to name. */
export class TlsFileError extends Error {
  constructor(
    readonly flag: '--tls-cert' | '--tls-key',
    message: string,
  ) {
    super(`${flag}: ${message}`);
    this.name = 'TlsFileError';
  }
}

export interface CheckedTls extends TlsMaterial {
  subject: string;
  validTo: string;
  fingerprint256: string;
}

async function readText(flag: '--tls-cert' | '--tls-key', file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TlsFileError(flag, `"${file}" ${code === 'ENOENT' ? 'does not exist' : 'cannot be read'}`);
  }
}

/**
 * Reads and checks a certificate and its key.
 *
 * @example
 * const tls = await loadTlsFiles('cert.pem', 'key.pem');
 * await startServer(handle, { host: '127.0.0.1', port: 0, tls });
 */
export async function loadTlsFiles(
  certFile: string,
  keyFile: string,
  now: Date = new Date(),
): Promise<CheckedTls> {
  const certText = await readText('--tls-cert', certFile);
  const keyText = await readText('--tls-key', keyFile);
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certText);
  } catch {
    throw new TlsFileError('--tls-cert', `"${certFile}" is not a PEM certificate`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(keyText);
  } catch {
    throw new TlsFileError(
      '--tls-key',
      `"${keyFile}" is not a PEM private key (an encrypted key is not supported)`,
    );
  }
  if (!cert.checkPrivateKey(key)) {
    throw new TlsFileError('--tls-key', `"${keyFile}" does not match the certificate in "${certFile}"`);
  }
  const validTo = new Date(cert.validTo);
  const validFrom = new Date(cert.validFrom);
  if (validTo.getTime() < now.getTime()) {
    throw new TlsFileError('--tls-cert', `"${certFile}" expired on ${validTo.toISOString()}`);
  }
  if (validFrom.getTime() > now.getTime()) {
    throw new TlsFileError('--tls-cert', `"${certFile}" is not valid before ${validFrom.toISOString()}`);
  }
  return {
    cert: certText,
    key: keyText,
    subject: cert.subject.replace(/\n/g, ', '),
    validTo: validTo.toISOString(),
    fingerprint256: cert.fingerprint256,
  };
}
