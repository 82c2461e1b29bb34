/**
 * "Test from outside" (issue 14): reachable (the marker came back through this listener),
 * unreachable (nothing listening) and foreign (another server answered, even one that echoes
 * markers the same way). Real listeners on 127.0.0.1.
 */
import http from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../electron/core/http/listener';
import { loadTlsFiles, PROBE_PATH, ProbeBook, runProbe } from '../../../electron/core/tunnel';
import { freePort } from '../../support/free-port';
import { makeCerts } from './certs';

/** A listener like the bank's: the probe route first, everything else answered "bank". */
function consoleListener(book: ProbeBook, tls?: { cert: string; key: string }): Promise<RunningServer> {
  return startServer(
    (req, res) => {
      if (!book.respond(req, res)) res.end('bank');
    },
    { host: '127.0.0.1', port: 0, ...(tls ? { tls } : {}) },
  );
}

const servers: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('runProbe', () => {
  it('is reachable when this listener receives the marker, with the round trip', async () => {
    const book = new ProbeBook();
    const s = await consoleListener(book);
    servers.push(s);
    const result = await runProbe(s.url, book);
    expect(result).toMatchObject({ outcome: 'reachable', status: 200 });
    expect(result.url).toMatch(new RegExp(`^${s.url}${PROBE_PATH}[0-9a-f]{32}$`));
    expect(result.rtt_ms).toEqual(expect.any(Number));
    expect(result.detail).toContain("this console's bank listener received the marker");
  });

  it('is unreachable when nothing listens at the public URL', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await runProbe(url, new ProbeBook());
    expect(result).toMatchObject({ outcome: 'unreachable', rtt_ms: null, status: null });
    expect(result.detail).toMatch(/^nothing answered at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED/);
  });

  it('is foreign when another server answers', async () => {
    const other = http.createServer((_req, res) => res.end('<html>It works!</html>'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    servers.push({ close: () => new Promise((r) => other.close(() => r())) });
    const url = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    const result = await runProbe(url, new ProbeBook());
    expect(result).toMatchObject({ outcome: 'foreign', status: 200 });
    expect(result.detail).toContain('something else answered');
    expect(result.detail).toContain('It works!');
  });

  it('is foreign when another console answers the marker back (it did not reach this one)', async () => {
    const theirs = await consoleListener(new ProbeBook());
    servers.push(theirs);
    const result = await runProbe(theirs.url, new ProbeBook());
    expect(result.outcome).toBe('foreign');
    expect(result.detail).toContain("it is not this console's bank listener");
  });

  it('says there is nothing to test without a public URL', async () => {
    expect(await runProbe(null, new ProbeBook())).toMatchObject({ outcome: 'no_public_url', url: null });
  });

  it('reports an untrusted certificate beside a reachable HTTPS listener', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'dets-probe-'));
    try {
      const certs = await makeCerts(dir);
      const book = new ProbeBook();
      const s = await consoleListener(book, await loadTlsFiles(certs.cert, certs.key));
      servers.push(s);
      const result = await runProbe(s.url, book);
      expect(result.outcome).toBe('reachable');
      expect(result.detail).toMatch(
        /its TLS certificate is not trusted here \(DEPTH_ZERO_SELF_SIGNED_CERT\)/,
      );
      expect(await readFile(certs.cert, 'utf8')).toContain('BEGIN CERTIFICATE');
    } finally {
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('answers only well-formed markers on the probe path, and nothing else', async () => {
    const book = new ProbeBook();
    const s = await consoleListener(book);
    servers.push(s);
    const bad = await fetch(`${s.url}${PROBE_PATH}not-a-marker`);
    expect(bad.status).toBe(404);
    expect(await (await fetch(`${s.url}/user_auth`)).text()).toBe('bank');
  });
});
