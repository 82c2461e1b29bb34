import type { MethodInput } from '../../../electron/contract';
import { derivedJwksUrl } from '../../../electron/contract/schemas/service-paths';

export interface FormValues {
  bankAuthUrl: string;
  obj: string;
  sub: string;
  jwksPort: string;
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
  if (url === '') errors.bankAuthUrl = 'Required: the base URL of your callbacks';
  else {
    try {
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') errors.bankAuthUrl = 'Must be an http(s) URL';
      else if (u.username || u.password) errors.bankAuthUrl = 'Must not carry credentials';
      else if (u.search || u.hash) errors.bankAuthUrl = 'Must have no query or fragment';
    } catch {
      errors.bankAuthUrl = 'Not a URL (e.g. https://staging.bank.example/auth)';
    }
  }
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

/** The same run as a CI step (DESIGN.md "Command line"), shell-quoted. */
export function cliCommand(v: FormValues): string {
  const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);
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
