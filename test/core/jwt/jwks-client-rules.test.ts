/**
 * The service JWKS client and the RSA key rules (DESIGN.md "Bank endpoints"): a JWKS key with
 * public exponent 3, or a 1024-bit modulus, is left out of the key set and named, with the rule
 * it breaks, in the state's `rejected`. This needs key-source.ts's keySetFromJwks to list the
 * keys it leaves out (`rejected` on the KeySet); the client only passes the list on.
 */
import { type JsonWebKey } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { JwksClient } from '../../../electron/core/jwt/jwks-client';
import { startFakeServer, type FakeServer } from '../../support/fake-server';
import { rsaKeyPair } from '../../support/rsa-pair';

function rsaJwk(kid: string, modulusLength: number, publicExponent = 65537): JsonWebKey & { kid: string } {
  const { publicKey } = rsaKeyPair({ modulusLength, publicExponent });
  return { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
}

let server: FakeServer | null = null;
let client: JwksClient | null = null;
afterEach(async () => {
  client?.stop();
  await server?.close();
});

describe('JwksClient and the RSA key rules', () => {
  it('leaves out a key with e = 3 and a 1024-bit key, naming each with its rule', async () => {
    const keys = [rsaJwk('svc-good', 2048), rsaJwk('svc-e3', 2048, 3), rsaJwk('svc-1024', 1024)];
    server = await startFakeServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
    });
    client = new JwksClient({
      url: () => `${server?.url}/jwks.json`,
      fetch,
      now: Date.now,
      onChange: () => undefined,
    });
    const good = await client.keySetFor('svc-good', Date.now() + 1000);
    expect(good.set?.kids).toEqual(['svc-good']);
    expect(good.state.kids).toEqual(['svc-good']);
    expect(good.state.rejected).toEqual([
      { kid: 'svc-e3', reason: expect.stringMatching(/exponent is 3.*2\^16 and 2\^256/) },
      { kid: 'svc-1024', reason: expect.stringMatching(/1024 bits; at least 2048/) },
    ]);
    const e3 = await client.keySetFor('svc-e3', Date.now());
    expect(e3.set?.lookup('svc-e3').found).toBe(false);
  });
});
