/**
 * `dets-console store recover [--data-dir DIR]` (issue 12): copies everything readable of a
 * damaged profile database into a fresh one and keeps the damaged file aside (never deleted); a
 * sound one is left as it is. Prints what it did; exit 0 when the copy was made or nothing was
 * wrong, 1 when nothing could be read (the file is set aside all the same and a fresh, empty
 * database takes its place, so the profile starts).
 */
import { defaultDataDir } from '../../core/paths';
import { dbFile } from '../../core/store/db';
import { progressLine, recoverDatabase, recoveryLines } from '../../core/store/recover';
import { EXIT, UsageError, dataDirFlag, parseFlags, type CliIo } from '../io';
import { claimRefused } from './owner-core';

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
  const report = await recoverDatabase(
    dataDir,
    (n, pass) => {
      const line = progressLine(n, pass);
      if (line) io.stderr(`store recover: ${line}\n`);
    },
    {
      onWaitForWriters: () =>
        io.stderr('store recover: waiting for one-shot commands writing the profile (jwt sign) to finish…\n'),
    },
  ).catch((err: unknown) => {
    // An owner (the app, serve, sandbox) holds the profile: exit 2 naming it, nothing changed.
    throw claimRefused(err) ?? err;
  });
  const lines = recoveryLines(report, dbFile(dataDir));
  for (const line of lines.slice(0, -1)) io.stderr(`store recover: ${line}\n`);
  io.stdout(`${lines.at(-1)!}\n`);
  if (!report.opened) return EXIT.FAILED;
  return EXIT.OK;
}
