import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SecretSealer } from '../../../electron/core/vault/sealer';
import {
  CUSTOMER,
  cleanup,
  get,
  lastEvent,
  makeServiceKey,
  serviceJwt,
  startBank,
  startJwksServer,
} from './helpers';

afterEach(cleanup);

describe('customers', () => {
  it('are stored with each key sealed: customers.json holds no key in clear (0600), views show only the length', async () => {
    const fx = await startBank();
    await fx.bank.saveCustomer({
      obj: 'DE009',
      external_id: 'e9',
      phone: '9',
      key: 'another-very-secret-key',
    });
    const file = path.join(fx.dir, 'bank', 'customers.json');
    const text = await fs.readFile(file, 'utf8');
    expect(text).toContain('DE009');
    expect(text).not.toContain(CUSTOMER.key);
    expect(text).not.toContain('another-very-secret-key');
    expect(text).not.toContain(Buffer.from(CUSTOMER.key).toString('base64'));
    if (process.platform !== 'win32') expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    const views = await fx.bank.customers();
    expect(views.find((c) => c.obj === 'DE001')?.key_hint).toBe(`${CUSTOMER.key.length} characters`);
    expect(JSON.stringify(views)).not.toContain(CUSTOMER.key);
    // export: the --users format, keys in clear (for a file the user saves)
    expect(await fx.bank.exportCustomers()).toContainEqual(CUSTOMER);
    // a restart with the same vault opens them again
    await fx.bank.close();
    await fx.store.close();
    const again = await startBank({
      dir: fx.dir,
      sealer: fx.sealer,
      key: fx.key,
      jwks: fx.jwks,
      customers: null,
    });
    expect((await get(`${again.url}/key`, await serviceJwt(fx.key))).body).toEqual({ key: CUSTOMER.key });
    expect(await again.bank.exportCustomers()).toHaveLength(2);
  });

  it('are validated: required fields, external_id up to 500 code points, unique obj; a bad import changes nothing', async () => {
    const fx = await startBank();
    await expect(fx.bank.saveCustomer({ ...CUSTOMER, phone: '' })).rejects.toThrow(/phone/);
    await expect(fx.bank.importCustomers([{ obj: 'x', external_id: 'e', phone: 'p' }])).rejects.toThrow(
      /customers\[0\]\.key/,
    );
    await expect(fx.bank.importCustomers([{ ...CUSTOMER, external_id: '😀'.repeat(501) }])).rejects.toThrow(
      /500/,
    );
    // 500 emoji are 1000 UTF-16 units but 500 symbols: accepted
    await fx.bank.saveCustomer({ ...CUSTOMER, obj: 'EMOJI', external_id: '😀'.repeat(500) });
    await expect(fx.bank.importCustomers([CUSTOMER, { ...CUSTOMER }])).rejects.toThrow(/unique/);
    await expect(fx.bank.importCustomers({ not: 'an array' })).rejects.toThrow(/array/);
    expect((await fx.bank.customers()).map((c) => c.obj).sort()).toEqual(['DE001', 'EMOJI']);
    await fx.bank.removeCustomer('EMOJI');
    await expect(fx.bank.removeCustomer('EMOJI')).rejects.toThrow(/no customer/);
    expect(await fx.bank.importCustomers([{ obj: 'N1', external_id: 'e', phone: 'p', key: 'k' }])).toBe(1);
    expect((await fx.bank.status()).customers).toBe(1);
  });

  it('a sealed directory the vault cannot open yet: no customers, a warning, writes refused; loaded once it can', async () => {
    const fx = await startBank();
    await fx.bank.close();
    await fx.store.close();
    const real = fx.sealer as SecretSealer;
    let locked = true;
    const gate: SecretSealer = {
      kind: real.kind,
      seal: (p, aad) => (locked ? Promise.reject(new Error('vault locked')) : real.seal(p, aad)),
      open: (p, aad) => (locked ? Promise.reject(new Error('vault locked')) : real.open(p, aad)),
    };
    const again = await startBank({ dir: fx.dir, sealer: gate, key: fx.key, jwks: fx.jwks, customers: null });
    expect((await again.bank.status()).warnings?.join(' ')).toMatch(/customers not loaded/);
    expect((await get(`${again.url}/key`, await serviceJwt(fx.key))).body).toMatchObject({ check: 'obj' });
    await expect(again.bank.saveCustomer({ ...CUSTOMER, obj: 'NEW' })).rejects.toThrow(/left untouched/);
    const file = await fs.readFile(path.join(fx.dir, 'bank', 'customers.json'), 'utf8');
    expect(file).toContain('DE001');
    locked = false;
    const status = await again.bank.status();
    expect(status.customers).toBe(1);
    expect(status.warnings).toBeUndefined();
    expect((await get(`${again.url}/key`, await serviceJwt(fx.key))).body).toEqual({ key: CUSTOMER.key });
  });

  it('without a vault: kept in memory only, never written, with a warning in status', async () => {
    const fx = await startBank({ sealer: null });
    expect((await get(`${fx.url}/key`, await serviceJwt(fx.key))).body).toEqual({ key: CUSTOMER.key });
    await expect(fs.stat(path.join(fx.dir, 'bank', 'customers.json'))).rejects.toThrow();
    const status = await fx.bank.status();
    expect(status.warnings?.join(' ')).toMatch(/memory only/);
  });
});

describe('service JWKS', () => {
  it('served stale from cache when the service is down, flagged on the event and in status', async () => {
    const fx = await startBank();
    expect((await get(`${fx.url}/key`, await serviceJwt(fx.key))).status).toBe(200);
    fx.jwks.mode = 'down';
    // An unknown kid forces a refresh, which fails: the cached set stays in use, flagged.
    const stranger = await makeServiceKey();
    const r = await get(`${fx.url}/key`, await serviceJwt(stranger));
    expect(r.body).toMatchObject({ check: 'kid' });
    // The unknown kid was answered at once (no fetch may start before its 900 ms: one a
    // second); the refresh it asked for runs at the next slot. Wait for that refresh to fail.
    for (let i = 0; i < 300 && !(await fx.bank.status()).jwks?.stale; i++) {
      await new Promise((res) => setTimeout(res, 10));
    }
    const ok = await get(`${fx.url}/user_auth`, await serviceJwt(fx.key));
    expect(ok.status).toBe(200);
    for (let i = 0; i < 100; i++) {
      const e = await lastEvent(fx.store, 'callback');
      if (e.path === '/user_auth') {
        expect(e.jwks).toMatchObject({ stale: true, kids: [fx.key.kid] });
        expect(e.jwks?.error).toMatch(/503/);
        break;
      }
      await new Promise((res) => setTimeout(res, 10));
    }
    expect((await fx.bank.status()).jwks).toMatchObject({ stale: true, kids: [fx.key.kid] });
  });

  it('no JWKS URL: kid fails saying what to configure', async () => {
    const fx = await startBank({ jwksUrl: null });
    const r = await get(`${fx.url}/key`, await serviceJwt(fx.key));
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ check: 'kid' });
    expect((r.body as { detail: string }).detail).toMatch(/--service-jwks-url/);
  });

  it('a JWKS that never answered: kid fails naming the URL', async () => {
    const key = await makeServiceKey();
    const jwks = await startJwksServer([key.jwk]);
    jwks.mode = 'down';
    const fx = await startBank({ key, jwks });
    const r = await get(`${fx.url}/key`, await serviceJwt(key));
    expect(r.body).toMatchObject({ check: 'kid' });
    expect((r.body as { detail: string }).detail).toContain(jwks.url);
  });
});
