/**
 * `dets-console team add NAME --role viewer|operator|admin | list | remove NAME` (issue 30;
 * DESIGN.md "Command line", "Team hub"): the members of a team hub, in the profile (beside a
 * running hub: it re-reads the file on change) or, with --store, in the hub's PostgreSQL. A new
 * member's token is printed once and only its hash is kept.
 */
import { ConsoleError } from '../../contract';
import { checkedMember } from '../../core/team';
import { EXIT, UsageError, dataDirFlag, parseFlags, pickSubcommand, type CliIo } from '../io';
import { TEAM, TEAM_ADD, TEAM_LIST, TEAM_REMOVE } from '../table';
import { openMembers, storeFlag } from './serve-team';

export async function teamCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, rest] = pickSubcommand(TEAM, argv);
  const def = sub === 'add' ? TEAM_ADD : sub === 'list' ? TEAM_LIST : TEAM_REMOVE;
  const { values, positionals } = parseFlags(rest, def);
  const v = values as { 'data-dir'?: string; store?: string; role?: string; json?: boolean };
  const store = v.store === undefined ? undefined : storeFlag(v.store);
  const dataDir = dataDirFlag(v['data-dir'], io, sub === 'list' ? 'read' : 'write');
  const name = positionals[0];
  if (sub !== 'list' && name === undefined) throw new UsageError('NAME: the member’s name is needed');
  if (sub === 'add') {
    if (v.role === undefined) throw new UsageError('--role: needed (viewer, operator or admin)');
    try {
      checkedMember(name!, v.role);
    } catch (err) {
      const field = (err as ConsoleError).details as { field?: string } | undefined;
      throw new UsageError(`${field?.field === 'role' ? '--role' : 'NAME'}: ${(err as Error).message}`);
    }
  }
  const members = await openMembers(dataDir, store);
  try {
    if (sub === 'add') {
      const { member, token } = await members.add(name!, v.role as 'viewer');
      if (v.json) io.stdout(`${JSON.stringify({ name: member.name, role: member.role, token })}\n`);
      else {
        io.stdout(`${token}\n`);
        io.stderr(`team add: ${member.name} (${member.role}) added; the token above is shown this once.\n`);
      }
    } else if (sub === 'list') {
      const list = await members.list();
      if (v.json) io.stdout(`${JSON.stringify(list)}\n`);
      else for (const m of list) io.stdout(`${m.name}\t${m.role}\t${m.created_at}\n`);
    } else {
      await members.remove(name!);
      io.stderr(`team remove: ${name!} removed; their token no longer opens the hub.\n`);
    }
  } catch (err) {
    if (err instanceof ConsoleError && (err.code === 'CONFLICT' || err.code === 'NOT_FOUND'))
      throw new UsageError(`NAME: ${err.message}`);
    throw err;
  } finally {
    await members.close();
  }
  return EXIT.OK;
}
