/**
 * A callback is judged against the service of the environment it belongs to (issue 26 item 1;
 * DESIGN.md "Environments"), recognised by the kid its token names, never against whichever
 * environment the header shows. Real parts: the console core with its sandbox and bank on
 * 127.0.0.1, a second HTTP server on 127.0.0.1 standing in for a real service's JWKS, its tokens
 * signed with node:crypto directly (an outsider, not the library under test).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cryptoJwt, signInClaims, startRealService } from '../../support/real-service';
import type { EventDetail } from '../../../electron/contract/schemas/events';
import { tempCore, valueOf } from '../../support/temp-core';
import { CUSTOMER, eventAfter, twoServices } from './two-services';

const claims = () => signInClaims(CUSTOMER.obj, CUSTOMER.sub);

describe('callbacks judged against the environment that published their kid', () => {
  it('sandbox and real-service callbacks each pass, named with their environment, whichever environment the header shows', async () => {
    const { core, real, staging, sandbox, call } = await twoServices();
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

    for (const header of ['sandbox', staging.id, 'sandbox']) {
      await valueOf(core, 'env.activate', { id: header });
      const fromSandbox = await call(
        await sandbox.signServiceToken({ obj: CUSTOMER.obj, sub: CUSTOMER.sub }),
      );
      expect(fromSandbox.status, `sandbox callback, header ${header}`).toBe(200);
      expect(fromSandbox.event.failed_check).toBeNull();
      expect(fromSandbox.event.environment).toEqual({ id: 'sandbox', name: 'Sandbox' });

      const fromReal = await call(cryptoJwt(real.privateKey, real.kid, claims()));
      expect(fromReal.status, `real-service callback, header ${header}`).toBe(200);
      expect(fromReal.event.failed_check).toBeNull();
      expect(fromReal.event.environment).toEqual({ id: staging.id, name: 'Staging' });

      // A kid neither service publishes fails `kid`, and belongs to no environment.
      const unknown = await call(cryptoJwt(stranger, `nobody-${randomBytes(3).toString('hex')}`, claims()));
      expect(unknown.status).toBe(401);
      expect(unknown.event.failed_check).toBe('kid');
      expect(unknown.event.environment ?? null).toBeNull();

      // Re-check with the other environment in the header: the same verdict.
      const recheck = await valueOf<EventDetail & { data: { recheck: { was: unknown; now: unknown } } }>(
        core,
        'bank.recheck',
        { id: fromReal.event.id },
      );
      expect(recheck.data.recheck).toMatchObject({ was: null, now: null });
      expect(recheck.environment).toEqual({ id: staging.id, name: 'Staging' });
    }
  });

  it('--service-jwks-url stays an explicit override: only its keys are trusted', async () => {
    const real = await startRealService();
    const { core } = await tempCore({ serviceJwksUrl: `${real.base}/api/v1/.well-known/jwks.json` });
    await core.listenSandbox({ host: '127.0.0.1', port: 0 });
    const bank = await core.listenBank({ host: '127.0.0.1', port: 0 });
    await valueOf(core, 'bank.saveCustomer', CUSTOMER);
    const sandbox = await core.sandbox();
    const seen = new Set<string>();
    const res1 = await fetch(`${bank.url}/user_auth`, {
      headers: { 'X-Session-ID': cryptoJwt(real.privateKey, real.kid, claims()) },
    });
    expect(res1.status).toBe(200);
    expect((await eventAfter(core, seen)).environment).toEqual({ id: null, name: '--service-jwks-url' });
    const res2 = await fetch(`${bank.url}/user_auth`, {
      headers: { 'X-Session-ID': await sandbox.signServiceToken({ obj: CUSTOMER.obj, sub: CUSTOMER.sub }) },
    });
    expect(res2.status).toBe(401);
    expect((await eventAfter(core, seen)).failed_check).toBe('kid');
  });
});
