/**
 * A real environment's onboarding in the order it happens (issue 26 item 3; DESIGN.md
 * "Environments"): the public URL the service will call comes first (a tunnel, `--public-url` or
 * the engineer's own front), then one block of what to send the service team (the public JWK of
 * spec 2.1, bank_auth_url of spec 4.2, the sender and receiver hosts and the notification prefix
 * of spec 4.3), then the counterparty_guid they answer with (step 2's input). Steps 6 and 7 are
 * started by the service team on their side: {@link serviceRequest} words who starts them and the
 * message asking for it. Pure functions of the facts, so the page, the pack and the tests agree.
 */
import type {
  OnboardingValue,
  StepId,
  WalkthroughOnboarding,
  WalkthroughStep,
} from '../../contract/schemas/walkthrough';
import type { WalkthroughFacts } from './fact-types';

/** Spec 4.3's notification prefix, when the bank's setting could not be read. */
const SPEC_PREFIX = '/api/svc/notify';

/** What is missing before the block can be sent, or null. */
function missingOf(hasKey: boolean, publicUrl: string | null): string | null {
  if (!hasKey) return 'No signing key yet: create it (step 1); its public JWK is what the service registers.';
  if (!publicUrl) {
    return (
      'No public URL yet, and the bank URLs depend on it: start a tunnel (Bank page, or serve --tunnel), ' +
      "start with --public-url, or enter your own front's URL here. The listener's loopback URL cannot be " +
      'reached from the service’s network.'
    );
  }
  return null;
}

/** The whole block as one message to the service team. */
function blockText(envName: string, values: OnboardingValue[], missing: string | null): string {
  const get = (id: OnboardingValue['id']) => values.find((v) => v.id === id)?.value;
  const lines = [
    `Onboarding request for ${envName}`,
    '',
    'Please register our bank with the values below and answer with our counterparty_guid.',
    '',
  ];
  const jwk = get('public_jwk');
  if (jwk) lines.push('Public JWK (spec 2.1, public members only):', jwk, '');
  for (const id of ['bank_auth_url', 'bank_sender_url', 'bank_receiver_url'] as const) {
    const v = get(id);
    if (v) lines.push(`${id}: ${v}`);
  }
  const prefix = get('notify_prefix');
  if (prefix) {
    lines.push(
      `notification path prefix: ${prefix} (POST ${prefix}/pay-in, ${prefix}/pay-out, ${prefix}/transfer; spec 4.3)`,
    );
  }
  if (missing) lines.push('', `Not ready to send: ${missing}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The onboarding block of a real environment; null for the sandbox (the console onboards it).
 *
 * @example
 * const block = onboardingOf(facts);
 * block?.values.map((v) => v.id); // ['public_jwk', 'bank_auth_url', 'bank_sender_url', 'bank_receiver_url', 'notify_prefix']
 */
export function onboardingOf(facts: WalkthroughFacts): WalkthroughOnboarding | null {
  const { env, reach } = facts;
  if (env.kind !== 'real') return null;
  const key = facts.keys.find((k) => k.kid === env.active_kid) ?? null;
  const publicUrl = reach?.public_url ?? null;
  const prefix = facts.notifyPrefix ?? SPEC_PREFIX;
  const values: OnboardingValue[] = [];
  if (key) {
    values.push({ id: 'public_jwk', label: 'public JWK', value: JSON.stringify(key.public_jwk) });
  }
  if (publicUrl) {
    values.push(
      { id: 'bank_auth_url', label: 'bank_auth_url', value: reach?.bank_auth_url ?? publicUrl },
      { id: 'bank_sender_url', label: 'bank_sender_url', value: publicUrl },
      { id: 'bank_receiver_url', label: 'bank_receiver_url', value: publicUrl },
    );
  }
  values.push({ id: 'notify_prefix', label: 'notification prefix', value: prefix });
  const missing = missingOf(key !== null, publicUrl);
  return {
    public_url: publicUrl,
    public_url_source: reach?.public_url_source ?? null,
    missing,
    values,
    text: blockText(env.name, values, missing),
    counterparty_guid: env.counterparty_guid,
  };
}

/** Who starts steps 6 and 7 on a real environment. */
const WHO = 'The service team, on their side: the console cannot start it against a real service.';

/**
 * Steps 6 and 7 of a real environment: who starts them and the message asking the service team
 * to; null for the sandbox (the console starts them) and for the other steps.
 *
 * @example
 * serviceRequest(facts, 'sign-in')?.message; // 'Please run a sign-in (spec 4.4) for counterparty …'
 */
export function serviceRequest(
  facts: WalkthroughFacts,
  step: StepId,
): NonNullable<WalkthroughStep['service_request']> | null {
  if (facts.env.kind !== 'real') return null;
  const guid = facts.env.counterparty_guid ?? '<our counterparty_guid>';
  const url = facts.reach?.public_url ?? facts.bankUrl ?? '<our public URL>';
  const prefix = facts.notifyPrefix ?? SPEC_PREFIX;
  if (step === 'sign-in') {
    const kid = facts.composed?.kid ?? facts.env.active_kid;
    return {
      who: WHO,
      message:
        `Please run a sign-in (the registration flow, spec 4.4) for counterparty ${guid}: customer obj ` +
        `${facts.obj}, acting sub ${facts.sub}${kid ? `, our bank JWT signed with kid ${kid}` : ''}. The service ` +
        `should call GET ${url}/user_auth with X-Session-ID signed by a key in its JWKS; we answer the user ` +
        'data of spec 2.5 within 1 second. Please tell us when it ran and what the service saw.',
    };
  }
  if (step === 'notifications') {
    return {
      who: WHO,
      message:
        `Please send one notification of each kind for counterparty ${guid} (spec 4.3), each ` +
        '{"transaction_id": "<uuid>"}: pay-in to ' +
        `${url}${prefix}/pay-in, pay-out to ${url}${prefix}/pay-out and transfer to ${url}${prefix}/transfer. ` +
        'We answer 200 once each is stored. Please tell us when they were sent.',
    };
  }
  return null;
}
