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
import {
  describeListenError,
  startConformance,
  summaryJson,
  toJunit,
  type ConformanceRunner,
  planCases,
} from '../../core/conformance';
import { EXIT, UsageError, dataDirFlag, numberFlagOrDefault, parseFlags, type CliIo } from '../io';
import { CONFORMANCE } from '../table';

export interface ConformanceOptions {
  bankAuthUrl: string;
  obj: string;
  sub: string;
  jwksPort: number;
  json: boolean;
  junit: string | null;
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

/** --bank-auth-url: the base URL of the bank's callbacks. */
export function bankAuthUrlFlag(value: string | undefined): string {
  if (value === undefined) {
    throw new UsageError(
      '--bank-auth-url: required (the base URL of your callbacks, e.g. https://staging.bank.example/auth)',
    );
  }
  return httpUrlFlag('bank-auth-url', value, 'https://staging.bank.example/auth');
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
  return {
    bankAuthUrl: bankAuthUrlFlag(values['bank-auth-url']),
    obj: required('obj', values.obj, 'a customer the bank knows: an IBAN or a phone number'),
    sub: required('sub', values.sub, 'the sub the bank expects with that obj'),
    jwksPort: numberFlagOrDefault(CONFORMANCE, 'jwks-port', values['jwks-port']),
    json: values.json === true,
    junit: values.junit ?? null,
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

/** `dets-console conformance`. */
export async function conformanceCommand(argv: string[], io: CliIo): Promise<number> {
  const options = parseConformanceFlags(argv, io);
  if (options.junit !== null) await checkJunitPath(options.junit);
  // The live table goes where it does not mix with the one JSON object.
  const out = options.json ? io.stderr : io.stdout;

  let runner: ConformanceRunner;
  try {
    runner = await startConformance({ jwksPort: options.jwksPort });
  } catch (err) {
    throw new UsageError(`--jwks-port: ${describeListenError(err, options.jwksPort)}`);
  }
  try {
    out(
      `JWKS: configure the bank under test to trust ${runner.jwksUrl}\n` +
        `Bank: ${options.bankAuthUrl}/user_auth, /key, /external_id  obj ${JSON.stringify(options.obj)}  sub ${JSON.stringify(options.sub)}\n` +
        `Running ${runner.total} cases…\n\n`,
    );
    // One id column for the whole table: the longest id of the plan, known before any case runs.
    let idWidth = Math.max(...planCases(1).map((c) => c.id.length));
    const report = await runner.run(
      { bankAuthUrl: options.bankAuthUrl, obj: options.obj, sub: options.sub },
      {
        onCase: (c, done, total) => {
          idWidth = Math.max(idWidth, c.id.length);
          out(caseLine(c, done, total, idWidth));
        },
      },
    );
    out(summaryLines(report));
    if (options.junit !== null) {
      try {
        await writeFile(options.junit, toJunit(report));
        out(`JUnit report: ${options.junit}\n`);
      } catch (err) {
        io.stderr(
          `dets-console conformance: --junit: cannot write ${options.junit}: ${err instanceof Error ? err.message : String(err)}\n`,
        );
        if (options.json) io.stdout(`${JSON.stringify(summaryJson(report))}\n`);
        return EXIT.USAGE;
      }
    }
    if (options.json) io.stdout(`${JSON.stringify(summaryJson(report))}\n`);
    return exitCodeFor(report);
  } finally {
    await runner.close();
  }
}
