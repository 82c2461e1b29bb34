/**
 * The state of one key rotation (rotation.ts): its five steps and how they end. A plain object
 * with small functions over it, so each step is a function of its own.
 */
import type { KeyInfo } from '../../contract/schemas/keys';
import type { Exchange, Rotation, RotationStep } from '../../contract/schemas/service';
import type { ClientContext } from './client-context';
import { quote, type Target } from './target';

/** A rotation step's id: generate, register, prove, activate, retire (in that order). */
export type StepId = RotationStep['id'];

const TITLES: Record<StepId, string> = {
  generate: 'Generate the next key',
  register: 'Register it with the service (PUT, signed by the current key)',
  prove: 'Authenticate with the new key',
  activate: 'Make the new key active',
  retire: 'Retire the old key',
};

/** One rotation in progress. */
export interface RotationRun {
  readonly ctx: ClientContext;
  readonly target: Target;
  /** The active key the rotation moves from. */
  readonly fromKid: string;
  readonly startedAt: string;
  readonly steps: RotationStep[];
  /** The key the rotation moves to, once generated or found. */
  next: KeyInfo | null;
}

/** A new run with every step pending; `startedAt` is when rotate was called. */
export function startRun(
  ctx: ClientContext,
  target: Target,
  fromKid: string,
  startedAt: string,
): RotationRun {
  return {
    ctx,
    target,
    fromKid,
    startedAt,
    steps: (Object.keys(TITLES) as StepId[]).map((id) => ({
      id,
      title: TITLES[id],
      status: 'pending',
      detail: 'not run',
      exchange_id: null,
    })),
    next: null,
  };
}

/**
 * Sets a step's outcome.
 *
 * @example
 * settle(run, 'prove', 'passed', 'authenticate … answered 200 with a session_token', exchange.id);
 */
export function settle(
  run: RotationRun,
  id: StepId,
  status: RotationStep['status'],
  detail: string,
  exchangeId: string | null = null,
): void {
  Object.assign(run.steps.find((s) => s.id === id) as RotationStep, {
    status,
    detail,
    exchange_id: exchangeId,
  });
}

/** The rotation as it ends, emitted as `service.rotated`. */
export function finish(run: RotationRun, state: Rotation['state']): Rotation {
  for (const s of run.steps) {
    if (s.status === 'pending' && state === 'failed') s.detail = 'not run: the rotation stopped earlier';
  }
  const rotation: Rotation = {
    environment_id: run.target.env.id,
    from_kid: run.fromKid,
    to_kid: run.next?.kid ?? null,
    state,
    steps: run.steps,
    started_at: run.startedAt,
    finished_at: new Date(run.ctx.now()).toISOString(),
  };
  run.ctx.options.events.emit('service.rotated', rotation);
  return rotation;
}

/** The step failed: the rotation stops there. */
export function fail(
  run: RotationRun,
  id: StepId,
  detail: string,
  exchangeId: string | null = null,
): Rotation {
  settle(run, id, 'failed', detail, exchangeId);
  return finish(run, 'failed');
}

/** What a failed step says about the state it leaves behind. */
export const stillActive = (run: RotationRun) =>
  `${quote(run.fromKid)} is still the active key and the environment is unchanged`;

/** How to resume once the cause is fixed (the next key is kept, spec 5.3). */
export const retryHint = (kid: string) =>
  `retry with rotate({next_kid: ${quote(kid)}}) once the cause is fixed`;

/** An error's message, for a step's detail. */
export const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * What an exchange says, for a step's detail: status and the explanation or raw error.
 *
 * @example
 * exchangeSummary(exchange); // 'PUT https://…/jwk/7d1c… answered 401: the service does not know kid …'
 */
export function exchangeSummary(exchange: Exchange): string {
  const answered = exchange.response ? `answered ${exchange.response.status}` : 'got no answer';
  const why = exchange.explanation ?? exchange.error;
  return `${exchange.request.method} ${exchange.request.url} ${answered}${why ? `: ${why}` : ''}`;
}
