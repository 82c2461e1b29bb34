/** The team hub tests' shared steps (issue 30): `team add` for a token, the hub's serve line. */
import { expect } from 'vitest';
import { runBuiltCli } from '../helpers';

/** `team add NAME --role ROLE --json` with `where` (--data-dir or --store); the token. */
export async function addMember(where: string[], name: string, role: string): Promise<string> {
  const r = await runBuiltCli(['team', 'add', name, '--role', role, '--json', ...where]);
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as { name: string; role: string; token: string };
  expect(out).toMatchObject({ name, role });
  return out.token;
}

/** `serve --team` on free ports without the sandbox, with `extra` (TLS, --store, --data-dir). */
export function hubArgs(extra: string[]): string[] {
  return ['serve', '--team', '--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox', ...extra];
}

/** The TLS flags of a hub. */
export function tlsArgs(certs: { cert: string; key: string }): string[] {
  return ['--tls-cert', certs.cert, '--tls-key', certs.key];
}
