/**
 * Issue 29, "Tests that must exist": a key held in a real PKCS#11 token (SoftHSM 2, driven by
 * OpenSC's pkcs11-tool, its PIN only in an environment variable) is added to the console and
 * signs through every path: the composer (`jwt.sign`), authenticate against the sandbox, and
 * the guided rotation from an external key to another external key and on to a vault key.
 * Tokens are verified with node:crypto directly (and jose), never only by the code under test;
 * the profile is scanned for private key material and for the PIN afterwards.
 */
import { createPublicKey, verify, constants } from 'node:crypto';
import { importSPKI, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyInfo, SigningAlg } from '../../../electron/contract/schemas/keys';
import type { Rotation, SignedJwt } from '../../../electron/contract/schemas/service';
import { softHsmToken, type SoftHsmToken } from '../../support/softhsm';
import { tempCore, valueOf } from '../../support/temp-core';
import { allFiles, privateMaterialIn } from './helpers';
import { readFileSync } from 'node:fs';

const OBJ = 'DE02120300000000202051';
const SUB = 'ops@bank.example';
const HASH: Record<SigningAlg, string> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  PS256: 'sha256',
};

/** node:crypto's own verdict on a compact JWS, without jose. */
function verifiesWithNode(token: string, pem: string, alg: SigningAlg): boolean {
  const [h, p, s] = token.split('.') as [string, string, string];
  const key = createPublicKey(pem);
  const k = alg === 'PS256' ? { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } : key;
  return verify(HASH[alg], Buffer.from(`${h}.${p}`), k, Buffer.from(s, 'base64url'));
}

let hsm: SoftHsmToken;
beforeAll(async () => {
  hsm = await softHsmToken();
});
afterAll(async () => {
  await hsm?.close();
});

describe('a key held in a SoftHSM token, through pkcs11-tool', () => {
  it.each(['RS256', 'RS384', 'RS512', 'PS256'] as const)(
    '%s: jwt.sign through pkcs11-tool gives a token node:crypto and jose verify against the public key',
    async (alg) => {
      const { core } = await tempCore({ env: hsm.env });
      const id = { RS256: '11', RS384: '12', RS512: '13', PS256: '14' }[alg];
      const pem = await hsm.keypair(id);
      const key = await valueOf<KeyInfo>(core, 'keys.addExternal', {
        kid: `hsm-${alg}`,
        alg,
        public_key: pem,
        sign_command: hsm.signCommand(id, alg),
      });
      expect(key).toMatchObject({ holder: 'external', alg, bits: 2048 });
      expect(key.sign_command).toContain('env:DETS_TEST_HSM_PIN');

      const signed = await valueOf<SignedJwt>(core, 'jwt.sign', { kid: key.kid, obj: OBJ, sub: SUB });
      expect(signed.header).toEqual({ alg, kid: key.kid, typ: 'JWT' });
      expect(verifiesWithNode(signed.token, pem, alg)).toBe(true);
      const { payload } = await jwtVerify(signed.token, await importSPKI(pem, alg));
      expect(payload).toMatchObject({ flow: 'sign-in', obj: OBJ, sub: SUB });
    },
  );

  it('authenticates with the sandbox, rotates external → external → vault key, and stores no secret', async () => {
    const { core, dir } = await tempCore({ env: hsm.env });
    await core.listenSandbox({ host: '127.0.0.1', port: 0 });
    const firstPem = await hsm.keypair('21');
    const first = await valueOf<KeyInfo>(core, 'keys.addExternal', {
      kid: 'hsm-2026',
      public_key: firstPem,
      sign_command: hsm.signCommand('21'),
    });
    const { counterparty_guid } = await valueOf<{ counterparty_guid: string }>(core, 'sandbox.onboard', {
      jwk: first.public_jwk,
    });
    await valueOf(core, 'env.save', {
      id: 'sandbox',
      counterparty_guid,
      active_kid: first.kid,
      default_obj: OBJ,
      default_sub: SUB,
    });

    // Authenticate: the sandbox verifies the HSM's signature and answers a session_token.
    const auth = await valueOf<{ exchange: { ok: boolean; response: { status: number } | null } }>(
      core,
      'service.authenticate',
      { kid: first.kid, obj: OBJ, sub: SUB },
    );
    expect(auth.exchange).toMatchObject({ ok: true, response: { status: 200 } });

    // POST jwk (the guide's register endpoint), signed by the HSM key, for a third HSM key.
    const third = await valueOf<KeyInfo>(core, 'keys.addExternal', {
      kid: 'hsm-spare',
      public_key: await hsm.keypair('23'),
      sign_command: hsm.signCommand('23'),
      status: 'next',
    });
    const posted = await valueOf<{ ok: boolean; request: { method: string } }>(core, 'service.registerJwk', {
      kid: third.kid,
      signing_kid: first.kid,
    });
    expect(posted).toMatchObject({ ok: true, request: { method: 'POST' } });

    // Rotation from the external key to another key in the same token, added as `next`.
    const secondPem = await hsm.keypair('22');
    const second = await valueOf<KeyInfo>(core, 'keys.addExternal', {
      kid: 'hsm-2027',
      public_key: secondPem,
      sign_command: hsm.signCommand('22'),
      status: 'next',
    });
    const toExternal = await valueOf<Rotation>(core, 'service.rotate', { next_kid: second.kid });
    expect(toExternal.steps.map((s) => [s.id, s.status])).toEqual([
      ['generate', 'passed'],
      ['register', 'passed'],
      ['prove', 'passed'],
      ['activate', 'passed'],
      ['retire', 'passed'],
    ]);
    expect(toExternal).toMatchObject({ state: 'done', from_kid: first.kid, to_kid: second.kid });

    // Rotation from the external key to a new vault key (generated, PUT signed by the HSM).
    const toVault = await valueOf<Rotation>(core, 'service.rotate', {});
    expect(toVault.state, JSON.stringify(toVault.steps)).toBe('done');
    const keys = await valueOf<KeyInfo[]>(core, 'keys.list');
    const vaultKey = keys.find((k) => k.kid === toVault.to_kid) as KeyInfo;
    expect(vaultKey).toMatchObject({ holder: 'vault', status: 'active', sign_command: null });
    expect(keys.find((k) => k.kid === second.kid)?.status).toBe('retired');
    const after = await valueOf<{ exchange: { ok: boolean } }>(core, 'service.authenticate', {});
    expect(after.exchange.ok).toBe(true);

    // The profile: public keys and templates only. No private key, and the PIN nowhere.
    await core.close();
    expect(privateMaterialIn(dir, [hsm.pin])).toEqual([]);
    const stored = JSON.parse(readFileSync(`${dir}/keys/keys.json`, 'utf8')) as {
      keys: Array<Record<string, unknown>>;
    };
    for (const k of stored.keys.filter((k) => k.kid !== vaultKey.kid)) {
      expect(Object.keys(k)).not.toContain('sealed_private_key');
      expect(k.sign_command).toEqual(expect.arrayContaining(['pkcs11-tool', 'env:DETS_TEST_HSM_PIN']));
    }
    expect(allFiles(dir).length).toBeGreaterThan(0);
  });

  it('walks the walkthrough with an HSM key as the environment key: register, compose, authenticate, rotate', async () => {
    const { core } = await tempCore({ env: hsm.env });
    await core.listenSandbox({ host: '127.0.0.1', port: 0 });
    await core.listenBank({ host: '127.0.0.1', port: 0 });
    const pem = await hsm.keypair('51');
    const key = await valueOf<KeyInfo>(core, 'keys.addExternal', {
      kid: 'hsm-walkthrough',
      public_key: pem,
      sign_command: hsm.signCommand('51'),
    });
    await valueOf(core, 'env.save', { id: 'sandbox', active_kid: key.kid });
    type Run = { ok: boolean; message: string; state: { steps: Array<{ id: string; state: string }> } };
    for (const step of ['register', 'compose', 'authenticate', 'callbacks', 'sign-in', 'rotate']) {
      const result = await valueOf<Run>(core, 'walkthrough.run', { step });
      expect(result.ok, `${step}: ${result.message}`).toBe(true);
      expect(result.state.steps.find((s) => s.id === step)?.state, step).toBe('done');
    }
    const composed = await valueOf<{ composed: { token: string } | null }>(core, 'walkthrough.state');
    // The walkthrough's own JWT was signed inside the token (before the rotation moved on).
    expect(composed.composed?.token.split('.')[0]).toBe(
      Buffer.from(JSON.stringify({ alg: 'RS256', kid: key.kid, typ: 'JWT' })).toString('base64url'),
    );
    expect(verifiesWithNode(composed.composed!.token, pem, 'RS256')).toBe(true);
  });
});
