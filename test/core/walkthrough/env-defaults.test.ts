/**
 * The walkthrough's customer becomes the environment's default obj/sub (issue 26 item 3), so the
 * Composer, Service → Authenticate and Conformance start filled; a default the engineer set
 * is kept. Through the real core (sandbox and bank on 127.0.0.1:0, a passphrase vault).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { call, closeAll, newDataDir, openCore } from './harness';

afterEach(closeAll);

describe('the walkthrough fills the environment’s defaults', () => {
  it('sets default obj/sub from the composed token where none was set, and keeps one that was', async () => {
    const core = await openCore(await newDataDir());
    await core.listenSandbox({ host: '127.0.0.1', port: 0 });
    await core.listenBank({ host: '127.0.0.1', port: 0 });
    await call(core, 'env.save', { id: 'sandbox', default_sub: 'ops@bank.example' });
    for (const step of ['key', 'register', 'compose'] as const) {
      const r = await call(core, 'walkthrough.run', { step });
      expect(r.ok, `${step}: ${r.message}`).toBe(true);
    }
    const state = await call(core, 'walkthrough.state');
    const composed = state.composed!;
    const env = (await call(core, 'env.list')).environments.find((e) => e.id === 'sandbox')!;
    expect(env.default_obj).toBe(composed.obj);
    expect(env.default_obj).not.toBeNull();
    // The engineer's own default stays; the token was composed with it.
    expect(env.default_sub).toBe('ops@bank.example');
    expect(composed.sub).toBe('ops@bank.example');
  });
});
