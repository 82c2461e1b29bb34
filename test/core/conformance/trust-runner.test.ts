/**
 * Issue 13 item 6: one action points the console's own (live) bank endpoints at the runner's
 * JWKS, so the suite run against them passes; the answer names what it replaced and puts it back.
 * Real core, real listeners on 127.0.0.1, real keys.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { methods } from '../../../electron/contract';
import type { ConformanceReport } from '../../../electron/contract/schemas/conformance';
import { freePort } from '../../support/free-port';
import { tempCore, valueOf } from '../../support/temp-core';

const customer = {
  obj: 'DE02120300000000202051',
  sub: 'ops@bank.example',
  external_id: 'own-1',
  phone: '+10000000002',
  key: 'own-bank-secret-key-0001',
};

describe('conformance.trustRunnerJwks', () => {
  it('points the live bank at the runner, whose run then passes, and puts the old URL back', async () => {
    const flagUrl = 'http://127.0.0.1:9/api/v1/.well-known/jwks.json';
    const { core, dir } = await tempCore({ serviceJwksUrl: flagUrl });
    const value = <T>(method: string, input?: unknown) => valueOf<T>(core, method, input);
    const bank = await core.listenBank({ host: '127.0.0.1', port: 0 });
    await value('bank.saveCustomer', customer);
    const port = await freePort();
    const runnerUrl = `http://127.0.0.1:${port}/api/v1/.well-known/jwks.json`;

    const change = await value<unknown>('conformance.trustRunnerJwks', { jwks_port: port });
    methods['conformance.trustRunnerJwks'].output.parse(change);
    expect(change).toEqual({
      previous_setting: null,
      previous_url: flagUrl,
      setting: runnerUrl,
      url: runnerUrl,
    });
    expect(await value('bank.status')).toMatchObject({
      service_jwks_url: runnerUrl,
      service_jwks_setting: runnerUrl,
    });
    // Kept with the bank's settings, so a restart keeps trusting the runner until put back.
    const saved = JSON.parse(await readFile(join(dir, 'bank', 'settings.json'), 'utf8')) as object;
    expect(saved).toMatchObject({ service_jwks_url: runnerUrl });

    // The run signs with fresh keys the bank has never seen: it passes only if the bank fetched
    // them from the runner's JWKS.
    const report = await value<ConformanceReport>('conformance.run', {
      bank_auth_url: bank.url,
      obj: customer.obj,
      sub: customer.sub,
      jwks_port: port,
    });
    expect(report.cases.filter((c) => c.status !== 'passed').map((c) => `${c.id}: ${c.detail}`)).toEqual([]);
    expect(report.jwks_fetches).toBeGreaterThanOrEqual(1);

    const back = await value<unknown>('bank.setServiceJwksUrl', { url: null });
    expect(back).toEqual({
      previous_setting: runnerUrl,
      previous_url: runnerUrl,
      setting: null,
      url: flagUrl,
    });
    expect(await value('bank.status')).toMatchObject({
      service_jwks_url: flagUrl,
      service_jwks_setting: null,
    });
  });

  it('refuses a URL that is not http(s) or carries credentials, and changes nothing', async () => {
    const { core } = await tempCore();
    for (const url of ['ftp://127.0.0.1/jwks.json', 'http://user:pw@127.0.0.1/jwks.json', 'not a url']) {
      const answer = await core.dispatch('bank.setServiceJwksUrl', { url });
      expect(answer).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENT' } });
    }
    await expect((await core.bank()).setServiceJwksUrl('ftp://x/jwks.json')).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringContaining('ftp://x/jwks.json'),
    });
    expect(await valueOf(core, 'bank.status')).toMatchObject({ service_jwks_setting: null });
    expect(await core.dispatch('conformance.trustRunnerJwks', { jwks_port: 0 })).toMatchObject({
      ok: false,
      error: { code: 'BAD_ARGUMENT' },
    });
  });
});
