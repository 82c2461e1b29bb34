/**
 * Every environment's service JWKS at once (jwt/jwks-pool.ts; issue 26 item 1): a kid is found in
 * whichever environment's JWKS publishes it, a cached kid never waits on a slow or dead
 * neighbour, and a flood of unknown kids costs each JWKS host at most one fetch a second (DESIGN.md
 * "Bank endpoints", the service JWKS client). Real HTTP servers on 127.0.0.1.
 */
import { describe, expect, it } from 'vitest';
import { JwksPool, type JwksSource } from '../../../electron/core/jwt';
import { cleanup, makeServiceKey, startJwksServer } from '../bank/helpers';
import { afterAll } from 'vitest';

afterAll(cleanup);

function pool(sources: JwksSource[]) {
  let changes = 0;
  const p = new JwksPool({
    sources: async () => sources,
    fetch,
    now: Date.now,
    onChange: () => (changes += 1),
  });
  return { p, changes: () => changes };
}

describe('JwksPool', () => {
  it('finds each kid in the JWKS of the environment that publishes it, and names that environment', async () => {
    const a = await makeServiceKey('kid-a');
    const b = await makeServiceKey('kid-b');
    const hostA = await startJwksServer([a.jwk]);
    const hostB = await startJwksServer([b.jwk]);
    const { p } = pool([
      { environment: 'sandbox', name: 'Sandbox', url: hostA.url, active: false },
      { environment: 'env-1', name: 'Staging', url: hostB.url, active: true },
    ]);
    try {
      const gotB = await p.keySetFor('kid-b', Date.now() + 750);
      expect(gotB.source?.environment).toBe('env-1');
      expect(gotB.set?.lookup('kid-b').found).toBe(true);
      const gotA = await p.keySetFor('kid-a', Date.now() + 750);
      expect(gotA.source?.environment).toBe('sandbox');
      // The Bank page's state is the header's environment's.
      expect(p.state().url).toBe(hostB.url);
      const none = await p.keySetFor('kid-nobody', Date.now() + 300);
      expect(none.source).toBeNull();
      expect(none.detail).toContain('Sandbox');
      expect(none.detail).toContain('Staging');
      expect(none.set?.lookup('kid-nobody').found).toBe(false);
    } finally {
      p.stop();
    }
  });

  it('a dead environment neither hides nor delays a kid another one caches; unknown kids cost each host one fetch a second', async () => {
    const a = await makeServiceKey('kid-live');
    const live = await startJwksServer([a.jwk]);
    const dead = await startJwksServer([]);
    dead.mode = 'down';
    const { p } = pool([
      { environment: 'env-dead', name: 'Dead', url: dead.url, active: true },
      { environment: 'sandbox', name: 'Sandbox', url: live.url, active: false },
    ]);
    try {
      expect((await p.keySetFor('kid-live', Date.now() + 750)).source?.environment).toBe('sandbox');
      const started = Date.now();
      // 40 unknown kids over about 2 s (bounded in count and time).
      for (let i = 0; i < 40 && Date.now() - started < 5000; i++) {
        const r = await p.keySetFor(`flood-${i}`, Date.now() + 50);
        expect(r.source).toBeNull();
        await new Promise((res) => setTimeout(res, 50));
      }
      const seconds = Math.ceil((Date.now() - started) / 1000) + 1;
      expect(live.hits).toBeLessThanOrEqual(seconds + 1);
      expect(dead.hits).toBeLessThanOrEqual(seconds + 1);
      // The cached kid still resolves at once from its own environment.
      const again = await p.keySetFor('kid-live', Date.now());
      expect(again.source?.environment).toBe('sandbox');
      expect(again.set?.lookup('kid-live').found).toBe(true);
    } finally {
      p.stop();
    }
  });
});
