/**
 * "curl with a fresh token" (issue 26 item 5): a stored sandbox callback's claims signed again by
 * the sandbox's own signer with a fresh iat/exp, so a copied curl outlives the recorded token;
 * refused for a callback of another environment (the console does not hold its service's key)
 * and for one whose kid no environment published. Real parts: the core with its sandbox and bank
 * on 127.0.0.1, a second service's keys served by a real HTTP server, its tokens signed with
 * node:crypto directly.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FreshSession } from '../../../electron/contract/schemas/bank';
import { decodeCompact } from '../../../electron/core/jwt';
import { cryptoJwt, signInClaims } from '../../support/real-service';
import { valueOf } from '../../support/temp-core';
import { CUSTOMER, twoServices } from './two-services';

describe('bank.freshSession', () => {
  it('signs an expired sandbox callback’s claims again: the copied curl is answered 200 where the recorded one got 401 exp', async () => {
    const { core, real, sandbox, call } = await twoServices();
    const now = Math.floor(Date.now() / 1000);

    // A callback whose token expired an hour ago: the sandbox signed it, the bank refused it (exp).
    const old = await call(
      await sandbox.signServiceToken({
        obj: CUSTOMER.obj,
        sub: CUSTOMER.sub,
        iat: now - 3600,
        exp: now - 3300,
      }),
    );
    expect(old.status).toBe(401);
    expect(old.event.failed_check).toBe('exp');
    expect(old.event.environment).toEqual({ id: 'sandbox', name: 'Sandbox' });

    const fresh = await valueOf<FreshSession>(core, 'bank.freshSession', { id: old.event.id });
    const decoded = decodeCompact(fresh.token);
    expect(decoded.payload).toMatchObject({ flow: 'sign-in', obj: CUSTOMER.obj, sub: CUSTOMER.sub });
    expect(decoded.payload!.iat as number).toBeGreaterThanOrEqual(now);
    expect(Date.parse(fresh.expires_at)).toBe((decoded.payload!.exp as number) * 1000);
    expect(Date.parse(fresh.expires_at)).toBeGreaterThan(Date.now());
    expect(fresh.kid).toBe(decoded.header!.kid);
    const again = await call(fresh.token);
    expect(again.status).toBe(200);
    expect(again.event.failed_check).toBeNull();
    expect(again.event.environment).toEqual({ id: 'sandbox', name: 'Sandbox' });

    // The real service's callback: its key is not the console's to use.
    const fromReal = await call(
      cryptoJwt(real.privateKey, real.kid, signInClaims(CUSTOMER.obj, CUSTOMER.sub)),
    );
    expect(fromReal.status).toBe(200);
    const refused = await core.dispatch('bank.freshSession', { id: fromReal.event.id });
    expect(refused).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    expect(refused.ok ? '' : refused.error.message).toMatch(/Staging's service/);

    // A kid no environment published: no environment, nothing to sign.
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const unknown = await call(cryptoJwt(stranger, 'nobody', signInClaims(CUSTOMER.obj, CUSTOMER.sub)));
    expect(unknown.event.failed_check).toBe('kid');
    const none = await core.dispatch('bank.freshSession', { id: unknown.event.id });
    expect(none).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
    // A notification is no callback.
    const missing = await core.dispatch('bank.freshSession', { id: 'e999999999999' });
    expect(missing.ok).toBe(false);
  });
});
