/**
 * `dets-console store recover [--data-dir DIR]` (issue 12): copies everything readable of a
 * damaged profile database into a fresh one and keeps the damaged file aside (never deleted); a
 * sound one is left as it is. Prints what it did; exit 0 when the copy was made or nothing was
 * wrong, 1 when nothing could be read (the file is set aside all the same and a fresh, empty
 * database takes its place, so the profile starts).
 */
import { dbFile } from '../../core/store/db';
import { progressLine, recoverDatabase, recoveryLines } from '../../core/store/recover';
import { EXIT, dataDirFlag, parseFlags, pickSubcommand, type CliIo } from '../io';
import { STORE, STORE_RECOVER } from '../table';
import { claimRefused } from './owner-core';

export async function storeCommand(argv: string[], io: CliIo): Promise<number> {
  const [, rest] = pickSubcommand(STORE, argv);
  const { values } = parseFlags(rest, STORE_RECOVER);
  const dataDir = dataDirFlag(values['data-dir'], io, 'write');
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
