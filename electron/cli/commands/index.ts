import type { CliIo } from '../io';
import { conformanceCommand } from './conformance';
import { eventsCommand } from './events';
import { jwtCommand } from './jwt';
import { keysCommand } from './keys';
import { sandboxCommand } from './sandbox';
import { serveCommand } from './serve';
import { storeCommand } from './store';

export type Command = (argv: string[], io: CliIo) => Promise<number>;

/** Every command, by name. Each lives in its own file in this folder. */
export const commands: Record<string, Command> = {
  serve: serveCommand,
  sandbox: sandboxCommand,
  keys: keysCommand,
  jwt: jwtCommand,
  conformance: conformanceCommand,
  events: eventsCommand,
  store: storeCommand,
};

export function usage(): string {
  return `dets-console: developer console for the Digital-Entity Transfer Service

Usage:
  dets-console serve      [--data-dir DIR] [--host 127.0.0.1] [--ui-port 7300] [--bank-port 7301]
                          [--sandbox-port 7302] [--no-sandbox] [--service-jwks-url URL]
                          [--users FILE] [--open] [--json]
  dets-console sandbox    [--data-dir DIR] [--host 127.0.0.1] [--port 7302] [--json]
  dets-console keys       generate [--alg RS256] [--bits 2048] [--kid KID] [--label TEXT]
                                   [--expires YYYY-MM-DD] [--json]
  dets-console keys       list [--json]
  dets-console keys       export KID [--format jwk|jwks|pem]
  dets-console keys       import FILE [--kid KID]
  dets-console keys       delete KID --yes
  dets-console jwt        sign --kid KID --obj OBJ --sub SUB [--ttl SECONDS]
  dets-console jwt        inspect TOKEN [--jwks-url URL] [--obj OBJ] [--sub SUB] [--json]
  dets-console conformance --bank-auth-url URL --obj OBJ --sub SUB [--jwks-port 7303]
                          [--json] [--junit FILE]
  dets-console events     [--data-dir DIR] [--kind notification|callback|exchange] [--json]
                          [--since ISO|DURATION] [--search TEXT] [--limit N] [--follow]
  dets-console store      recover [--data-dir DIR]

Every command takes --data-dir DIR (or DETS_DATA_DIR). Exit codes: 0 success, 1 a check failed,
2 bad usage or input.
`;
}
