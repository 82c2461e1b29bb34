/**
 * The Notifications section's form (issue 27 item 4): checked as `conformance.runNotify` will
 * check it (the contract's schema), each message under its field, and the same run as a CI
 * command (`conformance --notify-url`, DESIGN.md "Command line").
 */
import type { MethodInput } from '../../../electron/contract';
import { ConformanceNotifyInput } from '../../../electron/contract/schemas/conformance';
import { SPEC_NOTIFY_PREFIX } from '../../../electron/contract/schemas/service-paths';
import { shellQuote, urlProblem } from './conformance-form';

export interface NotifyValues {
  notifyUrl: string;
  notifyPrefix: string;
  probeUrl: string;
  /** The `--expected-failures` file's content as typed: `{"<case id>": "<reason>"}` or empty. */
  expectedFailures: string;
}

export type NotifyErrors = Partial<Record<keyof NotifyValues, string>>;

const FIELD_OF: Record<string, keyof NotifyValues> = {
  notify_url: 'notifyUrl',
  prefix: 'notifyPrefix',
  probe_url: 'probeUrl',
  expected_failures: 'expectedFailures',
};

/** The expected failures as typed: an object, nothing (empty), or why it is not one. */
function expectedOf(text: string): { value?: unknown; error?: string } {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return { error: 'A JSON object {"<case id>": "<reason>"}' };
    }
    return { value };
  } catch {
    return { error: 'Not JSON: a JSON object {"<case id>": "<reason>"}' };
  }
}

/**
 * Checks the form as the contract will (conformance.runNotify), with messages naming the field.
 *
 * @example
 * checkNotifyForm({ notifyUrl: '', notifyPrefix: '/api/svc/notify', probeUrl: '', expectedFailures: '' }).errors.notifyUrl;
 * // 'Required: the host the service posts notifications to'
 */
export function checkNotifyForm(v: NotifyValues): {
  errors: NotifyErrors;
  input: MethodInput<'conformance.runNotify'> | null;
} {
  const errors: NotifyErrors = {};
  const url = v.notifyUrl.trim();
  const urlError = urlProblem(
    url,
    'Required: the host the service posts notifications to',
    'https://bank.example',
  );
  if (urlError) errors.notifyUrl = urlError;
  const probe = v.probeUrl.trim();
  const probeError = probe === '' ? null : urlProblem(probe, '', 'http://127.0.0.1:8080/test/applied');
  if (probeError) errors.probeUrl = probeError;
  const expected = expectedOf(v.expectedFailures);
  if (expected.error) errors.expectedFailures = expected.error;
  const candidate = {
    notify_url: url.replace(/\/+$/, ''),
    prefix: v.notifyPrefix.trim() || SPEC_NOTIFY_PREFIX,
    ...(probe ? { probe_url: probe.replace(/\/+$/, '') } : {}),
    ...(expected.value !== undefined ? { expected_failures: expected.value } : {}),
  };
  const checked = ConformanceNotifyInput.safeParse(candidate);
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      const field = FIELD_OF[String(issue.path[0])];
      if (!field || errors[field]) continue;
      const where = issue.path.length > 1 ? `${String(issue.path[1])}: ` : '';
      errors[field] = `${where}${issue.message}`;
    }
  }
  if (Object.keys(errors).length > 0 || !checked.success) return { errors, input: null };
  return { errors, input: checked.data };
}

/** The same run as a CI step, shell-quoted (the expected failures go in a file of the team's). */
export function notifyCliCommand(v: NotifyValues): string {
  const prefix = v.notifyPrefix.trim();
  const probe = v.probeUrl.trim().replace(/\/+$/, '');
  return [
    'npx dets-console conformance',
    '--notify-url',
    shellQuote(v.notifyUrl.trim().replace(/\/+$/, '') || 'URL'),
    ...(prefix && prefix !== SPEC_NOTIFY_PREFIX ? ['--notify-prefix', shellQuote(prefix)] : []),
    ...(probe ? ['--notify-probe', shellQuote(probe)] : []),
    ...(v.expectedFailures.trim() ? ['--expected-failures', 'expected-failures.json'] : []),
    '--junit notify.xml',
  ].join(' ');
}
