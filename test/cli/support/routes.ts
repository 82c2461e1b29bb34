/**
 * The routes tests' parts (issue 30 item 3): a laptop's test backend on 127.0.0.1 that records
 * what reached it and answers as told, the hub's API over TLS, and a hub with a real service's
 * JWKS and test customers.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { startFakeServer } from '../../support/fake-server';
import { cryptoJwt, signInClaims, type RealService } from '../../support/real-service';
import { httpsCall } from '../../core/tunnel/https-get';
import type { EventDetail, EventSummary } from '../../../electron/contract/schemas/events';
import type { SpawnedCli } from './spawn-cli';
import { hubArgs, tlsArgs } from './team';
import { until } from './until';

/** What a backend saw: each request's method, path, the sub of its token, its body. */
export interface Seen {
  method: string;
  path: string;
  sub: string | null;
  body: string;
}

export interface Backend {
  url: string;
  seen: Seen[];
  /** Most requests in flight at once. */
  peak: number;
  /** How to answer: by default 200 with user data naming `tag`. */
  answer: (s: Seen) => { status: number; body: string; delayMs?: number };
}

/** The sub claim of a raw X-Session-ID (not verified: the hub verified it). */
function subOf(token: string | string[] | undefined): string | null {
  if (typeof token !== 'string') return null;
  try {
    return (
      (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { sub?: string }).sub ??
      null
    );
  } catch {
    return null;
  }
}

/** A laptop's backend answering /user_auth with `external_id` = `ext-${tag}`; closed after the test. */
export async function startBackend(tag: string): Promise<Backend> {
  let inFlight = 0;
  const backend: Backend = {
    url: '',
    seen: [],
    peak: 0,
    answer: (s) =>
      s.method === 'POST'
        ? { status: 200, body: '' }
        : {
            status: 200,
            body: JSON.stringify({ external_id: `ext-${tag}`, key: `key-${tag}`, phone: '+4915100000' }),
          },
  };
  const server = await startFakeServer((req, res) => {
    const s: Seen = {
      method: req.method,
      path: req.url,
      sub: subOf(req.headers['x-session-id']),
      body: req.body,
    };
    backend.seen.push(s);
    // In flight until answered or given up by the caller (the attach process's bound counts a
    // call it gave up on as over: its connection is closed, whatever this handler still waits).
    inFlight++;
    backend.peak = Math.max(backend.peak, inFlight);
    let open = true;
    const over = () => {
      if (open) inFlight--;
      open = false;
    };
    res.once('close', over);
    const a = backend.answer(s);
    setTimeout(() => {
      over();
      if (!res.destroyed) res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
    }, a.delayMs ?? 0);
  });
  onTestFinished(() => server.close());
  backend.url = server.url;
  return backend;
}

/** Calls the hub's API over TLS with its per-launch token (a loopback peer: the local admin). */
export async function hubApi(ca: string, ui: string, method: string, input?: unknown): Promise<unknown> {
  const url = new URL(ui);
  const r = await httpsCall(`${url.origin}/api/call/${method}`, {
    ca,
    method: 'POST',
    headers: { 'X-DETS-Token': url.searchParams.get('token')!, 'content-type': 'application/json' },
    body: input === undefined ? '' : JSON.stringify(input),
  });
  const envelope = JSON.parse(r.body) as {
    ok: boolean;
    value?: unknown;
    error?: { code: string; message: string };
  };
  if (!envelope.ok) throw new Error(`${method}: ${envelope.error?.code}: ${envelope.error?.message}`);
  return envelope.value;
}

/** GET `path` on the hub's bank with a token for obj/sub signed by the real service. */
export function callback(
  ca: string,
  bank: string,
  service: RealService,
  obj: string,
  sub: string,
  path = '/user_auth',
): Promise<{ status: number; body: string }> {
  const token = cryptoJwt(service.privateKey, service.kid, signInClaims(obj, sub));
  return httpsCall(`${bank}${path}`, { ca, headers: { 'X-Session-ID': token } });
}

/** The hub's serve arguments: TLS, the real service's JWKS, two test customers. */
export async function routedHubArgs(
  dir: string,
  certs: { cert: string; key: string },
  service: RealService,
): Promise<string[]> {
  const users = path.join(path.dirname(dir), 'users.json');
  await writeFile(
    users,
    JSON.stringify([
      { obj: 'DE01ALICE', external_id: 'hub-alice', phone: '+491', key: 'hub-key-1' },
      { obj: 'DE02BOB', external_id: 'hub-bob', phone: '+492', key: 'hub-key-2' },
    ]),
  );
  return hubArgs([
    ...tlsArgs(certs),
    '--data-dir',
    dir,
    '--users',
    users,
    '--service-jwks-url',
    `${service.base}/api/v1/.well-known/jwks.json`,
  ]);
}

/** `attach HUB --token T --json EXTRA` trusting the test CA at `caFile`, spawned by `spawn`. */
export function attachLaptop(
  spawn: (args: string[], env?: NodeJS.ProcessEnv) => SpawnedCli,
  caFile: string,
  hubUrl: string,
  token: string,
  extra: string[],
): SpawnedCli {
  return spawn(['attach', hubUrl, '--token', token, '--json', ...extra], { NODE_EXTRA_CA_CERTS: caFile });
}

/** The hub's events of `kind` (newest first), optionally on `path`. */
export async function hubEvents(ca: string, ui: string, kind: string, p?: string): Promise<EventSummary[]> {
  const page = (await hubApi(ca, ui, 'events.query', { kind, ...(p ? { path: p } : {}), limit: 500 })) as {
    events: EventSummary[];
  };
  return page.events;
}

/** The callback event the hub stored for `sub` (newest), once it is there. */
export async function hubCallbackEvent(ca: string, ui: string, sub: string): Promise<EventDetail> {
  const found = await until(`the callback of ${sub}`, async () =>
    (await hubEvents(ca, ui, 'callback')).find((e) => e.sub === sub),
  );
  return (await hubApi(ca, ui, 'events.get', { id: found.id })) as EventDetail;
}
