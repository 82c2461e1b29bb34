import { UsageError, type CliIo } from '../io';

/** `dets-console serve` (placeholder until the headless host lands). */
export async function serveCommand(_argv: string[], _io: CliIo): Promise<number> {
  throw new UsageError('serve: not available yet');
}
