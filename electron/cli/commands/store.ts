/**
 * `dets-console store recover [--data-dir DIR]` (issue 12): copies everything readable of a
 * damaged profile database into a fresh one and keeps the damaged file aside (never deleted).
 * Prints what it did; exit 0 when the copy was made, 1 when nothing could be read.
 */
import { defaultDataDir } from '../../core/paths';
import { recoverDatabase } from '../../core/store/recover';
import { EXIT, UsageError, dataDirFlag, parseFlags, type CliIo } from '../io';

const FLAGS = { 'data-dir': { type: 'string' } } as const;

export async function storeCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'recover')
    throw new UsageError(`store: "${sub ?? ''}" is not a subcommand; use: store recover [--data-dir DIR]`);
  const { values } = parseFlags(rest, FLAGS);
  const dataDir = dataDirFlag(values['data-dir'], io, () => defaultDataDir(process.platform, io.env));
  const report = await recoverDatabase(dataDir, (n) => {
    if (n % 100_000 === 0) io.stderr(`store recover: ${n} events copied…\n`);
  });
  if (report.problems.length > 0)
    io.stderr(`store recover: the database was damaged: ${report.problems.slice(0, 5).join('; ')}\n`);
  for (const u of report.unreadable) io.stderr(`store recover: unreadable: ${u}\n`);
  io.stdout(
    `Recovered ${report.recovered} event${report.recovered === 1 ? '' : 's'} into a fresh database; the old file is kept as ${report.keptAs}\n`,
  );
  return EXIT.OK;
}
