/**
 * `dets-console attach HUB_URL --token TOKEN [--ui-port 0] [--json]` (issue 30 item 2; DESIGN.md
 * "Team hub"): the hub's pages on this laptop's loopback, behind this launch's own token, the
 * member token kept in this process (core/team HubClient). The ready line is
 * `{"ready":true,"ui":"http://127.0.0.1:…/?token=…","hub":"https://…"}`. A token the hub refuses
 * exits 2 naming --token; an unreachable hub exits 1.
 */
import { HubClient, hubUrl } from '../../core/team';
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

export async function attachCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, ATTACH);
  const hub = hubUrlArg(positionals[0]);
  const token = values.token;
  if (token === undefined || token.trim() === '')
    throw new UsageError('--token: your member token is needed');
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
  client.follow();
  let server;
  try {
    server = await startHeadlessServer({ core: client, host: '127.0.0.1', port: uiPort });
  } catch (err) {
    client.close();
    throw listenError(err, { flag: '--ui-port', port: uiPort }, '127.0.0.1') ?? err;
  }
  if (values.json) io.stdout(`${JSON.stringify({ ready: true, ui: server.tokenUrl, hub: hub.href })}\n`);
  else io.stdout(`Attached to ${hub.href} as ${who.member} (${who.role}).\nOpen ${server.tokenUrl}\n`);
  const signal = await stopped;
  log(`${signal}: stopping`);
  client.close();
  await server.close();
  return EXIT.OK;
}
