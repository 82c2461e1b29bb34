import { UsageError, type CliIo } from '../io';

/** `dets-console jwt inspect|sign` (placeholder until the inspector lands). */
export async function jwtCommand(argv: string[], _io: CliIo): Promise<number> {
  throw new UsageError(`jwt ${argv[0] ?? ''}: not available yet`);
}
