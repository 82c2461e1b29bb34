/**
 * `dets-console attach HUB_URL --token TOKEN [--forward-to URL] [--route obj=GLOB|sub=GLOB]…
 * [--ui-port 0] [--json]` (issue 30 items 2 and 3; DESIGN.md "Team hub"): the hub's pages on this
 * laptop's loopback, behind this launch's own token, the member token kept in this process
 * (core/team HubClient); with --forward-to, one outbound relay connection to the hub that brings
 * the callbacks and notifications the --route globs claim to that backend (core/team
 * RelayClient). The ready line is `{"ready":true,"ui":"http://127.0.0.1:…/?token=…","hub":"https://…"}`,
 * printed once the routes are registered. A token the hub refuses (or a role that may not
 * route) exits 2 naming --token; a bad --route or --forward-to exits 2 naming it; an unreachable
 * hub exits 1.
 */
import os from 'node:os';
import type { RouteRequest } from '../../contract/schemas/team';
import { AttachCore, HubClient, hubUrl, parseRouteSpec, RelayClient } from '../../core/team';
import { startHeadlessServer } from '../../headless';
import { EXIT, UsageError, numberFlagOrDefault, parseFlags, type CliIo } from '../io';
import { ATTACH } from '../table';
import { listenError } from './serve-listeners';

function hubUrlArg(value: string | undefined): URL {
  if (value === undefined) throw new UsageError('HUB_URL: the hub’s URL is needed (https://…)');
  try {
    return hubUrl(value, 'HUB_URL');
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** --forward-to: an http(s) URL without credentials, query or fragment; no trailing slash. */
function forwardToFlag(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--forward-to: "${value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--forward-to: "${value}" is not an http(s) URL`);
  if (url.username || url.password) throw new UsageError('--forward-to: must not carry credentials');
  if (url.search || url.hash) throw new UsageError('--forward-to: must not carry a query or fragment');
  return url.href.replace(/\/+$/, '');
}

/** --route obj=GLOB|sub=GLOB, each (core/team route-glob.ts, the contract's glob rule). */
function routeFlags(values: string[] | undefined, forwardTo: string | undefined): RouteRequest[] {
  const routes = (values ?? []).map((v) => {
    try {
      return parseRouteSpec(v);
    } catch (err) {
      throw new UsageError(`--${err instanceof Error ? err.message : String(err)}`);
    }
  });
  if (routes.length > 0 && forwardTo === undefined)
    throw new UsageError('--route: needs --forward-to (where the routed requests go)');
  return routes;
}

export async function attachCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, ATTACH);
  const hub = hubUrlArg(positionals[0]);
  const token = values.token;
  if (token === undefined || token.trim() === '')
    throw new UsageError('--token: your member token is needed');
  const forwardTo = values['forward-to'] === undefined ? undefined : forwardToFlag(values['forward-to']);
  const routes = routeFlags(values.route, forwardTo);
  const uiPort = numberFlagOrDefault(ATTACH, 'ui-port', values['ui-port']);
  const log = (line: string) => io.stderr(`dets-console attach: ${line}\n`);
  const stopped = io.waitForStop();

  const client = new HubClient(hub, token.trim(), log);
  const session = await client.dispatch('team.session', undefined);
  if (!session.ok) {
    client.close();
    if (session.error.code === 'UNAUTHORIZED')
      throw new UsageError(`--token: the hub ${hub.origin} refused it`);
    io.stderr(`dets-console attach: ${session.error.message}\n`);
    return EXIT.FAILED;
  }
  const who = session.value as { member: string; role: string };
  let relay: RelayClient | null = null;
  if (forwardTo !== undefined) {
    relay = new RelayClient({ hub, token: token.trim(), forwardTo, routes, name: os.hostname(), log });
    const started = await relay.start();
    if (!started.ok) {
      relay.close();
      client.close();
      if (started.status === 401 || started.status === 403)
        throw new UsageError(`--token: the hub ${hub.origin} refused the relay (${started.message})`);
      if (started.status === 400 || started.status === 409)
        throw new UsageError(`--route: the hub ${hub.origin} refused it (${started.message})`);
      io.stderr(`dets-console attach: relay: ${started.message}\n`);
      return EXIT.FAILED;
    }
  }
  client.follow();
  let server;
  try {
    server = await startHeadlessServer({
      core: new AttachCore(client, relay),
      host: '127.0.0.1',
      port: uiPort,
    });
  } catch (err) {
    relay?.close();
    client.close();
    throw listenError(err, { flag: '--ui-port', port: uiPort }, '127.0.0.1') ?? err;
  }
  if (values.json) io.stdout(`${JSON.stringify({ ready: true, ui: server.tokenUrl, hub: hub.href })}\n`);
  else io.stdout(`Attached to ${hub.href} as ${who.member} (${who.role}).\nOpen ${server.tokenUrl}\n`);
  const signal = await stopped;
  log(`${signal}: stopping`);
  relay?.close();
  client.close();
  await server.close();
  return EXIT.OK;
}
