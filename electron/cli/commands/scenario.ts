/**
 * `dets-console scenario record|run` (DESIGN.md "Command line" and "Scenarios"; issue 28).
 *
 * `run FILE.json… [--bank-auth-url URL] [--notify-url URL] [--obj --sub] [--time-scale F]
 * [--expected-failures FILE] [--json] [--junit FILE]` replays scenario files against a bank:
 * every file is read and checked first (a malformed one is exit 2 naming the step and field, and
 * nothing is sent), then the runner serves its JWKS on 127.0.0.1:--jwks-port (with --json, a
 * ready line says so), runs each file's steps printing a line per step, and ends with a summary.
 * With --json the table goes to stderr and stdout carries the ready line and one JSON report.
 * Exit codes: 0 every step passed or failed as expected, 1 a step failed, 2 bad usage or input.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScenarioCase, ScenarioFile, ScenarioReport } from '../../contract/schemas/scenario';
import { describeListenError, parseExpectedFailures } from '../../core/conformance';
import {
  applyExpectedFailures,
  engineDelivery,
  parseScenario,
  refsNeeded,
  runScenario,
  runSummary,
  scenarioJunit,
  startScenarioKeys,
  unknownIds,
  type NotificationDelivery,
  type ScenarioKeys,
} from '../../core/scenario';
import {
  EXIT,
  UsageError,
  dataDirFlag,
  numberFlagOrDefault,
  parseFlags,
  pickSubcommand,
  type CliIo,
} from '../io';
import { SCENARIO, SCENARIO_RUN } from '../table';
import { checkJunitPath, formatMs, httpUrlFlag, indent } from './conformance';
import { scenarioRecordCommand } from './scenario-record';

/** A scenario file is small: a flow of steps, not data. */
const MAX_FILE_BYTES = 1024 * 1024;
/** A callback with no complete answer after this long is given up (well past the 1 s budget). */
const GIVE_UP_MS = 5000;

export interface ScenarioRunOptions {
  files: Array<{ path: string; scenario: ScenarioFile }>;
  bankAuthUrl: string | null;
  notifyUrl: string | null;
  obj?: string;
  sub?: string;
  timeScale: number;
  expected: ReadonlyMap<string, string>;
  jwksPort: number;
  json: boolean;
  junit: string | null;
}

async function readSmall(file: string, flag: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`${flag}${file}: cannot read it (${err.code ?? err.message})`);
  });
  if (Buffer.byteLength(text) > MAX_FILE_BYTES) throw new UsageError(`${flag}${file}: larger than 1 MiB`);
  return text;
}

/** Reads a scenario file; a malformed one is a UsageError naming the step and field. */
async function loadScenario(file: string): Promise<ScenarioFile> {
  const text = await readSmall(file, '');
  try {
    return parseScenario(text, file);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** --time-scale F: 0 < F ≤ 1 (DESIGN.md "Sandbox service"). */
export function timeScaleFlag(value: string | undefined): number {
  if (value === undefined) return 1;
  const f = Number(value);
  if (value.trim() === '' || !Number.isFinite(f) || f <= 0 || f > 1) {
    throw new UsageError(`--time-scale: "${value}" must be a number with 0 < F ≤ 1 (e.g. 0.01)`);
  }
  return f;
}

/** Every flag and file read and checked, before anything listens or is sent. */
export async function parseScenarioRun(argv: string[], io: CliIo): Promise<ScenarioRunOptions> {
  const { values, positionals } = parseFlags(argv, SCENARIO_RUN);
  if (values['data-dir'] !== undefined) dataDirFlag(values['data-dir'], io, 'read');
  if (positionals.length === 0) throw new UsageError('a scenario file is needed: scenario run FILE.json…');
  const files = [];
  for (const file of positionals) files.push({ path: file, scenario: await loadScenario(file) });
  const text = (name: 'obj' | 'sub') => {
    const v = values[name];
    if (v !== undefined && v.trim() === '') throw new UsageError(`--${name}: must not be empty`);
    return v?.trim();
  };
  const options: ScenarioRunOptions = {
    files,
    bankAuthUrl:
      values['bank-auth-url'] === undefined
        ? null
        : httpUrlFlag('bank-auth-url', values['bank-auth-url'], 'https://staging.bank.example/auth'),
    notifyUrl:
      values['notify-url'] === undefined
        ? null
        : httpUrlFlag('notify-url', values['notify-url'], 'https://staging.bank.example'),
    ...(text('obj') === undefined ? {} : { obj: text('obj') }),
    ...(text('sub') === undefined ? {} : { sub: text('sub') }),
    timeScale: timeScaleFlag(values['time-scale']),
    expected: new Map(),
    jwksPort: numberFlagOrDefault(SCENARIO_RUN, 'jwks-port', values['jwks-port']),
    json: values.json === true,
    junit: values.junit ?? null,
  };
  checkNeeds(options);
  if (values['expected-failures'] !== undefined) {
    const source = values['expected-failures'];
    try {
      options.expected = parseExpectedFailures(await readSmall(source, '--expected-failures: '), source);
    } catch (err) {
      throw err instanceof UsageError
        ? err
        : new UsageError(`--expected-failures: ${(err as Error).message}`);
    }
    const unknown = unknownIds(
      options.expected,
      files.flatMap((f) => f.scenario.steps.map((s) => s.name)),
    );
    if (unknown.length > 0) {
      throw new UsageError(
        `--expected-failures: ${source}: no step is named ${unknown.map((u) => JSON.stringify(u)).join(', ')} in the files run`,
      );
    }
  }
  if (options.junit !== null) {
    if (options.junit.trim() === '') throw new UsageError('--junit: must not be empty');
    await checkJunitPath(options.junit);
  }
  return options;
}

/** A URL or variable a step needs and the command line does not give: exit 2 naming the flag. */
function checkNeeds(o: ScenarioRunOptions): void {
  for (const { path, scenario } of o.files) {
    const variables = {
      ...scenario.variables,
      ...(o.obj ? { obj: o.obj } : {}),
      ...(o.sub ? { sub: o.sub } : {}),
    };
    for (const need of refsNeeded(scenario)) {
      const where = `step "${need.step}" of ${path}`;
      if (need.what === 'bank' && o.bankAuthUrl === null)
        throw new UsageError(`--bank-auth-url: required by ${where}`);
      if (need.what === 'notify' && o.notifyUrl === null)
        throw new UsageError(`--notify-url: required by ${where}`);
      if (need.what === 'variable' && !(need.name in variables)) {
        const flag =
          need.name === 'obj' || need.name === 'sub'
            ? `--${need.name}: required`
            : `variable "${need.name}" is missing`;
        throw new UsageError(
          `${flag}: ${where} uses \${${need.name}} and the file's "variables" do not give it`,
        );
      }
    }
  }
}

const MARKS: Record<ScenarioCase['status'], string> = {
  passed: '✓',
  failed: '✗',
  skipped: '–',
  'expected-failure': '!',
};

function caseLine(
  file: string,
  c: ScenarioCase,
  done: number,
  total: number,
  expected: ReadonlyMap<string, string>,
): string {
  const n = String(total).length;
  const status = c.status === 'failed' && expected.has(c.id) ? 'expected-failure' : c.status;
  const head = `[${String(done).padStart(n)}/${total}] ${MARKS[status]} ${status.padEnd(16)} ${file}:${c.id.padEnd(24)} ${formatMs(c.duration_ms).padStart(8)}`;
  return c.status === 'passed' ? `${head}\n` : `${head}\n${indent(c.detail)}\n`;
}

function summaryText(reports: ScenarioReport[]): string {
  const s = runSummary(reports);
  const lines = [
    '',
    `${s.cases.length} steps: ${s.passed} passed, ${s.failed} failed, ${s.expected_failures} expected failures, ${s.skipped} skipped`,
  ];
  for (const c of s.cases.filter((c) => c.status === 'failed'))
    lines.push(`  ✗ ${c.scenario}:${c.id}: ${c.title}`);
  for (const id of s.now_passing)
    lines.push(`  listed in --expected-failures but passed now (remove it): ${id}`);
  return `${lines.join('\n')}\n`;
}

async function runAll(
  options: ScenarioRunOptions,
  keys: ScenarioKeys,
  delivery: NotificationDelivery,
  out: (t: string) => void,
): Promise<ScenarioReport[]> {
  const reports: ScenarioReport[] = [];
  for (const { path, scenario } of options.files) {
    out(`${path}: scenario ${scenario.name}, ${scenario.steps.length} steps\n`);
    const ctx = {
      keys,
      target: {
        bankAuthUrl: options.bankAuthUrl,
        notifyUrl: options.notifyUrl,
        ...(options.obj === undefined ? {} : { obj: options.obj }),
        ...(options.sub === undefined ? {} : { sub: options.sub }),
      },
      delivery,
      giveUpMs: GIVE_UP_MS,
      rotated: null,
    };
    const report = await runScenario(ctx, scenario, {
      onCase: (c, done, total) => out(caseLine(scenario.name, c, done, total, options.expected)),
    });
    reports.push(applyExpectedFailures(report, options.expected));
  }
  return reports;
}

/**
 * Runs every file through one delivery engine (issue 28 item 3: the sandbox's, with the run's
 * --time-scale) whose deliveries live in a temporary folder, removed with the engine at the end.
 */
async function runWithEngine(
  options: ScenarioRunOptions,
  keys: ScenarioKeys,
  out: (t: string) => void,
): Promise<ScenarioReport[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'dets-scenario-deliveries-'));
  const delivery = engineDelivery({ dataDir, timeScale: options.timeScale });
  try {
    return await runAll(options, keys, delivery, out);
  } finally {
    await delivery.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** `dets-console scenario run`. */
export async function scenarioRunCommand(argv: string[], io: CliIo): Promise<number> {
  const options = await parseScenarioRun(argv, io);
  const out = options.json ? io.stderr : io.stdout;
  let keys: ScenarioKeys;
  try {
    keys = await startScenarioKeys(options.jwksPort);
  } catch (err) {
    throw new UsageError(`--jwks-port: ${describeListenError(err, options.jwksPort)}`);
  }
  try {
    if (options.json) io.stdout(`${JSON.stringify({ ready: true, jwks: keys.jwksUrl })}\n`);
    out(`JWKS: configure the bank under test to trust ${keys.jwksUrl}\n`);
    const reports = await runWithEngine(options, keys, out);
    out(summaryText(reports));
    let code: number = reports.some((r) => r.failed > 0) ? EXIT.FAILED : EXIT.OK;
    if (options.junit !== null) {
      try {
        await writeFile(options.junit, scenarioJunit(reports));
        out(`JUnit report: ${options.junit}\n`);
      } catch (err) {
        io.stderr(
          `dets-console scenario: --junit: cannot write ${options.junit}: ${(err as Error).message}\n`,
        );
        code = EXIT.USAGE;
      }
    }
    if (options.json) io.stdout(`${JSON.stringify(runSummary(reports))}\n`);
    return code;
  } finally {
    await keys.close();
  }
}

/** `dets-console scenario record|run`. */
export async function scenarioCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, rest] = pickSubcommand(SCENARIO, argv);
  return sub === 'run' ? scenarioRunCommand(rest, io) : scenarioRecordCommand(rest, io);
}
