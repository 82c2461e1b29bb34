/**
 * The signing command of a key held elsewhere, as a template (DESIGN.md "Keys held elsewhere"):
 * one line split into words as a POSIX shell would (quotes, backslashes), never run by a shell,
 * with placeholders the console fills for each signature.
 *
 * Threat model: the template is stored in the profile (keys.json) and shown on the Keys page, so
 * it must never hold a secret (issue 29 item 3). A PIN, password or token written into it is
 * refused, naming the argument but never echoing its value, with a pointer to the tool's own
 * credential store; the command runs with the console's environment, so `pkcs11-tool --pin
 * env:VAR`, AWS profiles, `gcloud auth`, `az login` and Vault's token helper all work. The
 * checks are heuristics on purpose biased towards refusing: a false refusal costs a rephrase, a
 * secret on disk costs a rotation.
 */
import path from 'node:path';
import { fieldProblem, splitShellWords } from '../common';
import { MAX_SIGN_WORDS } from './key-file';

/** What the console fills in, per signature. */
export const PLACEHOLDERS = {
  /** A file holding the JWS signing input (ASCII `header.payload`, RFC 7515 §5.1). */
  in: 'a file holding the signing input',
  /** Where the command writes the signature (raw bytes, or base64 text); else read from stdout. */
  out: 'the file the command writes the signature to',
  /** The key's JWS alg: RS256, RS384, RS512 or PS256. */
  alg: "the key's alg",
  /** The signing input itself, base64 (for tools that take the message as an argument). */
  in_base64: 'the signing input, base64',
  /** The hash of the signing input under the alg's hash, base64 (for tools that sign a digest). */
  digest_base64: "the signing input's digest, base64",
} as const;
export type Placeholder = keyof typeof PLACEHOLDERS;

const PLACEHOLDER = /\{([A-Za-z0-9_]+)\}/g;
const FIELD = 'sign_command';
/** Where to keep a credential instead; every message about a secret ends with this. */
export const CREDENTIAL_HINT =
  "keep it in the tool's own credential store instead: pkcs11-tool --pin env:VAR (the PIN in an " +
  'environment variable), an AWS profile or SSO (aws configure), gcloud auth login, az login, vault ' +
  "login (Vault's token helper). The command runs with the console's environment, so they work";

/** Flag names (without dashes, lower case) whose value is a credential. */
const SECRET_FLAGS = new Set([
  'pin',
  'so-pin',
  'puk',
  'password',
  'passwd',
  'pass',
  'passin',
  'passout',
  'passphrase',
  'token',
  'auth-token',
  'access-token',
  'secret',
  'client-secret',
  'api-key',
  'apikey',
  'access-key',
  'secret-key',
  'secret-access-key',
  'aws-secret-access-key',
  'session-token',
]);
/** NAME=VALUE words whose name says credential (`VAULT_TOKEN=…` through `env`, Vault's `token=…`). */
const SECRET_ASSIGNMENT =
  /^[A-Za-z0-9_.-]*(token|password|passwd|secret|pin|passphrase|api[_-]?key|access[_-]?key|credentials?)=(.+)$/i;
/** Values that say where the secret is, not what it is. */
const INDIRECT_VALUE = /^(env:|file:|@|fd:|\{[a-z_0-9]+\}$)/i;
/** Shapes of credentials, wherever they appear in a word. */
const CREDENTIAL_SHAPES: Array<[RegExp, string]> = [
  [/\bhvs\.[A-Za-z0-9_-]{20,}/, 'a HashiCorp Vault token'],
  [/\b(AKIA|ASIA)[0-9A-Z]{16}\b/, 'an AWS access key id'],
  [/\bya29\.[A-Za-z0-9_-]{20,}/, 'a Google OAuth access token'],
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/, 'a JWT'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'a private key'],
  [/\bBearer\s+\S{8,}/i, 'a bearer token'],
  [/\b(ghp|gho|glpat|xox[abprs])[-_][A-Za-z0-9_-]{10,}/, 'an access token'],
];
/** A run of token characters this long is looked at for entropy. */
const LONG_RUN = /[A-Za-z0-9+_=-]{32,}/g;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Bits per character above which a long literal is taken for a random credential. */
const ENTROPY_BITS = 4.2;
/** Hex-only runs at least this long are taken for a key or token (an Azure key version has 32). */
const LONG_HEX = 48;
/** Words a shell would treat as operators: without a shell they would be passed as arguments. */
const SHELL_OPERATORS = new Set(['|', '||', '&&', ';', '>', '>>', '<', '2>', '2>&1', '&']);

/** Shannon entropy of a string, in bits per character. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / s.length) * Math.log2(n / s.length);
  return bits;
}

/** The word's ordinal, for messages that must not echo the word. */
const nth = (i: number) => `word ${i + 1}`;

/** Why a literal word looks like a credential, or null. */
function credentialShape(word: string): string | null {
  for (const [shape, what] of CREDENTIAL_SHAPES) if (shape.test(word)) return what;
  for (const run of word.match(LONG_RUN) ?? []) {
    if (UUID.test(run)) continue;
    if (/^[0-9a-fA-F]+$/.test(run) ? run.length >= LONG_HEX : entropy(run) >= ENTROPY_BITS) {
      return `a long random-looking literal (${run.length} characters)`;
    }
  }
  return null;
}

/** A flag's name without dashes and its inline value (`--pin=1234`), or null for a non-flag. */
function flagOf(word: string): { name: string; inline: string | null } | null {
  const m = /^--?([A-Za-z][A-Za-z0-9-]*)(?:=(.*))?$/.exec(word);
  if (!m) return null;
  return { name: (m[1] as string).toLowerCase(), inline: m[2] ?? null };
}

/**
 * Why the template would hold a secret, or null. Never includes the secret itself.
 *
 * @example
 * templateSecretProblem(['pkcs11-tool', '--pin', '1234', '-i', '{in}']); // 'word 3 is the value of --pin …'
 * templateSecretProblem(['pkcs11-tool', '--pin', 'env:HSM_PIN', '-i', '{in}']); // null
 */
export function templateSecretProblem(words: readonly string[]): string | null {
  const program = path.basename(words[0] ?? '');
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as string;
    const flag = flagOf(word);
    const secretFlag =
      flag !== null && (SECRET_FLAGS.has(flag.name) || (flag.name === 'p' && program === 'pkcs11-tool'));
    if (flag && secretFlag) {
      const value = flag.inline ?? words[i + 1];
      if (value !== undefined && !INDIRECT_VALUE.test(value)) {
        const where = flag.inline !== null ? nth(i) : nth(i + 1);
        return `${where} is a literal value of ${word.split('=')[0]}`;
      }
    }
    const assignment = SECRET_ASSIGNMENT.exec(word);
    if (assignment && !INDIRECT_VALUE.test(assignment[2] as string)) {
      return `${nth(i)} sets ${word.split('=')[0]} to a literal value`;
    }
    const shape = credentialShape(word);
    if (shape) return `${nth(i)} looks like ${shape}`;
  }
  return null;
}

/**
 * The words of a signing command line, checked: it parses, names a program, says what to sign
 * (`{in}`, `{in_base64}` or `{digest_base64}`), uses only known placeholders, needs no shell,
 * and holds no secret. Every refusal is BAD_ARGUMENT on `sign_command`.
 *
 * @example
 * parseSignCommand('pkcs11-tool --module /usr/lib/softhsm/libsofthsm2.so --login --pin env:PIN --sign -m SHA256-RSA-PKCS -i {in} -o {out}');
 * // ['pkcs11-tool', '--module', …, '{in}', '-o', '{out}']
 */
export function parseSignCommand(line: string): string[] {
  let words: string[];
  try {
    words = splitShellWords(line);
  } catch (err) {
    throw fieldProblem(FIELD, `the signing command does not parse: ${(err as Error).message}`);
  }
  const program = words[0];
  if (program === undefined) throw fieldProblem(FIELD, 'the signing command is empty: name the program');
  if (words.length > MAX_SIGN_WORDS) {
    throw fieldProblem(FIELD, `the signing command has ${words.length} words; at most ${MAX_SIGN_WORDS}`);
  }
  if (program.includes('{')) {
    throw fieldProblem(FIELD, `the program (${JSON.stringify(program)}) cannot be a placeholder`);
  }
  const operator = words.find((w) => SHELL_OPERATORS.has(w));
  if (operator !== undefined) {
    throw fieldProblem(
      FIELD,
      `the signing command runs without a shell, so ${JSON.stringify(operator)} would reach the program as an ` +
        'argument: let the command write the signature to {out} (or print it), or put the pipeline in a script ' +
        'and name the script',
    );
  }
  const used = new Set<string>();
  for (const word of words) for (const m of word.matchAll(PLACEHOLDER)) used.add(m[1] as string);
  const unknown = [...used].filter((p) => !(p in PLACEHOLDERS));
  if (unknown.length > 0) {
    throw fieldProblem(
      FIELD,
      `unknown placeholder ${unknown.map((u) => `{${u}}`).join(', ')}: the console fills ` +
        Object.keys(PLACEHOLDERS)
          .map((p) => `{${p}}`)
          .join(', '),
    );
  }
  if (!used.has('in') && !used.has('in_base64') && !used.has('digest_base64')) {
    throw fieldProblem(
      FIELD,
      'the signing command never says what to sign: put {in} where it reads the input file ' +
        '(or {in_base64} / {digest_base64} where it takes the message or digest as text)',
    );
  }
  const secret = templateSecretProblem(words);
  if (secret !== null) {
    throw fieldProblem(
      FIELD,
      `the signing command would store a secret in the profile (${secret}); it is refused: ${CREDENTIAL_HINT}`,
    );
  }
  return words;
}

/** Whether the template names `{out}` (else the signature is read from stdout). */
export const writesOut = (words: readonly string[]) => words.some((w) => w.includes('{out}'));

/**
 * The template with every placeholder replaced.
 *
 * @example
 * fillTemplate(['tool', '-i', '{in}', '--alg={alg}'], { in: '/tmp/x/in', alg: 'RS256', … }); // ['tool', '-i', '/tmp/x/in', '--alg=RS256']
 */
export function fillTemplate(words: readonly string[], values: Record<Placeholder, string>): string[] {
  return words.map((w) =>
    w.replace(PLACEHOLDER, (whole, name: string) => values[name as Placeholder] ?? whole),
  );
}

/** The template as one line for messages and pages (words with spaces quoted). */
export function templateLine(words: readonly string[]): string {
  return words
    .map((w) => (/^[A-Za-z0-9_@%+=:,./{}-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}
