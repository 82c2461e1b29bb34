/**
 * A bank's callbacks written the way a bank team would, with node:http and jose, verifying the
 * service's X-Session-ID against a JWKS URL, with faults a conformance run must catch switched
 * on one at a time. Without faults it is a correct bank (every case passes).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';

export interface Faults {
  acceptExpired?: boolean;
  acceptAlgNone?: boolean;
  ignoreSub?: boolean;
  skipSignature?: boolean;
  /** Delay before every 200 answer. */
  delayMs?: number;
  omitPhone?: boolean;
  longExternalId?: boolean;
  /** Fetch the JWKS once and never again, whatever kid comes. */
  cacheJwksForever?: boolean;
}

export interface TestCustomer {
  obj: string;
  sub: string;
  external_id: string;
  phone: string;
  key: string;
}

export interface TestBank {
  url: string;
  requests: number;
  close(): Promise<void>;
}

export async function startTestBank(options: {
  jwksUrl: string;
  customer: TestCustomer;
  faults?: Faults;
}): Promise<TestBank> {
  const f = options.faults ?? {};
  const c = options.customer;
  let keys: JWK[] | null = null;
  const loadKeys = async () => {
    const res = await fetch(options.jwksUrl);
    keys = ((await res.json()) as { keys: JWK[] }).keys;
  };
  const state = { requests: 0 };

  async function verify(token: string | undefined): Promise<Record<string, unknown> | null> {
    if (!token) return null;
    let header: { alg?: string; kid?: string };
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return null;
    }
    let payload: Record<string, unknown>;
    if (header.alg === 'none') {
      if (!f.acceptAlgNone) return null;
      payload = decodeJwt(token);
    } else {
      if (header.alg !== 'RS256') return null;
      if (keys === null) await loadKeys();
      let jwk = keys!.find((k) => k.kid === header.kid);
      if (!jwk && !f.cacheJwksForever) {
        await loadKeys();
        jwk = keys!.find((k) => k.kid === header.kid);
      }
      if (!jwk) return null;
      if (f.skipSignature) payload = decodeJwt(token);
      else {
        try {
          const { payload: bytes } = await compactVerify(token, await importJWK(jwk, 'RS256'));
          payload = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
        } catch {
          return null;
        }
      }
    }
    const now = Math.floor(Date.now() / 1000);
    if (!f.acceptExpired && (typeof payload.exp !== 'number' || payload.exp + 60 < now)) return null;
    if (typeof payload.iat !== 'number' || payload.iat - 60 > now) return null;
    if (payload.flow !== 'sign-in') return null;
    if (payload.obj !== c.obj) return null;
    if (!f.ignoreSub && payload.sub !== c.sub) return null;
    return payload;
  }

  const server = http.createServer((req, res) => {
    state.requests += 1;
    req.resume();
    const route = (req.url ?? '').split('?')[0];
    const header = req.headers['x-session-id'];
    void verify(typeof header === 'string' ? header : undefined).then(async (payload) => {
      if (!payload || !['/user_auth', '/key', '/external_id'].includes(route ?? '')) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
        return;
      }
      if (f.delayMs) await new Promise((r) => setTimeout(r, f.delayMs));
      const externalId = f.longExternalId ? 'x'.repeat(501) : c.external_id;
      const body =
        route === '/key'
          ? { key: c.key }
          : route === '/external_id'
            ? { external_id: externalId }
            : f.omitPhone
              ? { external_id: externalId, key: c.key }
              : { external_id: externalId, phone: c.phone, key: c.key };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
