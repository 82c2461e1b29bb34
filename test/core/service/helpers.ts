/**
 * Real parts for the service client tests: a console core in a temp data directory with its
 * own sandbox listening on 127.0.0.1:0, the bank key in the core's key store (through the real
 * vault), onboarded with the sandbox and set on the sandbox environment; node:http fake
 * services on 127.0.0.1:0 that answer the way the real service can (free-text 401s, hangs),
 * optionally in front of the sandbox.
 */
import { promises as fs } from 'node:fs';
import http from 'node:http';
import { startFakeServer, type FakeServer, type Received } from '../../support/fake-server';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import type { Exchange } from '../../../electron/contract/schemas/service';
import { createConsoleCore, type ConsoleCore } from '../../../electron/core/console-core';
import type { KeyStore } from '../../../electron/core/keys';
import type { SandboxListener } from '../../../electron/core/sandbox';
import {
  createServiceClient,
  type Composer,
  type EnvironmentStore,
  type ServiceClient,
} from '../../../electron/core/service';
import type { ServiceOptions } from '../../../electron/core/service/types';

const cleanups: Array<() => Promise<void>> = [];

/** Runs (newest first) every close registered by the helpers; call it in afterEach. */
export async function cleanup(): Promise<void> {
  while (cleanups.length > 0) {
    const fn = cleanups.pop() as () => Promise<void>;
    await fn().catch(() => undefined);
  }
}

export async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dets-service-'));
  cleanups.unshift(() => fs.rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

export const OBJ = 'DE02120300000000202051';
export const SUB = 'ops@bank.example';

export interface Running {
  core: ConsoleCore;
  dataDir: string;
  listener: SandboxListener;
  keys: KeyStore;
  composer: Composer;
  environments: EnvironmentStore;
  service: ServiceClient;
  /** The onboarded bank key, active on the sandbox environment. */
  key: KeyInfo;
  guid: string;
  /** Every event emitted, in order. */
  emitted: Array<{ event: string; payload: unknown }>;
  /** A second client on the same services with other options (a short timeout, a small history). */
  client(over?: Partial<ServiceOptions>): ServiceClient;
}

/**
 * A core with its sandbox listening, one bank key generated and onboarded, and the sandbox
 * environment set up with that counterparty, key and default obj/sub.
 */
export async function startCore(options: { onboard?: boolean } = {}): Promise<Running> {
  const dataDir = await tempDir();
  const core = await createConsoleCore({ dataDir, host: 'cli' });
  cleanups.push(() => core.close());
  const emitted: Array<{ event: string; payload: unknown }> = [];
  core.events.onAny((event, payload) => emitted.push({ event, payload }));
  const listener = await core.listenSandbox({ host: '127.0.0.1', port: 0 });

  // The core's own services: keys through the real vault (the Secret Service keychain).
  const keys = core.services.keys();
  const environments = core.services.environments();
  const composer = core.services.composer();
  const service = core.services.service();
  const base: ServiceOptions = { dataDir, events: core.events, keys, environments, composer, fetch };
  const client = (over: Partial<ServiceOptions> = {}) => createServiceClient({ ...base, ...over });

  const key = await keys.generate({ status: 'active', label: 'bank key' });
  let guid = '';
  if (options.onboard !== false) {
    const onboarded = await core.dispatch('sandbox.onboard', { jwk: key.public_jwk });
    if (!onboarded.ok) throw new Error(`onboarding failed: ${onboarded.error.message}`);
    guid = (onboarded.value as { counterparty_guid: string }).counterparty_guid;
    await environments.save({
      id: 'sandbox',
      counterparty_guid: guid,
      active_kid: key.kid,
      default_obj: OBJ,
      default_sub: SUB,
    });
  }
  return { core, dataDir, listener, keys, composer, environments, service, key, guid, emitted, client };
}

/** The events of one name, in order. */
export function eventsOf<T = unknown>(running: Running, name: string): T[] {
  return running.emitted.filter((e) => e.event === name).map((e) => e.payload as T);
}

// --------------------------------------------------------------------------- fake services

export type { Received } from '../../support/fake-server';
export type FakeService = FakeServer;

/** An HTTP server on 127.0.0.1:0; `respond` answers each request once its body has arrived. */
export async function fakeService(
  respond: (req: Received, res: http.ServerResponse) => void | Promise<void>,
): Promise<FakeService> {
  const service = await startFakeServer(respond);
  cleanups.push(service.close);
  return service;
}

/** Answers as the guide's service does when it refuses a JWT: 401 with free text. */
export function refuse(res: http.ServerResponse, text = 'Access credentials are invalid'): void {
  res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/** Forwards a request to `target` (the sandbox) and relays its answer. */
export async function forward(target: string, req: Received, res: http.ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || ['host', 'connection', 'content-length'].includes(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const answer = await fetch(`${target}${req.url}`, {
    method: req.method,
    headers,
    ...(req.body !== '' ? { body: req.body } : {}),
  });
  const text = await answer.text();
  res.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'text/plain' });
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

/** A real environment at `baseUrl` with the running counterparty and key, made active. */
export async function activateReal(running: Running, baseUrl: string, name = 'Real'): Promise<string> {
  const env = await running.environments.save({
    name,
    base_url: baseUrl,
    counterparty_guid: running.guid || crypto.randomUUID(),
    active_kid: running.key.kid,
    default_obj: OBJ,
    default_sub: SUB,
  });
  await running.environments.activate(env.id);
  return env.id;
}

/** The exchange's response status (or null). */
export const statusOf = (e: Exchange) => e.response?.status ?? null;
