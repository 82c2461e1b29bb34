import type { MethodInput } from '../../../electron/contract';
import { derivedJwksUrl } from '../../../electron/contract/schemas/service-paths';

export interface FormValues {
  bankAuthUrl: string;
  obj: string;
  sub: string;
  jwksPort: string;
}

/** What a base URL field must be (the contract's rule), in words naming what is wrong; null when fine. */
export function urlProblem(value: string, required: string, example: string): string | null {
  if (value === '') return required;
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'Must be an http(s) URL';
    if (u.username || u.password) return 'Must not carry credentials';
    if (u.search || u.hash) return 'Must have no query or fragment';
  } catch {
    return `Not a URL (e.g. ${example})`;
  }
  return null;
}

export type FormErrors = Partial<Record<keyof FormValues, string>>;

/** The runner's JWKS URL for a port as typed (null when the port is not valid or is 0). */
export function jwksUrlFor(port: string): string | null {
  if (!/^\d+$/.test(port.trim()) || Number(port) > 65535 || Number(port) === 0) return null;
  return derivedJwksUrl(`http://127.0.0.1:${Number(port)}`);
}

/** Checks the form as the contract will (conformance.run), with messages naming the field. */
export function checkForm(v: FormValues): {
  errors: FormErrors;
  input: MethodInput<'conformance.run'> | null;
} {
  const errors: FormErrors = {};
  const url = v.bankAuthUrl.trim();
  const urlError = urlProblem(
    url,
    'Required: the base URL of your callbacks',
    'https://staging.bank.example/auth',
  );
  if (urlError) errors.bankAuthUrl = urlError;
  if (v.obj.trim() === '') errors.obj = 'Required: a customer your bank knows';
  else if (v.obj.trim().length > 200) errors.obj = 'At most 200 characters';
  if (v.sub.trim() === '') errors.sub = 'Required: the sub your bank expects with that obj';
  else if (v.sub.trim().length > 200) errors.sub = 'At most 200 characters';
  const port = v.jwksPort.trim();
  if (!/^\d+$/.test(port) || Number(port) > 65535)
    errors.jwksPort = 'A port number 0-65535 (0: any free port)';
  if (Object.keys(errors).length > 0) return { errors, input: null };
  return {
    errors,
    input: {
      bank_auth_url: url.replace(/\/+$/, ''),
      obj: v.obj.trim(),
      sub: v.sub.trim(),
      jwks_port: Number(port),
    },
  };
}

/** A word for a POSIX shell: as is when it is safe, else single-quoted. */
export const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** The same run as a CI step (DESIGN.md "Command line"), shell-quoted. */
export function cliCommand(v: FormValues): string {
  const q = shellQuote;
  const port = v.jwksPort.trim() === '7303' ? [] : ['--jwks-port', v.jwksPort.trim()];
  return [
    'npx dets-console conformance',
    '--bank-auth-url',
    q(v.bankAuthUrl.trim().replace(/\/+$/, '') || 'URL'),
    '--obj',
    q(v.obj.trim() || 'OBJ'),
    '--sub',
    q(v.sub.trim() || 'SUB'),
    ...port,
    '--junit conformance.xml',
  ].join(' ');
}

/**
 * The props of one of the page's text inputs: its id and note (`cf-<name>`, what Field expects),
 * its value with the whole of it on hover however narrow the field (issue 26 item 6), its error
 * state, and a change that clears the error.
 */
export function inputProps(
  name: string,
  value: string,
  error: string | undefined,
  change: (v: string) => void,
) {
  return {
    id: `cf-${name}`,
    value,
    title: value || undefined,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': `cf-${name}-note`,
    onChange: (e: { target: { value: string } }) => change(e.target.value),
    spellCheck: false,
    autoComplete: 'off',
  };
}
