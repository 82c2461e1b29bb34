/**
 * Real parts for the sandbox tests: bank keys made by jose, bank JWTs signed with them, a
 * sandbox on 127.0.0.1:0 in a temp data directory, fake bank servers that record what they
 * receive, and a SecretSealer with a real cipher (AES-256-GCM, a random test key): only the
 * vault around it is absent.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import { startFakeServer, type FakeServer, type Received } from '../../support/fake-server';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { CompactSign, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { EventHub } from '../../../electron/core/event-hub';
import { createSandbox } from '../../../electron/core/sandbox';
import type { Sandbox } from '../../../electron/core/sandbox';
import type { SecretSealer } from '../../../electron/core/vault/sealer';
import { openDatabase } from '../../../electron/core/store/db';
import { jwkOf } from '../../support/rsa-pair';

// ------------------------------------------------------------------------------ cleanup

const cleanups: Array<() => Promise<void>> = [];

/** Runs (newest first) every close registered by the helpers; call it in afterEach. */
export async function cleanup(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop() as () => Promise<void>;
    await fn().catch(() => undefined);
  }
}

export async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dets-sandbox-'));
  cleanups.unshift(() => fs.rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

// ---------------------------------------------------------------------------- bank keys

export interface BankKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  /** The public JWK with the spec's fields. */
  jwk: { alg: string; e: string; kid: string; kty: string; n: string; use: string };
  privateJwk: JWK;
}

export async function makeBankKey(
  kid = `bank-${randomBytes(4).toString('hex')}`,
  alg = 'RS256',
): Promise<BankKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const pub = jwkOf(publicKey);
  const jwk = { alg, e: String(pub.e), kid, kty: 'RSA', n: String(pub.n), use: 'sig' };
  const privateJwk = { ...jwkOf(privateKey), alg, kid, use: 'sig' };
  return { kid, alg, privateKey, jwk, privateJwk };
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export function bankClaims(over: Record<string, unknown> = {}): Record<string, unknown> {
  const now = nowSeconds();
  return {
    flow: 'sign-in',
    obj: 'DE02120300000000202051',
    sub: 'ops@bank.example',
    iat: now - 5,
    exp: now + 240,
    ...over,
  };
}

/** A compact JWS signed by `key`; the header defaults to {alg, kid, typ: JWT}. */
export async function bankJwt(
  key: BankKey,
  claims: Record<string, unknown> = bankClaims(),
  header: Record<string, unknown> = {},
): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header } as { alg: string })
    .sign(key.privateKey);
}

/** A token with whatever header and payload, and a given (or empty) signature: for alg none. */
export function rawJwt(header: object, payload: object, signature = ''): string {
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${b64(header)}.${b64(payload)}.${signature}`;
}

// ------------------------------------------------------------------------------ sealer

/** AES-256-GCM with a random key: a real cipher standing in for the vault. */
export function testSealer(key = randomBytes(32)): SecretSealer & { key: Buffer } {
  return {
    kind: 'passphrase',
    key,
    async seal(plaintext, aad) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(aad));
      const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64');
    },
    async open(sealed, aad) {
      const raw = Buffer.from(sealed, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(aad));
      decipher.setAuthTag(raw.subarray(12, 28));
      return new Uint8Array(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]));
    },
  };
}

// ----------------------------------------------------------------------------- sandbox

export interface RunningSandbox {
  sandbox: Sandbox;
  url: string;
  dataDir: string;
  events: EventHub;
  /** Every event emitted, in order. */
  emitted: Array<{ event: string; payload: unknown }>;
  close(): Promise<void>;
}

export async function startSandbox(
  options: { dataDir?: string; sealer?: SecretSealer; now?: () => number; timeScale?: number } = {},
): Promise<RunningSandbox> {
  const dataDir = options.dataDir ?? (await tempDir());
  const events = new EventHub();
  const emitted: Array<{ event: string; payload: unknown }> = [];
  events.onAny((event, payload) => emitted.push({ event, payload }));
  const sandbox = await createSandbox({
    dataDir,
    events,
    sealer: options.sealer,
    now: options.now,
    ...(options.timeScale !== undefined ? { timeScale: options.timeScale } : {}),
  });
  const listener = await sandbox.listen({ host: '127.0.0.1', port: 0 });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await sandbox.close();
  };
  cleanups.push(close);
  return { sandbox, url: listener.url, dataDir, events, emitted, close };
}

/** A sandbox with one onboarded counterparty whose key is `key`. */
export async function startWithCounterparty(
  options: Parameters<typeof startSandbox>[0] & { urls?: Record<string, string> } = {},
): Promise<RunningSandbox & { key: BankKey; guid: string; jwkGuid: string }> {
  const running = await startSandbox(options);
  const key = await makeBankKey();
  const r = await call(running.url, 'POST', '/sandbox/v1/counterparties', {
    json: { jwk: key.jwk, ...options.urls },
  });
  if (r.status !== 201) throw new Error(`onboarding failed: ${r.status} ${r.text}`);
  const body = r.json as { counterparty_guid: string; jwk_guid: string };
  return { ...running, key, guid: body.counterparty_guid, jwkGuid: body.jwk_guid };
}

// -------------------------------------------------------------------------------- HTTP

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** One request with fetch; `json` sets the body and Content-Type. */
export async function call(
  base: string,
  method: string,
  pathname: string,
  options: { json?: unknown; body?: string; headers?: Record<string, string>; token?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['Content-Type'] ??= 'application/json';
  }
  if (options.token !== undefined) headers['CX-Authorization'] = options.token;
  const res = await fetch(`${base}${pathname}`, { method, headers, body });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The error body `{error, detail}` of an answer. */
export function errorOf(a: Answer): { error: string; detail: string } {
  return a.json as { error: string; detail: string };
}

// --------------------------------------------------------------------------- fake banks

export type { Received } from '../../support/fake-server';
export type FakeBank = FakeServer;

/** A bank server on 127.0.0.1:0; `respond` answers each request (after its body arrived). */
export async function fakeBank(
  respond: (req: Received, res: http.ServerResponse) => void | Promise<void>,
): Promise<FakeBank> {
  const bank = await startFakeServer(respond);
  cleanups.push(bank.close);
  return bank;
}

export function json(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

// ---------------------------------------------------------------------------- database

/** The sandbox's rows in `<dataDir>/console.db`, read with a read-only connection of its own. */
export function readStateRows(dataDir: string): {
  settings: { token_ttl_seconds: number } | null;
  keys: Array<{ kid: string; status: string; sealed_private_key: string | null }>;
  counterparties: Array<{ counterparty_guid: string; jwks: unknown[] }>;
  traces: number;
  meta: Record<string, string>;
} {
  const db = openDatabase(dataDir, { readOnly: true });
  try {
    const records = (sql: string) =>
      db
        .prepare(sql)
        .all()
        .map((r) => JSON.parse(String(r.record)));
    const settings = records('SELECT record FROM sandbox_settings')[0] ?? null;
    const meta = Object.fromEntries(
      db
        .prepare('SELECT key, value FROM meta')
        .all()
        .map((r) => [String(r.key), String(r.value)]),
    );
    return {
      settings,
      keys: records('SELECT record FROM sandbox_keys ORDER BY rowid'),
      counterparties: records('SELECT record FROM sandbox_counterparties ORDER BY rowid'),
      traces: Number(db.prepare('SELECT count(*) AS n FROM sandbox_traces').get()?.n),
      meta,
    };
  } finally {
    db.close();
  }
}

/** Every byte of the profile database and its WAL, as latin1 text to search in. */
export async function databaseBytes(dataDir: string): Promise<string> {
  const parts = await Promise.all(
    ['console.db', 'console.db-wal'].map((n) =>
      fs.readFile(path.join(dataDir, n)).catch(() => Buffer.alloc(0)),
    ),
  );
  return Buffer.concat(parts).toString('latin1');
}
