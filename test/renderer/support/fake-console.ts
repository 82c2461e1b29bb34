import { vi } from 'vitest';
import type { MethodInput, MethodOutput } from '../../../electron/contract';
import type { InspectReport } from '../../../electron/contract/schemas/inspector';
import type { KeyInfo, VaultStatus } from '../../../electron/contract/schemas/keys';
import type { Environment, Exchange, Rotation, SignedJwt } from '../../../electron/contract/schemas/service';
import { contractApi } from './contract-api';
import { report } from './render';

/**
 * A ConsoleApi double for the issue-4 pages (vault, keys, composer, environments, service): an
 * in-memory profile whose calls are spies, and `emit` to play the core's live events. The UI is
 * tested for what it sends and shows; the real core is tested at its own level and end to end.
 * The facade is the contract's (contract-api.ts): what the page sends and what these spies answer
 * are both checked against the method's schemas.
 */

export const SANDBOX_URL = 'http://127.0.0.1:7302';
export const GUID = '3f2c7a10-5b1e-4c3a-9a55-0d6e2f1b7c44';
export const JWK_GUID = '8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
export const FINGERPRINT = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';

export function keyInfo(kid: string, extra: Partial<KeyInfo> = {}): KeyInfo {
  return {
    kid,
    alg: 'RS256',
    bits: 2048,
    label: '',
    counterparty_guid: null,
    status: 'active',
    created_at: '2025-01-01T12:00:00.000Z',
    expires: null,
    expires_in_days: null,
    fingerprint: FINGERPRINT,
    public_jwk: { alg: 'RS256', e: 'AQAB', kid, kty: 'RSA', n: `n-of-${kid}`, use: 'sig' },
    holder: 'vault',
    sign_command: null,
    ...extra,
  };
}

export function sandboxEnv(extra: Partial<Environment> = {}): Environment {
  return {
    id: 'sandbox',
    name: 'Sandbox',
    kind: 'sandbox',
    base_url: SANDBOX_URL,
    counterparty_guid: null,
    active_kid: null,
    default_obj: null,
    default_sub: null,
    service_jwks_url: null,
    effective_jwks_url: `${SANDBOX_URL}/api/v1/.well-known/jwks.json`,
    ...extra,
  };
}

export function realEnv(extra: Partial<Environment> = {}): Environment {
  return {
    id: 'env-test',
    name: 'Bank UAT',
    kind: 'real',
    base_url: 'https://dets.example.com',
    counterparty_guid: GUID,
    active_kid: null,
    default_obj: null,
    default_sub: null,
    service_jwks_url: null,
    effective_jwks_url: 'https://dets.example.com/api/v1/.well-known/jwks.json',
    ...extra,
  };
}

let exchangeCount = 0;
export function exchange(extra: Partial<Exchange> = {}): Exchange {
  exchangeCount += 1;
  return {
    id: `ex-${exchangeCount}`,
    at: new Date(Date.UTC(2025, 0, 1, 12, 0, exchangeCount)).toISOString(),
    environment_id: 'sandbox',
    operation: 'authenticate',
    request: {
      method: 'POST',
      url: `${SANDBOX_URL}/api/v1/counterparty/${GUID}/jwk/authenticate`,
      headers: { 'CX-Authorization': 'eyJhbGciOiJSUzI1NiJ9.eyJmbG93Ijoic2lnbi1pbiJ9.c2ln' },
      body: null,
    },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"session_token":"eyJ.eyJ.sig"}',
    },
    duration_ms: 42,
    ok: true,
    error: null,
    explanation: null,
    curl: `curl -X POST '${SANDBOX_URL}/api/v1/counterparty/${GUID}/jwk/authenticate' -H 'CX-Authorization: eyJ…'`,
    ...extra,
  };
}

/** A bank JWT as the composer would answer it (token parts are base64url of the JSON). */
export function signedJwt(input: MethodInput<'jwt.sign'>, warnings: string[] = []): SignedJwt {
  const header = { alg: 'RS256', kid: input.kid, typ: 'JWT' };
  const iat = input.iat ?? 1_735_732_800;
  const payload = { flow: 'sign-in', obj: input.obj, sub: input.sub, iat, exp: iat + (input.ttl ?? 300) };
  const b64 = (v: unknown) =>
    btoa(JSON.stringify(v)).replaceAll('=', '').replaceAll('+', '-').replaceAll('/', '_');
  const token = `${b64(header)}.${b64(payload)}.c2lnbmF0dXJl`;
  return {
    token,
    header,
    payload,
    warnings,
    header_line: `CX-Authorization: ${token}`,
    curl: `curl -X POST '${SANDBOX_URL}/api/v1/counterparty/${GUID}/jwk/authenticate' -H 'CX-Authorization: ${token}'`,
  };
}

export function sessionReport(): InspectReport {
  return report([
    ['structure', 'passed'],
    ['alg', 'passed'],
    ['kid', 'passed'],
    ['signature', 'passed', 'verified with the service JWKS'],
    ['exp', 'passed'],
    ['iat', 'passed'],
    ['flow', 'passed'],
    ['obj', 'passed', 'obj as sent'],
    ['sub', 'passed', 'sub as sent'],
  ]);
}

export function rotation(extra: Partial<Rotation> = {}): Rotation {
  return {
    environment_id: 'sandbox',
    from_kid: 'old-key',
    to_kid: 'next-key',
    state: 'done',
    steps: [
      {
        id: 'generate',
        title: 'Generate the next key',
        status: 'passed',
        detail: 'next-key',
        exchange_id: null,
      },
      { id: 'register', title: 'Register it', status: 'passed', detail: 'PUT 200', exchange_id: 'ex-put' },
      { id: 'prove', title: 'Authenticate with it', status: 'passed', detail: '200', exchange_id: 'ex-auth' },
      { id: 'activate', title: 'Activate it', status: 'passed', detail: 'active', exchange_id: null },
      { id: 'retire', title: 'Retire the old key', status: 'passed', detail: 'retired', exchange_id: null },
    ],
    started_at: '2025-01-01T12:00:00.000Z',
    finished_at: '2025-01-01T12:00:02.000Z',
    ...extra,
  };
}

/** app.info of a desktop host whose sandbox listens at SANDBOX_URL. */
export function sandboxAppHandlers() {
  return {
    info: vi.fn(async () => ({
      name: 'DETS Console',
      version: '0.0.0-test',
      host: 'desktop' as const,
      dataDir: '/tmp/x',
      listeners: { sandbox: SANDBOX_URL },
    })),
  };
}

export interface FakeConsoleOptions {
  keys?: KeyInfo[];
  environments?: Environment[];
  activeId?: string;
  vault?: VaultStatus;
  exchanges?: Exchange[];
}

const UNLOCKED: VaultStatus = {
  state: 'unlocked',
  kind: 'keychain',
  detail: 'Unlocked: the OS keychain holds the vault key.',
};

export function fakeConsole(options: FakeConsoleOptions = {}) {
  let keys = structuredClone(options.keys ?? []);
  let environments = structuredClone(options.environments ?? [sandboxEnv()]);
  let activeId = options.activeId ?? environments[0]!.id;
  let vaultStatus = structuredClone(options.vault ?? UNLOCKED);
  let exchanges = structuredClone(options.exchanges ?? []);
  const envList = (): MethodOutput<'env.list'> => structuredClone({ active_id: activeId, environments });

  const vault = {
    status: vi.fn(async () => structuredClone(vaultStatus)),
    unlock: vi.fn(async (_input: MethodInput<'vault.unlock'>) => {
      vaultStatus = { state: 'unlocked', kind: 'passphrase', detail: 'Unlocked with its passphrase.' };
      return structuredClone(vaultStatus);
    }),
    createPassphrase: vi.fn(async (_input: MethodInput<'vault.createPassphrase'>) => {
      vaultStatus = { state: 'unlocked', kind: 'passphrase', detail: 'Unlocked with its passphrase.' };
      return structuredClone(vaultStatus);
    }),
  };

  let generated = 0;
  const keysApi = {
    list: vi.fn(async () => structuredClone(keys)),
    generate: vi.fn(async (input: MethodInput<'keys.generate'>) => {
      generated += 1;
      const key = keyInfo(input.kid ?? `00000000-0000-4000-8000-00000000000${generated}`, {
        alg: input.alg ?? 'RS256',
        bits: input.bits ?? 2048,
        label: input.label ?? '',
        expires: input.expires ?? null,
        status: keys.some((k) => k.status === 'active') ? 'next' : 'active',
      });
      keys = [...keys, key];
      return structuredClone(key);
    }),
    import: vi.fn(async (input: MethodInput<'keys.import'>) => {
      const key = keyInfo(input.kid ?? 'imported-key', { label: input.label ?? '', status: 'next' });
      keys = [...keys, key];
      return structuredClone(key);
    }),
    addExternal: vi.fn(async (input: MethodInput<'keys.addExternal'>) => {
      const key = keyInfo(input.kid ?? 'external-key', {
        alg: input.alg ?? 'RS256',
        label: input.label ?? '',
        status: input.status ?? (keys.some((k) => k.status === 'active') ? 'next' : 'active'),
        holder: 'external',
        sign_command: input.sign_command.split(' '),
      });
      keys = [...keys, key];
      return structuredClone(key);
    }),
    export: vi.fn(async (input: MethodInput<'keys.export'>) => {
      const key = keys.find((k) => k.kid === input.kid)!;
      const jwk = JSON.stringify(key.public_jwk, null, 2);
      if (input.format === 'jwk')
        return { text: jwk, filename: `${key.kid}.jwk.json`, mime: 'application/json' };
      if (input.format === 'jwks')
        return {
          text: JSON.stringify({ keys: [key.public_jwk] }, null, 2),
          filename: `${key.kid}.jwks.json`,
          mime: 'application/json',
        };
      return {
        text: '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----\n',
        filename: `${key.kid}.pem`,
        mime: 'application/x-pem-file',
      };
    }),
    update: vi.fn(async (input: MethodInput<'keys.update'>) => {
      keys = keys.map((k) =>
        k.kid === input.kid ? { ...k, ...(input.status ? { status: input.status } : {}) } : k,
      );
      return structuredClone(keys.find((k) => k.kid === input.kid)!);
    }),
    delete: vi.fn(async (input: MethodInput<'keys.delete'>) => {
      keys = keys.filter((k) => k.kid !== input.kid);
      return { deleted: input.kid };
    }),
  };

  const jwt = {
    sign: vi.fn(async (input: MethodInput<'jwt.sign'>) => signedJwt(input)),
  };

  const env = {
    list: vi.fn(async () => envList()),
    save: vi.fn(async (input: MethodInput<'env.save'>) => {
      const { id, ...patch } = input;
      if (id === undefined) {
        const created = realEnv({ id: `env-${environments.length}`, ...(patch as Partial<Environment>) });
        environments = [...environments, created];
        return structuredClone(created);
      }
      environments = environments.map((e) =>
        e.id === id ? { ...e, ...(patch as Partial<Environment>) } : e,
      );
      return structuredClone(environments.find((e) => e.id === id)!);
    }),
    remove: vi.fn(async (input: { id: string }) => {
      environments = environments.filter((e) => e.id !== input.id);
      if (activeId === input.id) activeId = environments[0]!.id;
      return envList();
    }),
    activate: vi.fn(async (input: { id: string }) => {
      activeId = input.id;
      return envList();
    }),
  };

  const service = {
    authenticate: vi.fn(
      async (_input: MethodInput<'service.authenticate'>): Promise<MethodOutput<'service.authenticate'>> => {
        const ex = exchange();
        exchanges = [ex, ...exchanges];
        return {
          exchange: ex,
          session_token: 'eyJhbGciOiJSUzI1NiJ9.eyJmbG93Ijoic2lnbi1pbiJ9.c2ln',
          session_report: sessionReport(),
        };
      },
    ),
    registerJwk: vi.fn(async (_input: MethodInput<'service.registerJwk'>) =>
      exchange({ operation: 'register-jwk' }),
    ),
    updateJwk: vi.fn(async (_input: MethodInput<'service.updateJwk'>) =>
      exchange({ operation: 'update-jwk' }),
    ),
    listJwks: vi.fn(async () => exchange({ operation: 'list-jwks' })),
    fetchJwks: vi.fn(async () => exchange({ operation: 'fetch-jwks' })),
    exchanges: vi.fn(async (_input?: MethodInput<'service.exchanges'>) => structuredClone(exchanges)),
    rotate: vi.fn(async (_input: MethodInput<'service.rotate'>) => rotation()),
  };

  const sandbox = {
    onboard: vi.fn(async (_input: MethodInput<'sandbox.onboard'>) => ({
      counterparty_guid: GUID,
      jwk_guid: JWK_GUID,
    })),
  };

  const app = sandboxAppHandlers();
  const inspector = { inspect: vi.fn(async () => report([])) };
  const { api, emit } = contractApi({
    app,
    inspector,
    vault,
    keys: keysApi,
    jwt,
    env,
    service,
    sandbox,
  });

  return {
    api,
    vault,
    keys: keysApi,
    jwt,
    env,
    service,
    sandbox,
    emit,
    setKeys(next: KeyInfo[]) {
      keys = structuredClone(next);
    },
    setVault(next: VaultStatus) {
      vaultStatus = structuredClone(next);
    },
  };
}
