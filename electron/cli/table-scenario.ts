/** The scenario commands in the command table (issue 28; DESIGN.md "Command line", "Scenarios"). */
import { DEFAULT_JWKS_PORT } from '../core/conformance/jwks-server';
import { DATA_DIR, EXIT_CODES, PORT, type CommandDef, type GroupDef } from './table-parts';

/** How many scenario files one `scenario run` takes. */
export const SCENARIO_FILES_MAX = 100;

export const SCENARIO_RECORD = {
  name: 'scenario record',
  about:
    'writes a scenario from stored events: a sign-in, the callbacks it caused, notifications with their repeats',
  flags: {
    events: {
      type: 'string',
      value: 'ID,…',
      about: 'the stored events to record, by id (see dets-console events)',
    },
    walkthrough: {
      type: 'string',
      value: 'ENV',
      about: 'or every event of that environment’s walkthrough (sandbox: the built-in one)',
    },
    out: { type: 'string', value: 'FILE.json', required: true, about: 'where to write the scenario' },
    'data-dir': DATA_DIR,
  },
  notes: ['Exactly one of --events and --walkthrough.', EXIT_CODES],
} as const satisfies CommandDef;

export const SCENARIO_RUN = {
  name: 'scenario run',
  args: 'FILE.json…',
  positionals: SCENARIO_FILES_MAX,
  about: 'replays scenario files against a bank with fresh tokens and transaction_ids, judging every step',
  flags: {
    'bank-auth-url': {
      type: 'string',
      value: 'URL',
      about: 'the bank’s bank_auth_url, for sign-in and callback steps',
    },
    'notify-url': {
      type: 'string',
      value: 'URL',
      about: 'the host the service posts notifications to, for notification steps',
    },
    obj: {
      type: 'string',
      value: 'OBJ',
      about: 'replaces the files’ obj variable: a customer the bank knows',
    },
    sub: { type: 'string', value: 'SUB', about: 'replaces the files’ sub variable' },
    'time-scale': {
      type: 'string',
      value: 'F',
      default: '1',
      about: 'multiplies every delivery wait and timeout (0 < F ≤ 1), so CI plays them in seconds',
    },
    'expected-failures': {
      type: 'string',
      value: 'FILE',
      about: 'a JSON object {"<step>": "<reason>"}: listed failures do not fail the run',
    },
    'jwks-port': {
      type: 'string',
      value: 'PORT',
      default: String(DEFAULT_JWKS_PORT),
      about: 'where the runner serves its JWKS on 127.0.0.1, for the bank under test to trust',
      range: PORT,
    },
    json: {
      type: 'boolean',
      about: 'stdout: a ready line {"ready":true,"jwks":…}, then one JSON report; the table on stderr',
    },
    junit: {
      type: 'string',
      value: 'FILE',
      about: 'also write JUnit XML: one test case per step, named by it',
    },
    'data-dir': DATA_DIR,
  },
  notes: [
    'The bank under test trusts http://127.0.0.1:PORT/api/v1/.well-known/jwks.json (PORT: --jwks-port).',
    'Exit codes: 0 every step passed (or failed as expected), 1 a step failed, 2 bad usage or a malformed file (naming the step and field).',
  ],
} as const satisfies CommandDef;

export const SCENARIO = {
  name: 'scenario',
  about: 'flows kept in git as files: record them from stored events, replay them against a bank',
  subcommands: [SCENARIO_RECORD, SCENARIO_RUN],
} as const satisfies GroupDef;
