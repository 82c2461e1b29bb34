/** The environment a signed call goes to, and what to set when it cannot go anywhere yet. */
import { ConsoleError } from '../../contract/errors';
import type { Environment } from '../../contract/schemas/service';

export const quote = (s: string) => JSON.stringify(s);
export const envLabel = (env: Environment) =>
  env.kind === 'sandbox' ? 'the sandbox environment' : `environment ${quote(env.name)}`;
export const saveHint = (env: Environment, field: string) =>
  `env.save {id: ${quote(env.id)}, ${field}: …} (or the Environments page)`;

/** An environment with what every signed call needs. */
export interface Target {
  env: Environment;
  base: string;
  guid: string;
}

/**
 * Spec 4.1 #2: where the bank checks its JWT (POST, CX-Authorization, no body). The service
 * client calls it; the walkthrough offers it as curl beside the composed JWT (step 3).
 */
export function authenticateUrl(target: Pick<Target, 'base' | 'guid'>): string {
  return `${target.base.replace(/\/+$/, '')}/api/v1/counterparty/${target.guid}/jwk/authenticate`;
}

/** Throws what to set and where when the environment cannot reach a counterparty yet. */
export function requireTarget(env: Environment): Target {
  if (env.base_url === null) {
    throw new ConsoleError(
      'BAD_ARGUMENT',
      env.kind === 'sandbox'
        ? 'the sandbox is not running, so the sandbox environment has no base_url: start it (the desktop app ' +
            'and `dets-console serve` start it unless --no-sandbox; `dets-console sandbox` runs it alone), or ' +
            'activate a real environment (env.activate)'
        : `${envLabel(env)} has no base_url: set it with ${saveHint(env, 'base_url')}`,
      { field: 'base_url' },
    );
  }
  if (env.counterparty_guid === null) {
    throw new ConsoleError(
      'BAD_ARGUMENT',
      `${envLabel(env)} has no counterparty_guid: set it with ${saveHint(env, 'counterparty_guid')}. It is the ` +
        'GUID the service gave the bank at onboarding' +
        (env.kind === 'sandbox'
          ? '; the sandbox answers it when you onboard on the Sandbox page (or POST /sandbox/v1/counterparties)'
          : ''),
      { field: 'counterparty_guid' },
    );
  }
  return { env, base: env.base_url, guid: env.counterparty_guid };
}
