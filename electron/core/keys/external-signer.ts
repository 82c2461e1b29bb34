/**
 * Runs the signing command of a key held elsewhere (DESIGN.md "Keys held elsewhere") and
 * returns a signature that verifies against the key's public part, or SIGNER_FAILED naming the
 * key, the command and what went wrong (issue 29 item 4): not found, non-zero exit, timeout, an
 * empty or wrong-length signature, one that does not verify.
 *
 * Threat model: the command is the engineer's own (a PKCS#11 tool, a KMS CLI, Vault), so it is
 * trusted to run but not to be right: it may hang, flood its output, sign with another key or
 * another algorithm, or print an error as if it were a signature. So: no shell (spawn with an
 * argv array), stdin closed (a tool asking for a PIN fails instead of waiting), a 10 s deadline
 * after which its whole process group is killed, stdout and stderr read up to a bound, and every
 * signature verified with node:crypto against the stored public key before any token is built
 * from it: nothing a command returns reaches the service unverified. The signing input is not
 * secret (it is the token's header and payload); it lives in a private temporary folder that is
 * removed afterwards, whatever happens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createPublicKey, constants, verify, type KeyObject } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConsoleError, type SignerFailure } from '../../contract/errors';
import type { SigningAlg, SpecJwk } from '../../contract/schemas/keys';
import { fillTemplate, templateLine, writesOut } from './external-command';

/** DESIGN.md "Keys held elsewhere": the command has 10 s. */
export const SIGN_COMMAND_TIMEOUT_MS = 10_000;
/** More output than this is not a signature (an RSA-16384 signature in base64 is under 3 KiB). */
const MAX_OUTPUT_BYTES = 64 * 1024;
/** The end of stderr kept for the message. */
const MAX_STDERR_CHARS = 2000;

/** The hash of each alg (RFC 7518 §3.3, §3.5). */
const HASH: Record<SigningAlg, string> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  PS256: 'sha256',
};
/** RFC 7518 §3.5: PSS with MGF1 on the same hash and a salt as long as the hash. */
const PSS_SALT: Partial<Record<SigningAlg, number>> = { PS256: 32 };

/** What signing needs to know of a key held elsewhere. */
export interface ExternalKey {
  kid: string;
  alg: SigningAlg;
  public_jwk: SpecJwk;
  sign_command: readonly string[];
}

/** How to run it. */
export interface SignerRunOptions {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/** What a finished command left behind. */
interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
  timeoutMs: number;
}

/** The program's name as the template writes it, for messages. */
const programOf = (key: ExternalKey) => key.sign_command[0] ?? '';

function failure(key: ExternalKey, reason: SignerFailure, problem: string, stderr = ''): ConsoleError {
  // One line (the CLI prints one line per failure), quoted so its own full stop stays its own.
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const said = lines.length === 0 ? '' : `; it said on stderr: "${lines.join(' / ')}"`;
  return new ConsoleError(
    'SIGNER_FAILED',
    `key ${JSON.stringify(key.kid)} (held elsewhere) did not sign: its command ${programOf(key)} ${problem}${said}. ` +
      `The command: ${templateLine(key.sign_command)}`,
    { kid: key.kid, command: programOf(key), reason },
  );
}

/** Collects a stream up to `limit` bytes; what comes after is counted, not kept. */
function collect(stream: NodeJS.ReadableStream, limit: number): { bytes: () => Buffer; total: () => number } {
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  stream.on('data', (chunk: Buffer) => {
    total += chunk.length;
    if (kept < limit) {
      const part = chunk.subarray(0, limit - kept);
      chunks.push(part);
      kept += part.length;
    }
  });
  return { bytes: () => Buffer.concat(chunks), total: () => total };
}

/**
 * Kills the command's whole process group (it was started detached, as a group leader); where
 * groups cannot be signalled (Windows), the command itself.
 */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone, or no process groups here: the command itself, if it still runs.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** Runs argv without a shell; rejects SIGNER_FAILED when it cannot start. */
function run(key: ExternalKey, argv: string[], options: SignerRunOptions): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), {
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      shell: false,
      windowsHide: true,
    });
    const stdout = collect(child.stdout, MAX_OUTPUT_BYTES);
    const stderr = collect(child.stderr, MAX_OUTPUT_BYTES);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, options.timeoutMs);
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      killGroup(child);
      reject(
        err.code === 'ENOENT'
          ? failure(
              key,
              'not_found',
              `was not found (no such program${argv[0]?.includes('/') ? '' : ' on PATH'}): install it, or give its full path`,
            )
          : failure(key, 'spawn', `could not be started (${err.code ?? err.message})`),
      );
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // A tool that forked helpers into its group leaves none behind.
      killGroup(child);
      const err = stderr.bytes().toString('utf8');
      resolve({
        code,
        signal,
        stdout: stdout.bytes(),
        stderr: err.length > MAX_STDERR_CHARS ? `…${err.slice(-MAX_STDERR_CHARS)}` : err,
        timedOut,
        timeoutMs: options.timeoutMs,
      });
    });
  });
}

/** Reads what the command wrote to {out}, up to the bound; empty when it wrote nothing. */
async function readOut(file: string): Promise<Buffer> {
  try {
    const handle = await fs.open(file, 'r');
    try {
      const buffer = Buffer.alloc(MAX_OUTPUT_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch {
    return Buffer.alloc(0);
  }
}

/**
 * The signature in what a command returned: raw bytes of the modulus' length, else base64 or
 * base64url text (whitespace and Vault's `vault:vN:` prefix ignored) decoding to that length.
 * Null when it is neither.
 *
 * @example
 * decodeSignature(Buffer.from('vault:v1:' + sig.toString('base64')), 256); // sig
 */
export function decodeSignature(returned: Buffer, length: number): Buffer | null {
  if (returned.length === length) return returned;
  const text = returned
    .toString('latin1')
    .trim()
    .replace(/^vault:v\d+:/, '')
    .replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return null;
  const decoded = Buffer.from(text, 'base64');
  return decoded.length === length ? decoded : null;
}

/** Whether `signature` is the key's signature over `input` under its alg. */
export function verifiesWith(
  publicKey: KeyObject,
  alg: SigningAlg,
  input: Buffer,
  signature: Buffer,
): boolean {
  const salt = PSS_SALT[alg];
  const key =
    salt === undefined
      ? publicKey
      : { key: publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: salt };
  try {
    return verify(HASH[alg], input, key, signature);
  } catch {
    return false;
  }
}

/** A short description of bytes a command returned, for messages: length and how they start. */
function describeReturned(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  const printable = /^[\x20-\x7e\s]*$/.test(text);
  const head = printable
    ? JSON.stringify(text.trim().slice(0, 60))
    : `0x${bytes.subarray(0, 12).toString('hex')}`;
  return `${bytes.length} byte${bytes.length === 1 ? '' : 's'} (starting ${head}${bytes.length > 60 ? '…' : ''})`;
}

/** Judges a finished command: the verified signature, or SIGNER_FAILED saying why. */
function judge(
  key: ExternalKey,
  done: Finished,
  returned: Buffer,
  input: Buffer,
  publicKey: KeyObject,
): Buffer {
  if (done.timedOut) {
    const seconds = Math.round(done.timeoutMs / 100) / 10;
    throw failure(
      key,
      'timeout',
      `did not finish within its deadline (${seconds} s) and was stopped`,
      done.stderr,
    );
  }
  if (done.code !== 0) {
    const how =
      done.code === null ? `was killed by ${String(done.signal)}` : `exited with status ${done.code}`;
    throw failure(key, 'exit', how, done.stderr);
  }
  const from = writesOut(key.sign_command) ? 'wrote to {out}' : 'printed';
  if (returned.toString('latin1').trim() === '') {
    throw failure(key, 'empty', `exited 0 but ${from} no signature`, done.stderr);
  }
  const length = (publicKey.asymmetricKeyDetails?.modulusLength ?? 0) / 8;
  const signature = decodeSignature(returned, length);
  if (signature === null) {
    throw failure(
      key,
      'length',
      `${from} ${describeReturned(returned)}: a signature by this ${length * 8}-bit key is exactly ` +
        `${length} bytes (${key.alg}), raw or as base64 text`,
      done.stderr,
    );
  }
  if (!verifiesWith(publicKey, key.alg, input, signature)) {
    throw failure(
      key,
      'verify',
      `${from} a ${length}-byte signature that does not verify against the key's public part: it signs with ` +
        `another key or another algorithm than ${key.alg}, so nothing was built from it`,
      done.stderr,
    );
  }
  return signature;
}

/**
 * Signs `input` (the JWS signing input) with a key held elsewhere: writes it to a private
 * temporary folder, runs the command with the placeholders filled, and returns the signature
 * once it verifies. Rejects SIGNER_FAILED otherwise.
 *
 * @example
 * const sig = await signExternally(key, Buffer.from(`${header}.${payload}`), { env: process.env, timeoutMs: 10_000 });
 */
export async function signExternally(
  key: ExternalKey,
  input: Buffer,
  options: SignerRunOptions,
): Promise<Buffer> {
  const publicKey = createPublicKey({
    key: { kty: 'RSA', n: key.public_jwk.n, e: key.public_jwk.e },
    format: 'jwk',
  });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dets-sign-'));
  try {
    const inFile = path.join(dir, 'in');
    const outFile = path.join(dir, 'out');
    await fs.writeFile(inFile, input, { mode: 0o600 });
    const argv = fillTemplate(key.sign_command, {
      in: inFile,
      out: outFile,
      alg: key.alg,
      in_base64: input.toString('base64'),
      digest_base64: createHash(HASH[key.alg]).update(input).digest('base64'),
    });
    const done = await run(key, argv, options);
    const returned = writesOut(key.sign_command) ? await readOut(outFile) : done.stdout;
    return judge(key, done, returned, input, publicKey);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
