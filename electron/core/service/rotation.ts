/**
 * Key rotation as one guided action (spec 5.3: "before a key expires, the new JWK is registered
 * through endpoint 1"; DESIGN.md "keys"):
 *
 *   generate  a next key (status 'next'), or reuse `next_kid` from an earlier attempt
 *   register  PUT …/jwk/{jwk_guid} with its public JWK, signed by the CURRENT active key
 *   prove     authenticate with a JWT signed by the NEW key
 *   activate  the new key becomes active, and the environment's active_kid
 *   retire    the old key is retired (kept, and registered with the service, until its expiry)
 *
 * There is never a moment where signing fails: the old key stays active, and the environment
 * unchanged, until the service has accepted a JWT signed by the new one. The first failure
 * stops the rotation (state 'failed') with the step's explanation and exchange id; the next key
 * stays 'next', so `rotate({next_kid})` resumes without generating again, and re-registers under
 * the same jwk_guid as before (a kid names one key: the sandbox, like the service, refuses it
 * under a second jwk_guid).
 */
import type { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import type { KeyInfo } from '../../contract/schemas/keys';
import type {
  Environment,
  Exchange,
  RotateInput,
  Rotation,
  RotationStep,
} from '../../contract/schemas/service';
import type { ExchangeHistory } from './history';
import { quote, requireTarget, type Target } from './target';
import type { ServiceOptions } from './types';

/** What the rotation needs from the client: its operations on an environment it has already read. */
export interface ClientInternals {
  options: ServiceOptions;
  now: () => number;
  history: ExchangeHistory;
  key(kid: string, role: string, env: Environment): Promise<KeyInfo>;
  updateJwk(target: Target, kid: string, signingKid: string, jwkGuid?: string): Promise<Exchange>;
  /** authenticate with a JWT the console composes itself, signed by `kid`. */
  authenticateWith(
    target: Target,
    kid: string,
  ): Promise<{ exchange: Exchange; session_token: string | null }>;
  /** The jwk_guid of the most recent successful registration of `kid` for the target's counterparty. */
  registeredJwkGuid(target: Target, kid: string): Promise<string | null>;
}

type StepId = RotationStep['id'];

const TITLES: Record<StepId, string> = {
  generate: 'Generate the next key',
  register: 'Register it with the service (PUT, signed by the current key)',
  prove: 'Authenticate with the new key',
  activate: 'Make the new key active',
  retire: 'Retire the old key',
};

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** What an exchange says, for a step's detail: status and the explanation or raw error. */
function exchangeSummary(exchange: Exchange): string {
  const answered = exchange.response ? `answered ${exchange.response.status}` : 'got no answer';
  const why = exchange.explanation ?? exchange.error;
  return `${exchange.request.method} ${exchange.request.url} ${answered}${why ? `: ${why}` : ''}`;
}

/**
 * Runs one rotation on the active environment. Missing configuration (no base_url,
 * counterparty_guid or active key) is thrown before any step; everything after is reported in
 * the steps.
 */
export async function runRotation(
  client: ClientInternals,
  input: z.output<typeof RotateInput>,
): Promise<Rotation> {
  const { options, now } = client;
  const startedAt = new Date(now()).toISOString();
  const target = requireTarget(await options.environments.get());
  const { env } = target;
  const fromKid = env.active_kid;
  if (fromKid === null) {
    throw new ConsoleError(
      'BAD_ARGUMENT',
      `${env.kind === 'sandbox' ? 'the sandbox environment' : `environment ${quote(env.name)}`} has no ` +
        'active_kid, so there is no current key to rotate from (registering the next key must be signed ' +
        `by it): set the key registered at onboarding with env.save {id: ${quote(env.id)}, active_kid: …}`,
      { field: 'active_kid' },
    );
  }
  await client.key(fromKid, "the environment's active key", env);
  if (input.next_kid === fromKid) {
    throw new ConsoleError(
      'BAD_ARGUMENT',
      `next_kid ${quote(fromKid)} is the active key itself: rotation moves to another key (omit next_kid to generate one)`,
      { field: 'next_kid' },
    );
  }

  const steps: RotationStep[] = (Object.keys(TITLES) as StepId[]).map((id) => ({
    id,
    title: TITLES[id],
    status: 'pending',
    detail: 'not run',
    exchange_id: null,
  }));
  const step = (id: StepId) => steps.find((s) => s.id === id) as RotationStep;
  let toKid: string | null = null;

  const finish = (state: Rotation['state']): Rotation => {
    for (const s of steps) {
      if (s.status === 'pending' && state === 'failed') s.detail = 'not run: the rotation stopped earlier';
    }
    const rotation: Rotation = {
      environment_id: env.id,
      from_kid: fromKid,
      to_kid: toKid,
      state,
      steps,
      started_at: startedAt,
      finished_at: new Date(now()).toISOString(),
    };
    options.events.emit('service.rotated', rotation);
    return rotation;
  };
  const fail = (id: StepId, detail: string, exchangeId: string | null = null): Rotation => {
    Object.assign(step(id), { status: 'failed', detail, exchange_id: exchangeId });
    return finish('failed');
  };
  const stillActive = `${quote(fromKid)} is still the active key and the environment is unchanged`;

  // 1. generate (or reuse)
  let next: KeyInfo;
  if (input.next_kid !== undefined) {
    try {
      next = await options.keys.get(input.next_kid);
    } catch (err) {
      return fail(
        'generate',
        `next_kid ${quote(input.next_kid)}: ${messageOf(err)}; omit next_kid to generate a new key`,
      );
    }
    toKid = next.kid;
    if (next.status === 'retired') {
      return fail(
        'generate',
        `kid ${quote(next.kid)} is retired and cannot become active again: omit next_kid to generate a new key`,
      );
    }
    const ignored = (['alg', 'bits', 'expires'] as const).filter((f) => input[f] !== undefined);
    Object.assign(step('generate'), {
      status: 'passed',
      detail:
        `reusing kid ${quote(next.kid)} (status ${next.status}, ${next.alg}, ${next.bits} bits): nothing generated` +
        (ignored.length ? `; ${ignored.join(', ')} ignored (they apply to a new key)` : ''),
    });
  } else {
    try {
      next = await options.keys.generate({
        status: 'next',
        label: `next key for ${env.kind === 'sandbox' ? 'the sandbox' : env.name}`,
        counterparty_guid: target.guid,
        ...(input.alg !== undefined ? { alg: input.alg } : {}),
        ...(input.bits !== undefined ? { bits: input.bits } : {}),
        ...(input.expires !== undefined ? { expires: input.expires } : {}),
      });
    } catch (err) {
      return fail('generate', `no key was generated: ${messageOf(err)}. ${stillActive}.`);
    }
    toKid = next.kid;
    Object.assign(step('generate'), {
      status: 'passed',
      detail:
        `generated kid ${quote(next.kid)} (${next.alg}, ${next.bits} bits` +
        `${next.expires ? `, expires ${next.expires}` : ''}) with status ${next.status}`,
    });
  }
  const retry = `retry with rotate({next_kid: ${quote(next.kid)}}) once the cause is fixed`;

  // 2. register: PUT, signed by the current key (spec 4.1 #1, 5.3)
  let register: Exchange;
  try {
    const earlier = await client.registeredJwkGuid(target, next.kid);
    register = await client.updateJwk(target, next.kid, fromKid, earlier ?? undefined);
  } catch (err) {
    return fail('register', `${messageOf(err)}. ${stillActive}; ${retry}.`);
  }
  if (register.ok) {
    Object.assign(step('register'), {
      status: 'passed',
      detail: `PUT …/jwk/${register.jwk_guid} answered ${register.response?.status}: kid ${quote(next.kid)} registered, signed by ${quote(fromKid)}`,
      exchange_id: register.id,
    });
  } else if (register.response?.status === 409) {
    // Already registered (e.g. under another jwk_guid by hand): the proof decides.
    Object.assign(step('register'), {
      status: 'skipped',
      detail: `${exchangeSummary(register)} The kid looks registered already; the next step proves whether the service accepts it.`,
      exchange_id: register.id,
    });
  } else {
    return fail('register', `${exchangeSummary(register)} ${stillActive}; ${retry}.`, register.id);
  }

  // 3. prove: the service accepts a JWT signed by the new key
  let proof: { exchange: Exchange; session_token: string | null };
  try {
    proof = await client.authenticateWith(target, next.kid);
  } catch (err) {
    return fail('prove', `${messageOf(err)}. ${stillActive}; ${retry}.`);
  }
  if (!proof.exchange.ok) {
    return fail('prove', `${exchangeSummary(proof.exchange)} ${stillActive}; ${retry}.`, proof.exchange.id);
  }
  Object.assign(step('prove'), {
    status: 'passed',
    detail: `authenticate with a JWT signed by ${quote(next.kid)} answered ${proof.exchange.response?.status} with a session_token`,
    exchange_id: proof.exchange.id,
  });

  // 4. activate: the environment first, then the key (the key store retires the key that was
  // active as it activates another); put the environment back if the key cannot follow.
  try {
    await options.environments.save({ id: env.id, active_kid: next.kid });
  } catch (err) {
    return fail(
      'activate',
      `the environment's active_kid could not be saved: ${messageOf(err)}. ${stillActive}; ${retry}.`,
    );
  }
  try {
    await options.keys.update({ kid: next.kid, status: 'active' });
  } catch (err) {
    const undo = await options.environments
      .save({ id: env.id, active_kid: fromKid })
      .then(() => `the environment's active_kid is back to ${quote(fromKid)}`)
      .catch(
        (e: unknown) =>
          `putting the environment's active_kid back to ${quote(fromKid)} failed too (${messageOf(e)})`,
      );
    return fail(
      'activate',
      `kid ${quote(next.kid)} could not be made active: ${messageOf(err)}; ${undo}. ${retry}.`,
    );
  }
  Object.assign(step('activate'), {
    status: 'passed',
    detail: `kid ${quote(next.kid)} is active: the environment signs with it from now on`,
  });

  // 5. retire: the old key is no longer used to sign, but kept until it expires
  let old: KeyInfo;
  try {
    // The key store retires the previously active key as it activates another; make sure of it.
    old = await options.keys.get(fromKid);
    if (old.status !== 'retired') old = await options.keys.update({ kid: fromKid, status: 'retired' });
  } catch (err) {
    Object.assign(step('retire'), {
      status: 'failed',
      detail:
        `kid ${quote(fromKid)} could not be retired: ${messageOf(err)}. The new key is active already; ` +
        `retire the old one by hand (keys.update {kid: ${quote(fromKid)}, status: "retired"})`,
    });
    return finish('done');
  }
  Object.assign(step('retire'), {
    status: 'passed',
    detail:
      `kid ${quote(fromKid)} retired: no longer used to sign, kept (and still registered with the service) ` +
      (old.expires ? `until it expires on ${old.expires}` : 'until you delete it (it has no expiry date)'),
  });
  return finish('done');
}
