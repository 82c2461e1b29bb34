/**
 * Running a scenario (DESIGN.md "Scenarios"; issue 28 item 3): its steps in order, each with
 * fresh tokens and fresh or referenced transaction_ids, judged by the one token engine and the
 * one answer judge. A step whose reference cannot be resolved (the step it names failed) is
 * skipped, saying which; every other step runs whatever failed before it, so a report names
 * every failing step, not only the first.
 */
import type {
  ScenarioCase,
  ScenarioFile,
  ScenarioReport,
  ScenarioStep,
} from '../../contract/schemas/scenario';
import { runCallStep } from './call-step';
import type { RunContext, StepOutcome } from './context';
import { DEFAULT_NOTIFY_PREFIX, runNotifyStep } from './notify-step';
import { resolveRefs, type RefScope } from './refs';

export interface ScenarioHooks {
  /** Called as each step finishes, in order (for the live table). */
  onCase?: (c: ScenarioCase, done: number, total: number) => void;
}

/** A step's title: the file's, else what it does in a few words. */
export function stepTitle(step: ScenarioStep): string {
  if (step.title) return step.title;
  if (step.kind === 'sign-in') return 'sign-in: the service calls GET /user_auth with a fresh X-Session-ID';
  if (step.kind === 'callback')
    return `GET /${step.route} with ${step.token === 'valid' || step.token === 'rotated' ? `a ${step.token} token` : `the token flaw ${step.token}`}${step.repeat > 1 ? `, ${step.repeat} times` : ''}`;
  const faults = Object.entries(step.faults ?? {})
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(', ');
  return `${step.event} notification${step.malformed ? ` (${step.malformed})` : ''}${faults ? ` with ${faults}` : ''}`;
}

async function runStep(
  ctx: RunContext,
  file: ScenarioFile,
  step: ScenarioStep,
  scope: RefScope,
): Promise<StepOutcome> {
  let resolved: { obj?: string; sub?: string; transaction_id?: string };
  try {
    resolved =
      step.kind === 'notification'
        ? {
            ...(step.transaction_id === undefined
              ? {}
              : { transaction_id: resolveRefs(step.transaction_id, scope) }),
          }
        : { obj: resolveRefs(step.obj, scope), sub: resolveRefs(step.sub, scope) };
  } catch (err) {
    return { status: 'skipped', detail: `not run: ${(err as Error).message}`, failed_check: null };
  }
  if (step.kind === 'notification') {
    if (!ctx.target.notifyUrl)
      return { status: 'skipped', detail: 'not run: no --notify-url given', failed_check: null };
    return runNotifyStep(ctx, step, file.notify_prefix ?? DEFAULT_NOTIFY_PREFIX, resolved.transaction_id);
  }
  if (!ctx.target.bankAuthUrl)
    return { status: 'skipped', detail: 'not run: no --bank-auth-url given', failed_check: null };
  return runCallStep(ctx, step, resolved.obj!, resolved.sub!);
}

/** The file's variables with `--obj`/`--sub` over them. */
export function variablesOf(file: ScenarioFile, ctx: Pick<RunContext, 'target'>): Record<string, string> {
  return {
    ...file.variables,
    ...(ctx.target.obj === undefined ? {} : { obj: ctx.target.obj }),
    ...(ctx.target.sub === undefined ? {} : { sub: ctx.target.sub }),
  };
}

/**
 * Runs every step of `file` in order and reports each (before expected failures are applied:
 * expected.ts).
 *
 * @example
 * const report = await runScenario(ctx, parseScenario(text, file), { onCase: print });
 */
export async function runScenario(
  ctx: RunContext,
  file: ScenarioFile,
  hooks: ScenarioHooks = {},
): Promise<ScenarioReport> {
  const startedAt = ctx.keys.now();
  const scope: RefScope = { variables: variablesOf(file, ctx), outputs: new Map() };
  ctx.rotated = null;
  const cases: ScenarioCase[] = [];
  for (const step of file.steps) {
    const started = performance.now();
    const outcome = await runStep(ctx, file, step, scope);
    if (outcome.outputs)
      (scope.outputs as Map<string, Record<string, string>>).set(step.name, outcome.outputs);
    const c: ScenarioCase = {
      id: step.name,
      kind: step.kind,
      title: stepTitle(step),
      status: outcome.status,
      detail: outcome.detail,
      failed_check: outcome.failed_check,
      expected_failure: null,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
    };
    cases.push(c);
    hooks.onCase?.(c, cases.length, file.steps.length);
  }
  return tally(file.name, new Date(startedAt).toISOString(), ctx.keys.now() - startedAt, cases, []);
}

/** A report's counts from its cases. */
export function tally(
  scenario: string,
  startedAt: string,
  durationMs: number,
  cases: ScenarioCase[],
  nowPassing: string[],
): ScenarioReport {
  const count = (s: ScenarioCase['status']) => cases.filter((c) => c.status === s).length;
  return {
    scenario,
    passed: count('passed'),
    failed: count('failed'),
    skipped: count('skipped'),
    expected_failures: count('expected-failure'),
    now_passing: nowPassing,
    started_at: startedAt,
    duration_ms: durationMs,
    cases,
  };
}
