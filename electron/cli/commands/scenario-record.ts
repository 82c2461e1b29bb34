/**
 * `dets-console scenario record (--events ID,… | --walkthrough ENV) --out FILE.json` (DESIGN.md
 * "Command line"; issue 28 item 2): writes a scenario from stored events, through the core's
 * `scenario.record` (the same recording the Callbacks page's "Save as scenario" makes). It reads
 * beside a running serve, as `events` does. The scenario's name is the file's, and an existing
 * file is never overwritten (exit 2 naming --out): a team's scenario is not lost to a typo.
 */
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Recorded } from '../../contract/schemas/scenario';
import { createConsoleCore } from '../../core/console-core';
import { EXIT, UsageError, dataDirFlag, parseFlags, type CliIo } from '../io';
import { SCENARIO_RECORD } from '../table';
import { flagProblem } from './keys';

const FIELD_TO_FLAG = { event_ids: '--events', walkthrough: '--walkthrough', name: '--out' };

/** The scenario's name from its file: `flows/Sign-in flow.json` → `Sign-in-flow`. */
export function scenarioNameOf(file: string): string {
  const base = path
    .basename(file)
    .replace(/\.json$/i, '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^[^A-Za-z]+/, '');
  return (base || 'scenario').slice(0, 64);
}

/** `dets-console scenario record`. */
export async function scenarioRecordCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, SCENARIO_RECORD);
  if ((values.events === undefined) === (values.walkthrough === undefined)) {
    throw new UsageError('--events: give exactly one of --events ID,… and --walkthrough ENV');
  }
  const out = values.out;
  if (out === undefined || out.trim() === '')
    throw new UsageError('--out: required (the scenario file to write)');
  const ids = values.events
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (ids !== undefined && ids.length === 0) throw new UsageError('--events: no event id given (ID,ID,…)');
  const dir = await stat(path.dirname(path.resolve(out))).catch(() => null);
  if (!dir?.isDirectory())
    throw new UsageError(`--out: folder ${path.dirname(path.resolve(out))} does not exist`);
  if (await stat(out).catch(() => null))
    throw new UsageError(`--out: ${out} exists already; the recording never overwrites a file`);
  const dataDir = dataDirFlag(values['data-dir'], io, 'read');
  const core = await createConsoleCore({ dataDir, host: 'cli' });
  try {
    const envelope = await core.dispatch('scenario.record', {
      name: scenarioNameOf(out),
      ...(ids ? { event_ids: ids } : { walkthrough: values.walkthrough }),
    });
    if (!envelope.ok) {
      if (envelope.error.code === 'BAD_ARGUMENT') {
        const field = (envelope.error.details as { field?: string } | undefined)?.field;
        throw new UsageError(
          field && field in FIELD_TO_FLAG && !(envelope.error.details as { issues?: unknown }).issues
            ? `${FIELD_TO_FLAG[field as keyof typeof FIELD_TO_FLAG]}: ${envelope.error.message.replace(/^[a-z_]+: /, '')}`
            : flagProblem(envelope.error, FIELD_TO_FLAG),
        );
      }
      throw Object.assign(new Error(envelope.error.message), { code: envelope.error.code });
    }
    const recorded = envelope.value as Recorded;
    await writeFile(out, `${JSON.stringify(recorded.scenario, null, 2)}\n`, { flag: 'wx' });
    const steps = (recorded.scenario.steps as unknown[]).length;
    io.stdout(`${out}: ${steps} step${steps === 1 ? '' : 's'} recorded\n`);
    for (const l of recorded.left_out) io.stderr(`scenario record: left out ${l.id}: ${l.why}\n`);
    return EXIT.OK;
  } finally {
    await core.close();
  }
}
