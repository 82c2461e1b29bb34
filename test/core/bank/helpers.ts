/**
 * Real parts for the bank endpoint tests: a service key made by jose published by a JWKS server
 * on 127.0.0.1:0 (its keys can change, it can go down), service tokens signed in the test, a
 * temp data directory, the real event store and signed pairs, a SecretSealer with a real cipher
 * (AES-256-GCM, random test key: only the vault around it is absent), and the bank listening on
 * 127.0.0.1:0.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { CompactSign, generateKeyPair, type CryptoKey } from 'jose';
import { EventHub } from '../../../electron/core/event-hub';
import { createBankEndpoints, type BankEndpoints, type BankListener } from '../../../electron/core/bank';
import { rebuildCallbackDetail } from '../../../electron/core/bank/callback-detail';
import { createSignedPairs } from '../../../electron/core/bank/signed-pairs';
import { openEventStore, type EventStore, type Retention } from '../../../electron/core/store';
import type { SecretSealer } from '../../../electron/core/vault/sealer';
import type { SignedPairs } from '../../../electron/core/bank/types';
import { jwkOf } from '../../support/rsa-pair';

const cleanups: Array<() => Promise<unknown>> = [];

export async function cleanup(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop() as () => Promise<unknown>;
    await fn().catch(() => undefined);
  }
}

export async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dets-bank-'));
  cleanups.unshift(() => fs.rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

// ------------------------------------------------------------------------- service keys

export interface ServiceKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: Record<string, string>;
}

export async function makeServiceKey(kid = `svc-${randomBytes(4).toString('hex')}`): Promise<ServiceKey> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const pub = jwkOf(publicKey);
  return {
    kid,
    privateKey,
    jwk: { alg: 'RS256', e: String(pub.e), kid, kty: 'RSA', n: String(pub.n), use: 'sig' },
  };
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

export function claims(over: Record<string, unknown> = {}): Record<string, unknown> {
  const now = nowSeconds();
  return { flow: 'sign-in', obj: 'DE001', sub: 'ops@bank.example', iat: now - 5, exp: now + 300, ...over };
}

export async function serviceJwt(
  key: ServiceKey,
  payload: Record<string, unknown> = claims(),
  header: Record<string, unknown> = {},
): Promise<string> {
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT', ...header } as { alg: string })
    .sign(key.privateKey);
}

/** An unsigned token with the given header, e.g. {alg: 'none'}. */
export function rawJwt(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  signature = '',
): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${b64(header)}.${b64(payload)}.${signature}`;
}

// --------------------------------------------------------------------------- JWKS server

export interface JwksServer {
  url: string;
  keys: Record<string, string>[];
  hits: number;
  /** 'down': answers 503 (a service that is unreachable for our purpose). */
  mode: 'up' | 'down';
  close(): Promise<void>;
}

export async function startJwksServer(keys: Record<string, string>[]): Promise<JwksServer> {
  const state: JwksServer = {
    url: '',
    keys,
    hits: 0,
    mode: 'up',
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    state.hits += 1;
    if (state.mode === 'down') {
      res.writeHead(503).end();
      return;
    }
    const body = JSON.stringify({ keys: state.keys });
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/.well-known/jwks.json`;
  state.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  cleanups.push(() => state.close());
  return state;
}

/** A small HTTP server answering with `answer`, recording requests. */
export async function startBackend(
  answer: (
    req: http.IncomingMessage,
    body: string,
  ) => Promise<{ status: number; body?: string; type?: string }>,
): Promise<{
  url: string;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
}> {
  const requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> =
    [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      void answer(req, body).then((a) => {
        res.writeHead(a.status, a.body !== undefined ? { 'content-type': a.type ?? 'application/json' } : {});
        res.end(a.body ?? '');
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

// ----------------------------------------------------------------------------- sealer

export function testSealer(): SecretSealer {
  const key = randomBytes(32);
  return {
    kind: 'keychain',
    async seal(plaintext, aad) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      c.setAAD(Buffer.from(aad));
      const ct = Buffer.concat([c.update(plaintext), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64');
    },
    async open(sealed, aad) {
      const buf = Buffer.from(sealed, 'base64');
      const d = createDecipheriv('aes-256-gcm', key, buf.subarray(0, 12));
      d.setAAD(Buffer.from(aad));
      d.setAuthTag(buf.subarray(12, 28));
      return new Uint8Array(Buffer.concat([d.update(buf.subarray(28)), d.final()]));
    },
  };
}

// --------------------------------------------------------------------------------- bank

export const CUSTOMER = {
  obj: 'DE001',
  sub: 'ops@bank.example',
  external_id: 'ext-001',
  phone: '+49 30 1234567',
  key: 'secret-key-0123456789abcdef',
  first_name: 'Erika',
  last_name: 'Mustermann',
  email: 'erika@example.com',
};

export interface BankFixture {
  dir: string;
  bank: BankEndpoints;
  listener: BankListener;
  url: string;
  store: EventStore;
  pairs: SignedPairs;
  events: EventHub;
  key: ServiceKey;
  jwks: JwksServer;
  sealer: SecretSealer | null;
  clock: { offsetMs: number };
}

export async function startBank(
  opts: {
    dir?: string;
    sealer?: SecretSealer | null;
    jwksUrl?: string | null;
    key?: ServiceKey;
    jwks?: JwksServer;
    /** Imported at start; null: keep what the data dir holds. Default: [CUSTOMER]. */
    customers?: unknown[] | null;
    signServiceToken?: (c: { obj: string; sub: string }) => Promise<string>;
    /** The event store's caps per class (store/types.ts); default: the store's defaults. */
    retention?: Retention;
    /** Listen over HTTPS with this PEM pair (`serve --tls-cert/--tls-key`). */
    tls?: { cert: string; key: string };
  } = {},
): Promise<BankFixture> {
  const dir = opts.dir ?? (await tempDir());
  const key = opts.key ?? (await makeServiceKey());
  const jwks = opts.jwks ?? (await startJwksServer([key.jwk]));
  const events = new EventHub();
  const store = await openEventStore({ dataDir: dir, events, retention: opts.retention });
  const pairs = createSignedPairs({ dataDir: dir });
  const sealer = opts.sealer === undefined ? testSealer() : opts.sealer;
  const clock = { offsetMs: 0 };
  const bank = await createBankEndpoints({
    dataDir: dir,
    events,
    store,
    pairs,
    serviceJwksUrl: async () => (opts.jwksUrl === undefined ? jwks.url : opts.jwksUrl),
    vault: {
      sealer: async () => {
        if (!sealer) throw new Error('no keychain in this test');
        return sealer;
      },
    },
    signServiceToken: opts.signServiceToken ?? ((c) => serviceJwt(key, claims(c))),
    fetch,
    now: () => Date.now() + clock.offsetMs,
  });
  if (opts.customers !== null) await bank.importCustomers(opts.customers ?? [CUSTOMER]);
  const listener = await bank.listen({ host: '127.0.0.1', port: 0, ...(opts.tls ? { tls: opts.tls } : {}) });
  cleanups.push(async () => {
    await bank.close();
    await store.close();
  });
  return { dir, bank, listener, url: listener.url, store, pairs, events, key, jwks, sealer, clock };
}

function jsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export async function get(
  url: string,
  token?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; text: string }> {
  const res = await fetch(url, {
    headers: token === undefined ? headers : { 'X-Session-ID': token, ...headers },
  });
  const text = await res.text();
  return { status: res.status, body: jsonOrNull(text), text };
}

export async function post(
  url: string,
  body: string,
  type: string | null = 'application/json',
): Promise<{ status: number; body: unknown; text: string }> {
  const res = await fetch(url, { method: 'POST', body, headers: type ? { 'content-type': type } : {} });
  const text = await res.text();
  return { status: res.status, body: jsonOrNull(text), text };
}

/**
 * The newest event as readers get it (events.get: a callback's token and checks rebuilt from the
 * small record, bank/callback-detail.ts); waits briefly: callback events are appended after the
 * answer.
 */
export async function lastEvent(store: EventStore, kind?: 'callback' | 'notification') {
  for (let i = 0; i < 100; i++) {
    const page = await store.query({ kind, limit: 1 });
    const [first] = page.events;
    if (first) return rebuildCallbackDetail(await store.get(first.id));
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no event');
}

/** Waits until the store holds `n` events of a kind. */
export async function eventCount(
  store: EventStore,
  kind: 'callback' | 'notification',
  n: number,
): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const page = await store.query({ kind, limit: 1 });
    if (page.total >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`fewer than ${n} ${kind} events`);
}
