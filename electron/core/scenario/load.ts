/**
 * Reading a scenario file (DESIGN.md "Scenarios"; issue 28 item 1): JSON, the zod schema the
 * shipped JSON Schema is generated from, then what a schema cannot say: step names unique, and
 * every `${step.field}` naming an earlier step that produces that field. A file that breaks any
 * of it is refused with one line naming the step and the field (the CLI's exit 2), before
 * anything is sent.
 */
import { ConsoleError } from '../../contract/errors';
import { ScenarioFile, type ScenarioStep } from '../../contract/schemas/scenario';
import { issuePath } from '../common';
import { refsIn, STEP_OUTPUTS } from './refs';

/** Text fields of a step that may hold references. */
const REF_FIELDS = ['obj', 'sub', 'transaction_id'] as const;

/** A refusal naming the file, the step (by name when it has one) and the field. */
function refused(source: string, where: string, problem: string, field: string): ConsoleError {
  return new ConsoleError('BAD_ARGUMENT', `${source}: ${where}${where ? ': ' : ''}${problem}`, { field });
}

/** "step "payin" (steps[2]).transaction_id" for an issue at ['steps', 2, 'transaction_id']. */
function stepWhere(raw: unknown, path: readonly PropertyKey[]): string {
  if (path[0] !== 'steps' || typeof path[1] !== 'number') return issuePath({ path });
  const steps = (raw as { steps?: unknown }).steps;
  const step = Array.isArray(steps) ? (steps[path[1]] as { name?: unknown } | undefined) : undefined;
  const name = typeof step?.name === 'string' ? `step "${step.name}" ` : '';
  const rest = issuePath({ path: path.slice(2) });
  return `${name}(steps[${path[1]}])${rest ? ` ${rest}` : ''}`;
}

/**
 * Parses and checks a scenario file's text; `source` names it in every refusal.
 *
 * @example
 * const scenario = parseScenario(await readFile(file, 'utf8'), file);
 */
export function parseScenario(text: string, source: string): ScenarioFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message : 'invalid';
    throw refused(source, '', `not valid JSON (${why})`, 'file');
  }
  const parsed = ScenarioFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const more = parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more)` : '';
    throw refused(source, stepWhere(raw, issue.path), `${issue.message}${more}`, issuePath(issue) || 'file');
  }
  checkSteps(parsed.data.steps, source);
  return parsed.data;
}

/** Unique names; references only to earlier steps and to fields they produce. */
function checkSteps(steps: readonly ScenarioStep[], source: string): void {
  const kinds = new Map<string, ScenarioStep['kind']>();
  steps.forEach((step, i) => {
    const where = `step "${step.name}" (steps[${i}])`;
    if (kinds.has(step.name)) {
      throw refused(
        source,
        where,
        'name: another step has this name (names are ids: unique)',
        `steps.${i}.name`,
      );
    }
    for (const field of REF_FIELDS) {
      const value = (step as Partial<Record<(typeof REF_FIELDS)[number], string>>)[field];
      if (value === undefined) continue;
      for (const ref of refsIn(value)) {
        if (ref.field === null) continue;
        const kind = kinds.get(ref.name);
        const problem =
          kind === undefined
            ? `${ref.raw}: no earlier step is named "${ref.name}"`
            : (STEP_OUTPUTS[kind] as readonly string[]).includes(ref.field)
              ? null
              : `${ref.raw}: a ${kind} step produces ${STEP_OUTPUTS[kind].join(', ')}, not ${ref.field}`;
        if (problem) throw refused(source, `${where} ${field}`, problem, `steps.${i}.${field}`);
      }
    }
    kinds.set(step.name, step.kind);
  });
}

/** What a step needs from the command line: the bank's URL, the notification host, a variable. */
export type Need =
  { step: string; what: 'bank' | 'notify' } | { step: string; what: 'variable'; name: string };

/**
 * Everything the steps of `file` need that the file itself may not give, in step order: checked
 * before a run (the CLI's exit 2 names the flag), so a run never stops half-way for a flag.
 */
export function refsNeeded(file: ScenarioFile): Need[] {
  const needs: Need[] = [];
  for (const step of file.steps) {
    needs.push({ step: step.name, what: step.kind === 'notification' ? 'notify' : 'bank' });
    for (const field of REF_FIELDS) {
      const value = (step as Partial<Record<(typeof REF_FIELDS)[number], string>>)[field];
      for (const ref of value === undefined ? [] : refsIn(value)) {
        if (ref.field === null) needs.push({ step: step.name, what: 'variable', name: ref.name });
      }
    }
  }
  return needs;
}
