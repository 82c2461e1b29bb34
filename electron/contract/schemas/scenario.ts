import { z } from 'zod';
import { ANSWER_CHECK_IDS } from './inspector';
import { MalformedNotification, NotifyEvent, NotifyPrefix } from './sandbox';
import { DeliveryFaults, Ladder } from './delivery';

/**
 * A scenario file (issue 28; DESIGN.md "Scenarios"): a flow a bank team keeps in git and runs on
 * every merge. Named steps, each a sign-in (the service calls /user_auth with a fresh
 * X-Session-ID), a callback to one route with a token variant, or a notification with the
 * sandbox's delivery faults, each with what it expects. `schemas/scenario.schema.json` is
 * generated from {@link ScenarioFile} (`node scripts/scenario-schema.mjs`) and a test keeps it
 * current, so an editor and the runner agree on what a file may say.
 */

/** The file format's version: a file of another version is refused, naming it. */
export const SCENARIO_VERSION = 1;
/** Where a file's `$schema` points when the console writes it (relative to the repository root). */
export const SCENARIO_SCHEMA_ID = 'https://dets-console.invalid/schemas/scenario.schema.json';

/**
 * The conformance flaws a callback step may send (the conformance plan's negative cases, spec
 * 4.2, 5.5, 7), each refused by the one token engine, plus `valid` and `rotated` (a valid token
 * signed by a key published after the run began: the bank must fetch the JWKS again).
 */
export const TOKEN_FLAWS = [
  'no-header',
  'not-jwt',
  'alg-none',
  'hs256-public-key',
  'wrong-key',
  'unknown-kid',
  'expired',
  'iat-future',
  'flow',
  'unknown-obj',
  'foreign-sub',
] as const;
export const TokenFlaw = z.enum(TOKEN_FLAWS);
export type TokenFlaw = z.infer<typeof TokenFlaw>;
export const TokenVariant = z.enum(['valid', 'rotated', ...TOKEN_FLAWS]);
export type TokenVariant = z.infer<typeof TokenVariant>;

export const CALLBACK_ROUTES = ['user_auth', 'key', 'external_id'] as const;
export const CallbackRoute = z.enum(CALLBACK_ROUTES);
export type CallbackRoute = z.infer<typeof CallbackRoute>;

/**
 * A step's name: its stable id in reports and JUnit (never a URL), and how later steps refer to
 * what it produced (`${payin.transaction_id}`).
 */
export const StepName = z
  .string()
  .regex(
    /^[A-Za-z][A-Za-z0-9_-]{0,63}$/,
    'a letter, then up to 63 letters, digits, "_" or "-" (it is the step’s id in reports and JUnit)',
  );

/**
 * Text that may hold references: `${name}` (a variable) or `${step.field}` (what an earlier step
 * produced: a sign-in's `external_id`, `phone`, `obj`, `sub`; a notification's `transaction_id`).
 */
export const RefText = z.string().min(1).max(500);

/** What an answer to a callback must be: judged by the one answer judge (answer/judge.ts). */
export const AnswerExpect = z.union([
  z.literal('pass').describe('200 and every check of the one answer judge passes'),
  z.literal('refused').describe('401: the bank refuses the token'),
  z.object({ fails: z.enum(ANSWER_CHECK_IDS).describe('the answer check that must fail first') }).strict(),
]);
export type AnswerExpect = z.infer<typeof AnswerExpect>;

export const SignInStep = z
  .object({
    name: StepName,
    kind: z.literal('sign-in'),
    title: z.string().max(300).optional(),
    obj: RefText.default('${obj}'),
    sub: RefText.default('${sub}'),
    expect: AnswerExpect.default('pass'),
  })
  .strict();

export const CallbackStep = z
  .object({
    name: StepName,
    kind: z.literal('callback'),
    title: z.string().max(300).optional(),
    route: CallbackRoute,
    token: TokenVariant.default('valid'),
    obj: RefText.default('${obj}'),
    sub: RefText.default('${sub}'),
    /** Valid calls one after another, each judged (the conformance budget cases send 10). */
    repeat: z.number().int().min(1).max(100).default(1),
    /** Default: `pass` for a valid or rotated token, `refused` for a flaw. */
    expect: AnswerExpect.optional(),
  })
  .strict();

export const NotificationStep = z
  .object({
    name: StepName,
    kind: z.literal('notification'),
    title: z.string().max(300).optional(),
    event: NotifyEvent,
    /** Absent: a fresh UUID each run; or a UUID, or a reference (`${payin.transaction_id}`). */
    transaction_id: RefText.optional(),
    malformed: MalformedNotification.optional(),
    /** The sandbox's delivery faults (DESIGN.md "Sandbox service", notify `faults`): the engine's own schema. */
    faults: DeliveryFaults.optional(),
    /**
     * The delivery engine's ladder: `service` (retried as the service does, the default for a
     * valid body) or `once` (the default for a malformed body, which the bank must refuse).
     */
    ladder: Ladder.optional(),
    /** Default: `accepted` (every copy answered 200), `refused` (a 4xx) for a malformed body. */
    expect: z.enum(['accepted', 'refused']).optional(),
  })
  .strict();

export const ScenarioStep = z.discriminatedUnion('kind', [SignInStep, CallbackStep, NotificationStep]);
export type ScenarioStep = z.infer<typeof ScenarioStep>;
export type SignInStep = z.infer<typeof SignInStep>;
export type CallbackStep = z.infer<typeof CallbackStep>;
export type NotificationStep = z.infer<typeof NotificationStep>;

export const ScenarioFile = z
  .object({
    $schema: z.string().max(500).optional(),
    version: z.literal(SCENARIO_VERSION),
    name: StepName.describe('the scenario’s id: JUnit’s classname is scenario.<name>'),
    description: z.string().max(2000).optional(),
    /** `${name}` in a step; `obj` and `sub` are what `--obj`/`--sub` replace. */
    variables: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/), z.string().max(500)).optional(),
    /** The notification path prefix (spec: /api/svc/notify; the public guide: /api/dcm/notify). */
    notify_prefix: NotifyPrefix.optional(),
    steps: z.array(ScenarioStep).min(1).max(500),
  })
  .strict();
export type ScenarioFile = z.infer<typeof ScenarioFile>;
/** A file as written, before defaults: what `record` produces and the JSON Schema describes. */
export type ScenarioFileInput = z.input<typeof ScenarioFile>;

export const ScenarioCaseStatus = z.enum(['passed', 'failed', 'skipped', 'expected-failure']);
export type ScenarioCaseStatus = z.infer<typeof ScenarioCaseStatus>;

/** One step's result: its name is its id (stable, URL-free). */
export const ScenarioCase = z.object({
  id: StepName,
  kind: z.enum(['sign-in', 'callback', 'notification']),
  title: z.string(),
  status: ScenarioCaseStatus,
  detail: z.string(),
  /** The answer check or token rule that decided a failure, when one did. */
  failed_check: z.string().nullable(),
  /** Listed in --expected-failures: its reason (the step failed as expected, or now passes). */
  expected_failure: z.string().nullable(),
  duration_ms: z.number(),
});
export type ScenarioCase = z.infer<typeof ScenarioCase>;

export const ScenarioReport = z.object({
  scenario: StepName,
  passed: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  expected_failures: z.number().int(),
  /** Steps listed as expected failures that passed: the list can lose them. */
  now_passing: z.array(z.string()),
  started_at: z.string(),
  duration_ms: z.number(),
  cases: z.array(ScenarioCase),
});
export type ScenarioReport = z.infer<typeof ScenarioReport>;

/**
 * The JSON Schema of a scenario file, as `schemas/scenario.schema.json` ships it: generated from
 * {@link ScenarioFile} (what a person writes, so defaulted members are optional).
 */
export function scenarioJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(ScenarioFile, { io: 'input', target: 'draft-2020-12' });
  return {
    $schema: generated.$schema,
    $id: SCENARIO_SCHEMA_ID,
    title: 'DETS Console scenario',
    ...generated,
  };
}

const RECORD_SHAPE = {
  name: StepName,
  event_ids: z.array(z.string().min(1).max(100)).min(1).max(1000).optional(),
  /** An environment's id (`sandbox`: the built-in one): every event its walkthrough shows. */
  walkthrough: z.string().min(1).max(100).optional(),
};
const oneSource = (v: { event_ids?: unknown; walkthrough?: unknown }) =>
  (v.event_ids === undefined) !== (v.walkthrough === undefined);
const ONE_SOURCE = { message: 'give exactly one of event_ids and walkthrough', path: ['event_ids'] };

/** `scenario.record`: stored events by id, or an environment's walkthrough, as a scenario named `name`. */
export const RecordInput = z.object(RECORD_SHAPE).strict().refine(oneSource, ONE_SOURCE);

export const Recorded = z.object({
  /** The scenario as a file holds it (no defaults filled in): valid against {@link ScenarioFile}. */
  scenario: z.record(z.string(), z.unknown()),
  /** Events that became no step, and why. */
  left_out: z.array(z.object({ id: z.string(), why: z.string() })),
});
export type Recorded = z.infer<typeof Recorded>;

/** A folder of scenario files, as the Scenarios page lists it. */
export const ScenarioFolder = z.object({
  folder: z.string(),
  files: z.array(
    z.object({
      /** The file's name inside the folder. */
      file: z.string(),
      name: z.string().nullable(),
      description: z.string().nullable(),
      steps: z.number().int(),
      /** Why the file cannot run (malformed: naming the step and field), null when it can. */
      error: z.string().nullable(),
    }),
  ),
});
export type ScenarioFolder = z.infer<typeof ScenarioFolder>;

/** A scenario file's name in a folder: plain, ending .json, no path. */
export const ScenarioFileName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,100}\.json$/, 'a plain file name ending in .json');

/** `scenario.save`: record, then write `folder/file` (never over an existing file). */
export const SaveScenarioInput = z
  .object({ ...RECORD_SHAPE, folder: z.string().min(1).max(4096), file: ScenarioFileName })
  .strict()
  .refine(oneSource, ONE_SOURCE);

/** `scenario.run`: one file of a folder, against the active environment's bank. */
export const RunScenarioInput = z
  .object({ folder: z.string().min(1).max(4096), file: ScenarioFileName })
  .strict();
