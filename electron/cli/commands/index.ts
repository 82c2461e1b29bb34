import type { CliIo } from '../io';
import { conformanceCommand } from './conformance';
import { eventsCommand } from './events';
import { jwtCommand } from './jwt';
import { keysCommand } from './keys-command';
import { sandboxCommand } from './sandbox';
import { scenarioCommand } from './scenario';
import { serveCommand } from './serve';
import { storeCommand } from './store';
import { teamCommand } from './team';
import { attachCommand } from './attach';

export type Command = (argv: string[], io: CliIo) => Promise<number>;

/**
 * Every command, by name. Each lives in its own file in this folder; its flags and usage are in
 * the command table (../table.ts).
 */
export const commands: Record<string, Command> = {
  serve: serveCommand,
  sandbox: sandboxCommand,
  keys: keysCommand,
  jwt: jwtCommand,
  conformance: conformanceCommand,
  events: eventsCommand,
  store: storeCommand,
  scenario: scenarioCommand,
  team: teamCommand,
  attach: attachCommand,
};
