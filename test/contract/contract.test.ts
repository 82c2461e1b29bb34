import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  buildFacade,
  events,
  methods,
  parseArgs,
  EVENT_NAMES,
  METHOD_NAMES,
  ConsoleError,
  methodChannel,
  eventChannel,
  type Envelope,
  type MethodName,
} from '../../electron/contract';
import { dispatch } from '../../electron/core/dispatch';
import { createConsoleCore } from '../../electron/core/console-core';
import { JwksStatus } from '../../electron/contract/schemas/bank';

describe('the contract table', () => {
  it('gives every method an input schema, an output schema and a summary', () => {
    expect(METHOD_NAMES.length).toBeGreaterThan(0);
    for (const name of METHOD_NAMES) {
      const spec = methods[name];
      expect(spec.input, name).toBeInstanceOf(z.ZodType);
      expect(spec.output, name).toBeInstanceOf(z.ZodType);
      expect(spec.summary.length, name).toBeGreaterThan(10);
      expect(name).toMatch(/^[a-z]+\.[a-zA-Z]+$/);
    }
  });

  it('gives every event a schema and a past-tense name', () => {
    for (const name of EVENT_NAMES) {
      expect(events[name], name).toBeInstanceOf(z.ZodType);
      expect(name).toMatch(/^[a-z]+\.[a-z]+ed$/);
    }
  });

  it('names channels app:<domain>.<action> and app:event.<domain>.<past-tense>', () => {
    expect(methodChannel('inspector.inspect')).toBe('app:inspector.inspect');
    expect(eventChannel('app.noticed')).toBe('app:event.app.noticed');
  });

  it('refuses a bad argument with a coded error naming the field', () => {
    expect(() => parseArgs('inspector.inspect', { token: 42 })).toThrowError(ConsoleError);
    try {
      parseArgs('inspector.inspect', { token: 'x', keySource: { type: 'jwks-url', url: 'ftp://nope' } });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConsoleError);
      expect((err as ConsoleError).code).toBe('BAD_ARGUMENT');
      expect((err as ConsoleError).message).toContain('keySource.url');
    }
  });
});

describe('the core implements exactly the contract', () => {
  it('has one handler per method and no other', async () => {
    const core = await createConsoleCore({ dataDir: '/nonexistent-not-touched', host: 'cli' });
    expect(Object.keys(core.handlers).sort()).toEqual([...METHOD_NAMES].sort());
    await core.close();
  });

  it('answers unknown methods and bad arguments with coded envelopes, never a throw', async () => {
    const core = await createConsoleCore({ dataDir: '/nonexistent-not-touched', host: 'cli' });
    const unknown = await dispatch(core.handlers, 'vault.steal', {});
    expect(unknown).toMatchObject({ ok: false, error: { code: 'UNKNOWN_METHOD' } });
    const proto = await dispatch(core.handlers, '__proto__', {});
    expect(proto).toMatchObject({ ok: false, error: { code: 'UNKNOWN_METHOD' } });
    for (const name of METHOD_NAMES) {
      const bad = await dispatch(core.handlers, name, 'not-an-object');
      expect(bad, name).toMatchObject({ ok: false, error: { code: 'BAD_ARGUMENT' } });
    }
    const info = await core.dispatch('app.info', undefined);
    expect(info).toMatchObject({ ok: true, value: { host: 'cli' } });
    await core.close();
  });
});

describe('buildFacade', () => {
  it('exposes exactly the contract methods by domain, and unwraps envelopes', async () => {
    const calls: Array<[MethodName, unknown]> = [];
    const api = buildFacade({
      async call(method, input): Promise<Envelope<unknown>> {
        calls.push([method, input]);
        return method === 'app.info'
          ? { ok: true, value: { fine: true } }
          : { ok: false, error: { code: 'TOKEN_MALFORMED', message: 'nope' } };
      },
      subscribe: () => () => undefined,
    });
    const exposed = Object.entries(api)
      .filter(([k]) => k !== 'on')
      .flatMap(([domain, fns]) => Object.keys(fns as object).map((action) => `${domain}.${action}`));
    expect(exposed.sort()).toEqual([...METHOD_NAMES].sort());
    await expect(api.app.info()).resolves.toEqual({ fine: true });
    const failure = api.inspector.inspect({ token: 'x' });
    await expect(failure).rejects.toBeInstanceOf(ConsoleError);
    await expect(failure).rejects.toMatchObject({ code: 'TOKEN_MALFORMED', message: 'nope' });
    expect(calls.map(([m]) => m)).toEqual(['app.info', 'inspector.inspect']);
    expect(() => api.on('not.anevent' as never, () => undefined)).toThrowError(/unknown event/);
  });
});

describe('the JWKS status schema', () => {
  const jwks = {
    url: 'http://127.0.0.1:7302/api/v1/.well-known/jwks.json',
    kids: ['svc-1'],
    fetched_at: '2025-01-01T11:59:00.000Z',
    stale: false,
    error: null,
  };

  it('still reads an event stored before rejected keys and duplicates were recorded', () => {
    expect(JwksStatus.extend({ url: z.string() }).parse(jwks)).toEqual(jwks);
  });

  it('carries rejected keys (kid or null, reason) and duplicate kids, and refuses a malformed one', () => {
    const now = {
      ...jwks,
      rejected: [{ kid: null, reason: 'the RSA modulus has 1024 bits' }],
      duplicates: ['svc-1'],
    };
    expect(JwksStatus.parse(now)).toMatchObject({ rejected: now.rejected, duplicates: ['svc-1'] });
    expect(JwksStatus.safeParse({ ...jwks, rejected: [{ kid: 'x' }] }).success).toBe(false);
  });
});
