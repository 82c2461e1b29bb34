/**
 * `dets-console conformance --bank-auth-url URL --obj OBJ --sub SUB [--jwks-port 7303] [--json]
 * [--junit FILE]` (DESIGN.md "Command line"): plays the service against a bank's own callbacks
 * (spec 4.2) from a terminal or a CI pipeline. It serves its own JWKS at
 * `http://127.0.0.1:<jwks-port>/api/v1/.well-known/jwks.json` (the bank under test is configured
 * to trust that URL), runs every case of electron/core/conformance against `/user_auth`, `/key`
 * and `/external_id` under --bank-auth-url, and prints a line per case as it finishes.
 *
 * With --json the live lines go to stderr and stdout carries exactly one JSON object,
 * `{"passed":N,"failed":N,"cases":[{"id","title","status","detail"}]}`. --junit FILE also
 * writes JUnit XML for CI systems. Exit codes: 0 every case passed, 1 a case failed, 2 bad usage
 * (a one-line reason naming the flag).
 */
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CaseResult, ConformanceReport } from '../../contract/schemas/conformance';
import { errorField } from '../../contract/errors';
import { SandboxSettings } from '../../contract/schemas/sandbox';
import {
  applyExpectedFailures,
  describeListenError,
  EXPECTED_FAILURES_FIELD,
  expectedFailuresJson,
  expectedFailuresText,
  NOTIFY_CASES,
  planCases,
  readExpectedFailures,
  runNotifyCases,
  startConformance,
  summaryJson,
  toJunit,
  withNotifyCases,
  type ConformanceRunner,
  type ExpectedFailures,
} from '../../core/conformance';
import { DEFAULT_GIVE_UP_MS } from '../../core/conformance/runner';
import { EXIT, UsageError, dataDirFlag, numberFlagOrDefault, parseFlags, type CliIo } from '../io';
import { CONFORMANCE } from '../table';

export interface ConformanceOptions {
  /** The callbacks' target; null when only the notification cases run. */
  callbacks: { bankAuthUrl: string; obj: string; sub: string } | null;
  /** The notification cases' target (issue 27); null when they do not run. */
  notify: { url: string; prefix: string; probe: string | null } | null;
  jwksPort: number;
  json: boolean;
  junit: string | null;
  /** --expected-failures FILE, as given (read before the run). */
  expectedFailures: string | null;
}

function required(name: string, value: string | undefined, what: string): string {
  if (value === undefined) throw new UsageError(`--${name}: required (${what})`);
  const trimmed = value.trim();
  if (trimmed === '') throw new UsageError(`--${name}: must not be empty (${what})`);
  if (trimmed.length > 200) throw new UsageError(`--${name}: longer than 200 characters`);
  return trimmed;
}

/**
 * A URL flag (--bank-auth-url, --notify-url): an absolute http(s) URL without query, fragment or
 * credentials, any host; `example` shows what one looks like. The trailing slash is dropped.
 */
export function httpUrlFlag(flag: string, value: string | undefined, example: string): string {
  if (value === undefined) throw new UsageError(`--${flag}: required (e.g. ${example})`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--${flag}: "${value}" is not a URL (e.g. ${example})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--${flag}: "${value}" is not an http(s) URL`);
  }
  if (url.username || url.password) throw new UsageError(`--${flag}: must not carry credentials`);
  if (url.search || url.hash) throw new UsageError(`--${flag}: must have no query or fragment`);
  return value.replace(/\/+$/, '');
}

/** --bank-auth-url (or another URL flag, `flag`): the base URL the runner sends to. */
export function bankAuthUrlFlag(value: string | undefined, flag = 'bank-auth-url'): string {
  if (value === undefined) {
    throw new UsageError(
      `--${flag}: required (the base URL of your callbacks, e.g. https://staging.bank.example/auth)`,
    );
  }
  return httpUrlFlag(flag, value, 'https://staging.bank.example/auth');
}

/** --notify-prefix: a path like /api/svc/notify (the sandbox's setting has the same rule). */
function notifyPrefixFlag(value: string): string {
  const checked = SandboxSettings.shape.notify_path_prefix.safeParse(value);
  if (!checked.success)
    throw new UsageError(`--notify-prefix: "${value}" must be a path like /api/svc/notify`);
  return checked.data;
}

/** Parses and checks every flag without side effects. */
export function parseConformanceFlags(argv: string[], io: CliIo): ConformanceOptions {
  const { values } = parseFlags(argv, CONFORMANCE);
  // Every command takes --data-dir (DESIGN.md); the suite stores nothing in the profile, so only
  // a folder given by the flag is checked (a DETS_DATA_DIR set for other commands is no concern).
  if (values['data-dir'] !== undefined) dataDirFlag(values['data-dir'], io, 'read');
  if (values.junit !== undefined && values.junit.trim() === '') {
    throw new UsageError('--junit: must not be empty (a file to write the JUnit XML report to)');
  }
  const wantsCallbacks =
    values['bank-auth-url'] !== undefined || values.obj !== undefined || values.sub !== undefined;
  if (!wantsCallbacks && values['notify-url'] === undefined) {
    bankAuthUrlFlag(undefined); // names what is missing: --bank-auth-url (or --notify-url)
  }
  if (values['notify-url'] === undefined) {
    for (const flag of ['notify-prefix', 'notify-probe'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag}: needs --notify-url`);
    }
  }
  if (values['expected-failures'] !== undefined && values['expected-failures'].trim() === '') {
    throw new UsageError('--expected-failures: must not be empty (a JSON file {"<case id>": "<reason>"})');
  }
  return {
    callbacks: wantsCallbacks
      ? {
          bankAuthUrl: bankAuthUrlFlag(values['bank-auth-url']),
          obj: required('obj', values.obj, 'a customer the bank knows: an IBAN or a phone number'),
          sub: required('sub', values.sub, 'the sub the bank expects with that obj'),
        }
      : null,
    notify:
      values['notify-url'] === undefined
        ? null
        : {
            url: bankAuthUrlFlag(values['notify-url'], 'notify-url'),
            prefix: notifyPrefixFlag(values['notify-prefix'] ?? CONFORMANCE.flags['notify-prefix'].default),
            probe:
              values['notify-probe'] === undefined
                ? null
                : bankAuthUrlFlag(values['notify-probe'], 'notify-probe'),
          },
    jwksPort: numberFlagOrDefault(CONFORMANCE, 'jwks-port', values['jwks-port']),
    json: values.json === true,
    junit: values.junit ?? null,
    expectedFailures: values['expected-failures'] ?? null,
  };
}

const MARKS: Record<CaseResult['status'], string> = { passed: '✓', failed: '✗', skipped: '–' };

export function formatMs(ms: number): string {
  return ms < 10
    ? `${ms.toFixed(1)} ms`
    : ms < 10_000
      ? `${Math.round(ms)} ms`
      : `${(ms / 1000).toFixed(1)} s`;
}

/** One line per finished case: progress, status, id, time; the detail under a failure. */
function caseLine(c: CaseResult, done: number, total: number, idWidth: number): string {
  const n = String(total).length;
  const head = `[${String(done).padStart(n)}/${total}] ${MARKS[c.status]} ${c.status.padEnd(7)} ${c.id.padEnd(idWidth)} ${formatMs(c.duration_ms).padStart(8)}`;
  return c.status === 'passed' ? `${head}\n` : `${head}\n${indent(c.detail)}\n`;
}

export function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `        ${l}`)
    .join('\n');
}

function summaryLines(report: ConformanceReport): string {
  const lines = [
    '',
    `${report.cases.length} cases: ${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped in ${formatMs(report.duration_ms)}` +
      ` (the bank fetched the JWKS ${report.jwks_fetches} time${report.jwks_fetches === 1 ? '' : 's'})`,
  ];
  const failed = report.cases.filter((c) => c.status === 'failed');
  if (failed.length > 0) {
    lines.push('', 'Failed:');
    for (const c of failed) lines.push(`  ✗ ${c.id}: ${c.title}`, indent(c.detail), '');
  } else {
    lines.push(
      report.skipped === 0
        ? 'Every case passed: the service’s callbacks will be answered right.'
        : 'No case failed.',
    );
  }
  return `${lines.join('\n')}\n`;
}

/** --junit FILE: its folder must exist, and FILE must not be a folder (checked before the run). */
export async function checkJunitPath(file: string): Promise<void> {
  const dir = path.dirname(path.resolve(file));
  const dirStat = await stat(dir).catch(() => null);
  if (!dirStat?.isDirectory()) throw new UsageError(`--junit: folder ${dir} does not exist`);
  const fileStat = await stat(file).catch(() => null);
  if (fileStat?.isDirectory()) throw new UsageError(`--junit: ${file} is a folder, not a file`);
}

/** The exit code of a finished run (DESIGN.md): 1 when any case failed, else 0. */
export function exitCodeFor(report: Pick<ConformanceReport, 'failed'>): number {
  return report.failed > 0 ? EXIT.FAILED : EXIT.OK;
}

/** --expected-failures FILE, read before the run; a UsageError naming the flag when unusable. */
async function expectedFailuresFlag(file: string | null): Promise<ExpectedFailures | null> {
  if (file === null) return null;
  try {
    return await readExpectedFailures(file);
  } catch (err) {
    if (errorField(err) === EXPECTED_FAILURES_FIELD) throw new UsageError((err as Error).message);
    throw err;
  }
}

/** Plays the callback cases (when asked), then the notification cases (when asked): one report. */
async function playAll(
  options: ConformanceOptions,
  runner: ConformanceRunner | null,
  out: (text: string) => void,
): Promise<ConformanceReport> {
  const startedAt = Date.now();
  const total = (runner?.total ?? 0) + (options.notify ? NOTIFY_CASES.length : 0);
  let idWidth = Math.max(...planCases(1).map((c) => c.id.length), ...NOTIFY_CASES.map((c) => c.id.length));
  let done = 0;
  const onCase = (c: CaseResult) => {
    done += 1;
    idWidth = Math.max(idWidth, c.id.length);
    out(caseLine(c, done, total, idWidth));
  };
  const callbacks =
    runner && options.callbacks ? await runner.run(options.callbacks, { onCase: (c) => onCase(c) }) : null;
  if (!options.notify) return callbacks!;
  const cases = await runNotifyCases(
    {
      notifyUrl: options.notify.url,
      prefix: options.notify.prefix,
      ...(options.notify.probe ? { probeUrl: options.notify.probe } : {}),
      giveUpMs: DEFAULT_GIVE_UP_MS,
    },
    onCase,
  );
  return withNotifyCases(callbacks, cases, {
    notifyUrl: options.notify.url,
    startedAt,
    finishedAt: Date.now(),
  });
}

/** `dets-console conformance`. */
export async function conformanceCommand(argv: string[], io: CliIo): Promise<number> {
  const options = parseConformanceFlags(argv, io);
  if (options.junit !== null) await checkJunitPath(options.junit);
  const expected = await expectedFailuresFlag(options.expectedFailures);
  // The live table goes where it does not mix with the one JSON object.
  const out = options.json ? io.stderr : io.stdout;

  let runner: ConformanceRunner | null = null;
  if (options.callbacks) {
    try {
      runner = await startConformance({ jwksPort: options.jwksPort });
    } catch (err) {
      throw new UsageError(`--jwks-port: ${describeListenError(err, options.jwksPort)}`);
    }
  }
  try {
    if (runner && options.callbacks) {
      const cb = options.callbacks;
      out(
        `JWKS: configure the bank under test to trust ${runner.jwksUrl}\n` +
          `Bank: ${cb.bankAuthUrl}/user_auth, /key, /external_id  obj ${JSON.stringify(cb.obj)}  sub ${JSON.stringify(cb.sub)}\n`,
      );
    }
    if (options.notify) {
      out(
        `Notifications: ${options.notify.url}${options.notify.prefix}/pay-in, /pay-out, /transfer` +
          `${options.notify.probe ? `  probe ${options.notify.probe}/<transaction_id>` : '  (no --notify-probe: "applied once" is not checked)'}\n`,
      );
    }
    out(`Running ${(runner?.total ?? 0) + (options.notify ? NOTIFY_CASES.length : 0)} cases…\n\n`);
    const report = await playAll(options, runner, out);
    out(summaryLines(report));
    const verdict = expected ? applyExpectedFailures(report.cases, expected) : null;
    if (verdict) out(expectedFailuresText(verdict));
    const summary = {
      ...summaryJson(report),
      ...(verdict ? { expected_failures: expectedFailuresJson(verdict) } : {}),
    };
    if (options.junit !== null) {
      try {
        await writeFile(
          options.junit,
          toJunit(verdict ? { ...report, expected_failures: expectedFailuresJson(verdict) } : report),
        );
        out(`JUnit report: ${options.junit}\n`);
      } catch (err) {
        io.stderr(
          `dets-console conformance: --junit: cannot write ${options.junit}: ${err instanceof Error ? err.message : String(err)}\n`,
        );
        if (options.json) io.stdout(`${JSON.stringify(summary)}\n`);
        return EXIT.USAGE;
      }
    }
    if (options.json) io.stdout(`${JSON.stringify(summary)}\n`);
    return verdict ? verdict.exitCode : exitCodeFor(report);
  } finally {
    await runner?.close();
  }
}
