/**
 * `dets-console store recover [--data-dir DIR]` (issue 12): copies everything readable of a
 * damaged profile database into a fresh one and keeps the damaged file aside (never deleted); a
 * sound one is left as it is. Prints what it did; exit 0 when the copy was made or nothing was
 * wrong, 1 when nothing could be read (the file is set aside all the same and a fresh, empty
 * database takes its place, so the profile starts).
 */
import { defaultDataDir } from '../../core/paths';
import { dbFile } from '../../core/store/db';
import { recoverDatabase } from '../../core/store/recover';
import { EXIT, UsageError, dataDirFlag, parseFlags, type CliIo } from '../io';

const FLAGS = { 'data-dir': { type: 'string' } } as const;

export async function storeCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'recover')
    throw new UsageError(
      sub === undefined
        ? 'a subcommand is needed; use: store recover [--data-dir DIR]'
        : `"${sub}" is not a subcommand; use: store recover [--data-dir DIR]`,
    );
  const { values } = parseFlags(rest, FLAGS);
  const dataDir = dataDirFlag(values['data-dir'], io, () => defaultDataDir(process.platform, io.env));
  const report = await recoverDatabase(dataDir, (n, pass) => {
    if (n % 100_000 === 0)
      io.stderr(`store recover: ${n} events ${pass === 'checking' ? 'read' : 'copied'}…\n`);
  });
  if (report.problems.length > 0)
    io.stderr(`store recover: the database was damaged: ${report.problems.slice(0, 5).join('; ')}\n`);
  for (const u of report.unreadable) io.stderr(`store recover: unreadable: ${u}\n`);
  const events = `${report.recovered} event${report.recovered === 1 ? '' : 's'}`;
  const rows = report.tables.reduce((n, t) => n + t.rows, 0);
  const others =
    rows === 0
      ? ''
      : ` and ${rows} row${rows === 1 ? '' : 's'} of the profile's other tables (${report.tables.map((t) => `${t.table} ${t.rows}`).join(', ')})`;
  if (!report.opened) {
    io.stdout(
      `Nothing could be read from ${dbFile(dataDir)}. It is kept as ${report.keptAs ?? ''}, and a fresh, empty database takes its place.\n`,
    );
    return EXIT.FAILED;
  }
  io.stdout(
    report.keptAs === null
      ? `The database ${dbFile(dataDir)} is sound: quick_check found nothing, and all ${events}${others} were read. Nothing was changed.\n`
      : `Recovered ${events}${others} into a fresh database; the old file is kept as ${report.keptAs}\n`,
  );
  return EXIT.OK;
}
