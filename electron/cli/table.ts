/**
 * Every command of `dets-console`, its flags and what they mean: the one table the argument
 * parser (io.ts parseFlags), the numeric ranges (io.ts numberFlag) and every usage text
 * (usage.ts: the top-level one, each command's and each subcommand's `--help`) are made from, so
 * a flag cannot be accepted without being documented, nor documented without being accepted.
 *
 * DESIGN.md "Command line" fixes the interface. Its flags that later issues build (attach's
 * `--forward-to` and `--route`) are not here: the usage lists only what works.
 */
import { MAX_BANK_JWT_LIFETIME_SECONDS } from '../contract/schemas/sandbox';
import { SignJwtInput } from '../contract/schemas/service';
import { SPEC_NOTIFY_PREFIX } from '../contract/schemas/service-paths';
import { DEFAULT_JWKS_PORT } from '../core/conformance/jwks-server';
import {
  DATA_DIR,
  EXIT_CODES,
  HOST,
  PORT,
  READY_LINE,
  TIME_SCALE,
  type CommandDef,
  type GroupDef,
} from './table-parts';
import { SCENARIO } from './table-scenario';
import { ATTACH, TEAM } from './table-team';

export type { CommandDef, FlagDef, Flags, GroupDef, Range } from './table-parts';

const ttl = SignJwtInput.shape.ttl.unwrap();

export const SERVE = {
  name: 'serve',
  about: 'the console in browser mode: its UI, the bank endpoints and the sandbox, on one profile',
  flags: {
    'data-dir': DATA_DIR,
    host: HOST,
    'ui-port': {
      type: 'string',
      value: 'PORT',
      default: '7300',
      about: 'the UI (the URL it prints)',
      range: PORT,
    },
    'bank-port': {
      type: 'string',
      value: 'PORT',
      default: '7301',
      about: 'the bank endpoints: /user_auth, /key, /external_id, notifications',
      range: PORT,
    },
    'sandbox-port': {
      type: 'string',
      value: 'PORT',
      default: '7302',
      about: 'the sandbox service',
      range: PORT,
    },
    'no-sandbox': { type: 'boolean', about: 'do not run the sandbox' },
    'service-jwks-url': {
      type: 'string',
      value: 'URL',
      about: 'where the bank endpoints fetch the service’s keys (default: the sandbox’s)',
    },
    users: {
      type: 'string',
      value: 'FILE',
      about: 'test customers: a JSON array of {obj, sub?, external_id, phone, key, …}',
    },
    open: { type: 'boolean', about: 'open the UI in the default browser' },
    json: { type: 'boolean', about: 'print only the ready line {"ready":true,"ui":…,"bank":…,"sandbox":…}' },
    'public-url': {
      type: 'string',
      value: 'URL',
      about: 'where the real service reaches the bank endpoints',
    },
    tunnel: {
      type: 'string',
      value: 'ssh:[USER@]HOST[:PORT]|cloudflared|ngrok',
      about: 'make a public URL through that client (the ready line waits up to 30 s)',
    },
    'tls-cert': {
      type: 'string',
      value: 'FILE',
      about: 'serve the bank endpoints over HTTPS with this PEM certificate',
    },
    'tls-key': { type: 'string', value: 'FILE', about: '… and this PEM private key' },
    team: {
      type: 'boolean',
      about:
        'a team hub: member tokens and roles on the UI (off loopback it requires --tls-cert/--tls-key, which then serve the UI too)',
    },
    store: {
      type: 'string',
      value: 'postgres://…',
      about: 'keep events and members in this PostgreSQL database (several hubs can share one)',
    },
    'time-scale': TIME_SCALE,
  },
  together: [['tls-cert', 'tls-key']],
  notes: [
    READY_LINE,
    'SIGINT/SIGTERM: finish requests in flight, flush the event store, exit 0.',
    EXIT_CODES,
  ],
} as const satisfies CommandDef;

export const SANDBOX = {
  name: 'sandbox',
  about: 'the service simulator alone, for a bank backend under development or a CI job',
  flags: {
    'data-dir': DATA_DIR,
    host: HOST,
    port: { type: 'string', value: 'PORT', default: '7302', about: 'the sandbox service', range: PORT },
    json: { type: 'boolean', about: 'print only the ready line {"ready":true,"sandbox":…}' },
    'time-scale': TIME_SCALE,
  },
  notes: [READY_LINE, 'SIGINT/SIGTERM: finish requests in flight, exit 0.', EXIT_CODES],
} as const satisfies CommandDef;

const VAULT_NOTE =
  'A passphrase vault opens with DETS_VAULT_PASSPHRASE or, on a terminal, a prompt (never a flag).';

export const KEYS_GENERATE = {
  name: 'keys generate',
  about: 'a new RSA signing key, its private part sealed in the profile’s vault',
  flags: {
    alg: { type: 'string', value: 'ALG', default: 'RS256', about: 'RS256, RS384, RS512 or PS256' },
    bits: { type: 'string', value: 'BITS', default: '2048', about: 'the modulus: 2048, 3072 or 4096' },
    kid: { type: 'string', value: 'KID', about: 'its key id (default: a fresh one)' },
    label: { type: 'string', value: 'TEXT', about: 'a note for people' },
    expires: { type: 'string', value: 'YYYY-MM-DD', about: 'the last day it may sign' },
    json: { type: 'boolean', about: 'print {"kid","alg","jwk"} with the public JWK' },
    'data-dir': DATA_DIR,
  },
  notes: ['The first key becomes active; later ones are "next" until made active.', VAULT_NOTE, EXIT_CODES],
} as const satisfies CommandDef;

export const KEYS_LIST = {
  name: 'keys list',
  about: 'every key of the profile, its status and expiry',
  flags: {
    json: { type: 'boolean', about: 'print [{"kid","alg","status","expires"}]' },
    'data-dir': DATA_DIR,
  },
  notes: [EXIT_CODES],
} as const satisfies CommandDef;

export const KEYS_EXPORT = {
  name: 'keys export',
  args: 'KID',
  positionals: 1,
  about: 'the public part of a key only, on stdout',
  flags: {
    format: { type: 'string', value: 'jwk|jwks|pem', about: 'the spec’s JWK (default), a JWKS, or PEM' },
    'data-dir': DATA_DIR,
  },
  notes: [EXIT_CODES],
} as const satisfies CommandDef;

export const KEYS_IMPORT = {
  name: 'keys import',
  args: 'FILE',
  positionals: 1,
  about: 'a private key from FILE (- reads stdin): PEM PKCS#8 or PKCS#1, or a private JWK',
  flags: {
    kid: { type: 'string', value: 'KID', about: 'its key id (default: the JWK’s kid, else a fresh one)' },
    'data-dir': DATA_DIR,
  },
  notes: [VAULT_NOTE, EXIT_CODES],
} as const satisfies CommandDef;

export const KEYS_DELETE = {
  name: 'keys delete',
  args: 'KID',
  positionals: 1,
  about: 'removes a key and its sealed private part for good',
  flags: {
    yes: { type: 'boolean', required: true, about: 'required: the private part cannot be recovered' },
    'data-dir': DATA_DIR,
  },
  notes: [EXIT_CODES],
} as const satisfies CommandDef;

export const KEYS_ADD_EXTERNAL = {
  name: 'keys add-external',
  about: 'a key held elsewhere (HSM, cloud KMS, Vault): its public key and the command that signs with it',
  flags: {
    kid: { type: 'string', value: 'KID', required: true, about: 'the kid the service knows the key by' },
    public: {
      type: 'string',
      value: 'FILE(.pem|.json)',
      required: true,
      about: 'its public key: PEM (SPKI, PKCS#1, a certificate) or a public JWK',
    },
    'sign-command': {
      type: 'string',
      value: 'CMD',
      required: true,
      about:
        'the signing command, one line run without a shell: {in} the input file, {out} the signature file, {alg}',
    },
    'data-dir': DATA_DIR,
  },
  notes: [
    'The command must write the raw signature to {out} (or print it, raw or base64); it has 10 s. A test',
    'signature is made and verified before the key is stored. No secret in CMD: a PIN, password or token is',
    'refused; keep it in the tool’s own store (pkcs11-tool --pin env:VAR, aws/gcloud/az login, vault login).',
    'Recipes: docs/keys-held-elsewhere.md.',
    EXIT_CODES,
  ],
} as const satisfies CommandDef;

export const KEYS = {
  name: 'keys',
  about: 'the bank’s signing keys, held in the profile’s vault or elsewhere (HSM, KMS, Vault)',
  subcommands: [KEYS_GENERATE, KEYS_LIST, KEYS_EXPORT, KEYS_IMPORT, KEYS_DELETE, KEYS_ADD_EXTERNAL],
  notes: [VAULT_NOTE],
} as const satisfies GroupDef;

export const JWT_SIGN = {
  name: 'jwt sign',
  about: 'a bank JWT (spec 2.4: flow sign-in, obj, sub, iat now, exp iat + ttl); the token alone on stdout',
  flags: {
    kid: {
      type: 'string',
      value: 'KID',
      required: true,
      about: 'the signing key (see dets-console keys list)',
    },
    obj: {
      type: 'string',
      value: 'OBJ',
      required: true,
      about: 'the customer acted on: an IBAN or a phone number',
    },
    sub: {
      type: 'string',
      value: 'SUB',
      required: true,
      about: 'who initiates the operation (an employee or a technical user)',
    },
    ttl: {
      type: 'string',
      value: 'SECONDS',
      about: `its lifetime, 300 by default (the sandbox refuses over ${MAX_BANK_JWT_LIFETIME_SECONDS})`,
      range: { min: ttl.minValue ?? 1, max: ttl.maxValue ?? 86_400, unit: 'seconds' },
    },
    'data-dir': DATA_DIR,
  },
  notes: ['Hints (an IBAN whose checksum fails) go to stderr.', VAULT_NOTE, EXIT_CODES],
} as const satisfies CommandDef;

export const JWT_INSPECT = {
  name: 'jwt inspect',
  args: 'TOKEN',
  positionals: 1,
  about: 'decodes a token (- reads stdin) and runs every check the bank endpoints run',
  flags: {
    'jwks-url': {
      type: 'string',
      value: 'URL',
      about: 'verify the signature with the keys this JWKS publishes',
    },
    obj: { type: 'string', value: 'OBJ', about: 'the obj the token must carry' },
    sub: { type: 'string', value: 'SUB', about: 'the sub the token must carry' },
    json: { type: 'boolean', about: 'print the report as one JSON object' },
    'data-dir': DATA_DIR,
  },
  notes: ['Exit codes: 0 no check failed, 1 a check failed, 2 bad usage.'],
} as const satisfies CommandDef;

export const JWT = {
  name: 'jwt',
  about: 'compose and inspect JWTs',
  subcommands: [JWT_SIGN, JWT_INSPECT],
} as const satisfies GroupDef;

export const CONFORMANCE = {
  name: 'conformance',
  about:
    'plays the service against a bank’s callbacks (/user_auth, /key, /external_id; spec 4.2) and its notification endpoints (spec 4.3)',
  flags: {
    'bank-auth-url': {
      type: 'string',
      value: 'URL',
      about: 'the bank’s bank_auth_url: the callbacks are URL/user_auth, URL/key, URL/external_id',
    },
    obj: {
      type: 'string',
      value: 'OBJ',
      about: 'with --bank-auth-url: a customer the bank knows (an IBAN or a phone number)',
    },
    sub: {
      type: 'string',
      value: 'SUB',
      about: 'with --bank-auth-url: the sub the bank expects with that obj',
    },
    'jwks-port': {
      type: 'string',
      value: 'PORT',
      default: String(DEFAULT_JWKS_PORT),
      about: 'where the runner serves its JWKS on 127.0.0.1, for the bank under test to trust',
      range: PORT,
    },
    'notify-url': {
      type: 'string',
      value: 'URL',
      about: 'the host the service posts notifications to: runs the notify.* cases',
    },
    'notify-prefix': {
      type: 'string',
      value: 'PATH',
      default: SPEC_NOTIFY_PREFIX,
      about: 'the notification path prefix (the public guide uses /api/dcm/notify)',
    },
    'notify-probe': {
      type: 'string',
      value: 'URL',
      about: 'GET URL/<transaction_id> answers {"count": N}: every duplicate case then requires N = 1',
    },
    'expected-failures': {
      type: 'string',
      value: 'FILE',
      about: 'a JSON object {"<case id>": "<reason>"}: those failures do not fail the run',
    },
    json: {
      type: 'boolean',
      about: 'stdout: one JSON object {"passed","failed","cases":[…]}; progress on stderr',
    },
    junit: {
      type: 'string',
      value: 'FILE',
      about: 'also write a JUnit XML report to FILE (test case names: case ids)',
    },
    'data-dir': DATA_DIR,
  },
  together: [['bank-auth-url', 'obj', 'sub']],
  notes: [
    'Give --bank-auth-url (with --obj and --sub), --notify-url, or both.',
    'The bank under test trusts http://127.0.0.1:PORT/api/v1/.well-known/jwks.json (PORT: --jwks-port).',
    'Exit codes: 0 every case passed (or failed as --expected-failures lists), 1 a case failed, 2 bad usage.',
  ],
} as const satisfies CommandDef;

/** `events --limit`: the newest N; a million is past any profile's callback and refused caps. */
export const EVENTS_LIMIT_MAX = 1_000_000;

export const EVENTS = {
  name: 'events',
  about: 'the profile’s stored events, oldest first; it reads beside a running serve',
  flags: {
    'data-dir': DATA_DIR,
    kind: {
      type: 'string',
      value: 'notification|callback|exchange|audit|route',
      about: 'only events of this kind (audit: a team hub’s changes, by member)',
    },
    store: {
      type: 'string',
      value: 'postgres://…',
      about: 'read a team hub’s PostgreSQL store instead of the profile’s',
    },
    json: { type: 'boolean', about: 'one JSON object per line: id, at, kind, path, status, outcome, …' },
    since: {
      type: 'string',
      value: 'ISO|DURATION',
      about: 'only events at or after a time, or within 15m, 2h, 7d',
    },
    search: { type: 'string', value: 'TEXT', about: 'only events whose stored text holds TEXT, in any case' },
    environment: {
      type: 'string',
      value: 'ID|NAME',
      about: 'only callbacks of this environment (whose service published their kid)',
    },
    limit: {
      type: 'string',
      value: 'N',
      about: 'only the newest N of what is left (still printed oldest first)',
      range: { min: 1, max: EVENTS_LIMIT_MAX },
    },
    follow: { type: 'boolean', about: 'then print each new event as it is stored, until SIGINT/SIGTERM' },
  },
  notes: ['The filters combine.', EXIT_CODES],
} as const satisfies CommandDef;

export const STORE_RECOVER = {
  name: 'store recover',
  about:
    'copies what is readable of a damaged profile database into a fresh one (the damaged file is kept aside)',
  flags: { 'data-dir': DATA_DIR },
  notes: [
    'Run it while no console, serve or sandbox uses the profile.',
    'Exit codes: 0 recovered (or nothing was wrong), 1 nothing could be read, 2 bad usage.',
  ],
} as const satisfies CommandDef;

export const STORE = {
  name: 'store',
  about: 'the profile database',
  subcommands: [STORE_RECOVER],
} as const satisfies GroupDef;

/** Every command, in the order the top-level usage lists them (DESIGN.md's). */
export const TABLE: readonly (CommandDef | GroupDef)[] = [
  SERVE,
  SANDBOX,
  KEYS,
  JWT,
  CONFORMANCE,
  EVENTS,
  STORE,
  SCENARIO,
  TEAM,
  ATTACH,
];

export { SCENARIO, SCENARIO_FILES_MAX, SCENARIO_RECORD, SCENARIO_RUN } from './table-scenario';
export { ATTACH, TEAM, TEAM_ADD, TEAM_LIST, TEAM_REMOVE } from './table-team';

export function isGroup(def: CommandDef | GroupDef): def is GroupDef {
  return 'subcommands' in def;
}
