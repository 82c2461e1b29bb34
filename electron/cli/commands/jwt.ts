/**
 * `dets-console jwt inspect TOKEN [--jwks-url URL] [--obj OBJ] [--sub SUB] [--json]` (DESIGN.md
 * "Command line"): the Inspector page's checks from a terminal or CI. The token goes through
 * the core's dispatch, so the argument is validated by the contract exactly as for the UI.
 * Exit 0 when no check failed, 1 when one did, 2 on bad usage.
 *
 * `dets-console jwt sign --kid KID --obj OBJ --sub SUB [--ttl SECONDS]`: the composer (spec
 * 2.4) with a key of the profile; the compact token alone on stdout (so `$(…)` captures it),
 * the composer's warnings on stderr.
 */
import type { CheckStatus, InspectReport } from '../../contract/schemas/inspector';
import { trimAsciiWhitespace } from '../../contract/schemas/token-whitespace';
import { createConsoleCore } from '../../core/console-core';
import { formatDuration } from '../../core/jwt/time';
import type { SignedJwt } from '../../contract/schemas/service';
import { EXIT, UsageError, dataDirFlag, numberFlag, parseFlags, pickSubcommand, type CliIo } from '../io';
import { JWT, JWT_INSPECT, JWT_SIGN } from '../table';
import { call, flagProblem, unlockVaultIfNeeded, withCore } from './keys';

/**
 * What `jwt` may use beyond CliIo: tests pass their own stdin and TTY answer; the real process
 * falls back to process.stdin and process.stdout.isTTY.
 */
export interface JwtIo extends CliIo {
  readStdin?(): Promise<string>;
  stdoutIsTTY?: boolean;
}

/** Largest token the contract takes, plus room to say it is too long rather than cut it. */
const STDIN_LIMIT = 64 * 1024 + 1024;

export async function jwtCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, rest] = pickSubcommand(JWT, argv);
  return sub === 'inspect' ? inspectCommand(rest, io as JwtIo) : signCommand(rest, io);
}

async function signCommand(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(argv, JWT_SIGN);
  const missing = (['kid', 'obj', 'sub'] as const).find((f) => values[f] === undefined);
  if (missing) {
    const what = { kid: 'the signing key', obj: 'the customer (an IBAN or phone)', sub: 'who initiates' };
    throw new UsageError(`--${missing}: required (${what[missing]})`);
  }
  const ttl = numberFlag(JWT_SIGN, 'ttl', values.ttl);
  const dataDir = dataDirFlag(values['data-dir'], io, 'write');
  return withCore(dataDir, io, async (core, session) => {
    await unlockVaultIfNeeded(core, io);
    await session.beforeWrite(); // the signed pair is recorded in the profile's database
    const signed = await call<SignedJwt>(
      core,
      'jwt.sign',
      {
        kid: values.kid,
        obj: values.obj,
        sub: values.sub,
        ...(ttl !== undefined ? { ttl } : {}),
      },
      { kid: '--kid', obj: '--obj', sub: '--sub', ttl: '--ttl' },
      { NOT_FOUND: '--kid', KEY_INVALID: '--kid' },
    );
    for (const warning of signed.warnings) io.stderr(`warning: ${warning}\n`);
    io.stdout(`${signed.token}\n`);
    return EXIT.OK;
  });
}

async function inspectCommand(argv: string[], io: JwtIo): Promise<number> {
  const { values, positionals } = parseFlags(argv, JWT_INSPECT);
  const [tokenArg] = positionals;
  if (tokenArg === undefined)
    throw new UsageError('inspect: missing TOKEN (a compact JWS, or - to read it from stdin)');
  const jwksUrl = values['jwks-url'];
  if (jwksUrl !== undefined && !isHttpUrl(jwksUrl)) {
    throw new UsageError(`--jwks-url: ${JSON.stringify(jwksUrl)} is not an http(s) URL`);
  }
  for (const flag of ['obj', 'sub'] as const) {
    if (values[flag] !== undefined && values[flag].trim() === '')
      throw new UsageError(`--${flag}: must not be empty`);
  }
  const dataDir = dataDirFlag(values['data-dir'], io, 'read');

  // ASCII white space only (a terminal's, a copied line's): a U+00A0 or U+FEFF around the token
  // stays and fails `structure` naming the character, as the bank endpoints would judge it; an
  // exit 2 would give such a token a verdict no endpoint gives (contract token-whitespace.ts).
  const read = tokenArg === '-' ? await (io.readStdin ?? readProcessStdin)() : tokenArg;
  const token = trimAsciiWhitespace(read);
  if (token === '') {
    throw new UsageError(
      tokenArg === '-' ? 'TOKEN: stdin was empty' : 'TOKEN: empty (a compact JWS, or - to read stdin)',
    );
  }

  const core = await createConsoleCore({ dataDir, host: 'cli' });
  try {
    const envelope = await core.dispatch('inspector.inspect', {
      token,
      ...(jwksUrl !== undefined ? { keySource: { type: 'jwks-url', url: jwksUrl } } : {}),
      ...(values.obj !== undefined ? { expectedObj: values.obj } : {}),
      ...(values.sub !== undefined ? { expectedSub: values.sub } : {}),
    });
    if (!envelope.ok) {
      if (envelope.error.code === 'BAD_ARGUMENT')
        throw new UsageError(flagProblem(envelope.error, FIELD_TO_FLAG));
      throw Object.assign(new Error(envelope.error.message), { code: envelope.error.code });
    }
    const report = envelope.value as InspectReport;
    if (values.json) io.stdout(`${JSON.stringify(report)}\n`);
    else io.stdout(renderReport(report, useColour(io)));
    return report.ok ? EXIT.OK : EXIT.FAILED;
  } finally {
    await core.close();
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The contract names a field ("keySource.url"); the user typed a flag. */
const FIELD_TO_FLAG: Record<string, string> = {
  token: 'TOKEN',
  'keySource.url': '--jwks-url',
  expectedObj: '--obj',
  expectedSub: '--sub',
};

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    total += buf.length;
    if (total > STDIN_LIMIT)
      throw new UsageError('TOKEN: stdin holds more than 64 KiB; a token is far shorter');
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
function useColour(io: JwtIo): boolean {
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') return false;
  return io.stdoutIsTTY ?? process.stdout.isTTY === true;
}

// ------------------------------------------------------------------------------- text output

interface Paint {
  heading(s: string): string;
  status(status: CheckStatus, s: string): string;
  dim(s: string): string;
}

const ANSI = (code: string) => (s: string) => `\u001b[${code}m${s}\u001b[0m`;
const colour: Paint = {
  heading: ANSI('1'),
  status: (status, s) =>
    status === 'passed' ? ANSI('32')(s) : status === 'failed' ? ANSI('31')(s) : ANSI('33')(s),
  dim: ANSI('2'),
};
const plain: Paint = { heading: (s) => s, status: (_status, s) => s, dim: (s) => s };

export const STATUS_MARK: Record<CheckStatus, string> = { passed: '✔', failed: '✘', skipped: '–' };

const indent = (text: string, by = '  ') =>
  text
    .split('\n')
    .map((l) => by + l)
    .join('\n');

/** The report as text: segments, header, claims, times, keys, then one line per check. */
export function renderReport(report: InspectReport, withColour: boolean): string {
  const p = withColour ? colour : plain;
  const out: string[] = [];

  out.push(p.heading('Token'));
  if (report.segments) {
    out.push(`  header     ${report.segments.header}`);
    out.push(`  payload    ${report.segments.payload}`);
    out.push(`  signature  ${report.segments.signature || p.dim('(empty)')}`);
  } else {
    out.push(`  ${p.dim('not three segments: see the structure check')}`);
  }

  out.push(
    '',
    p.heading('Header'),
    report.header ? indent(JSON.stringify(report.header, null, 2)) : `  ${p.dim('(not decoded)')}`,
  );
  out.push(
    '',
    p.heading('Claims'),
    report.payload ? indent(JSON.stringify(report.payload, null, 2)) : `  ${p.dim('(not decoded)')}`,
  );

  out.push('', p.heading(`Times ${p.dim(`(now ${report.inspectedAt})`)}`));
  if (report.times.length === 0) out.push(`  ${p.dim('no iat, exp or nbf')}`);
  const valueWidth = Math.max(
    0,
    ...report.times.map((t) => `${t.value}${t.unit === 'ms' ? ' ms' : ''}`.length),
  );
  for (const t of report.times) {
    const value = `${t.value}${t.unit === 'ms' ? ' ms' : ''}`.padEnd(valueWidth);
    out.push(`  ${t.name}  ${value}  ${t.iso ?? '(no date)'}  ${t.relative ?? ''}`.trimEnd());
  }
  if (report.lifetimeSeconds !== null) {
    const life = report.lifetimeSeconds;
    const words =
      life === 0
        ? 'zero'
        : life < 0
          ? `negative (exp ${formatDuration(life)} before iat)`
          : formatDuration(life);
    out.push(`  lifetime  ${words} (${life} s)`);
  }

  out.push('', p.heading('Keys'));
  if (report.keys.source === 'none')
    out.push(`  ${p.dim('none given: add --jwks-url URL to verify the signature')}`);
  else out.push(`  ${report.keys.error ?? report.keys.description}`);

  out.push('', p.heading('Checks'));
  const idWidth = Math.max(...report.checks.map((c) => c.id.length));
  for (const c of report.checks) {
    out.push(`  ${p.status(c.status, STATUS_MARK[c.status])} ${c.id.padEnd(idWidth)}  ${c.detail}`);
  }

  if (report.advice.length > 0) {
    out.push('', p.heading('Advice (does not change the verdict)'));
    const adviceWidth = Math.max(...report.advice.map((a) => a.id.length));
    for (const a of report.advice) {
      const mark = a.level === 'warning' ? p.status('failed', '!') : p.status('passed', STATUS_MARK.passed);
      out.push(`  ${mark} ${a.id.padEnd(adviceWidth)}  ${a.detail}`);
    }
  }

  const failed = report.checks.filter((c) => c.status === 'failed');
  const skipped = report.checks.filter((c) => c.status === 'skipped').length;
  const skippedNote = skipped > 0 ? ` (${skipped} skipped)` : '';
  out.push(
    '',
    failed.length === 0
      ? p.status('passed', `${STATUS_MARK.passed} no check failed${skippedNote}`)
      : p.status(
          'failed',
          `${STATUS_MARK.failed} ${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${failed.map((c) => c.id).join(', ')}`,
        ),
  );
  return `${out.join('\n')}\n`;
}
