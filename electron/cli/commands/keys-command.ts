/**
 * `dets-console keys SUBCOMMAND …`: picks the subcommand of the command table's `keys` and runs
 * it (keys.ts: the vault's keys; keys-external.ts: keys held elsewhere).
 */
import { UsageError, pickSubcommand, type CliIo } from '../io';
import { KEYS } from '../table';
import { deleteKey, exportKey, generate, importKey, list } from './keys';
import { addExternal } from './keys-external';

/** `dets-console keys SUBCOMMAND …`: the subcommands of the command table's `keys`. */
export async function keysCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, rest] = pickSubcommand(KEYS, argv);
  const subcommands: Record<string, ((argv: string[], io: CliIo) => Promise<number>) | undefined> = {
    generate,
    list,
    export: exportKey,
    import: importKey,
    delete: deleteKey,
    'add-external': addExternal,
  };
  const run = subcommands[sub];
  if (!run) throw new UsageError(`"${sub}" has no implementation`);
  return run(rest, io);
}
