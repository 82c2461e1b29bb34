/**
 * The renderer tests' ConsoleApi is the contract's (issue 25 item 5): a fake whose answers drift
 * from the contract's schemas fails the call, and a page that sends what the core would refuse is
 * refused the same way, before any handler.
 */
import { describe, expect, it, vi } from 'vitest';
import { ConsoleError } from '../../../electron/contract';
import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import { contractApi } from './contract-api';
import { fakeConsole, keyInfo } from './fake-console';
import { fakeEventsConsole, summary } from './fake-events';

async function refusal(call: Promise<unknown>): Promise<ConsoleError> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConsoleError);
  return err as ConsoleError;
}

describe('contractApi: the fake ConsoleApi is checked against the contract', () => {
  it('answers what a handler returns when it fits the output schema', async () => {
    const list = vi.fn(async () => [keyInfo('k1')]);
    const { api, drift } = contractApi({ keys: { list } });
    expect((await api.keys.list())[0]?.kid).toBe('k1');
    expect(drift).toEqual([]);
  });

  it('fails a call whose answer drifted from the output schema, naming the method and the field', async () => {
    const drifted = { ...keyInfo('k1'), bits: '2048' } as unknown as KeyInfo;
    const { api, drift } = contractApi({ keys: { list: async () => [drifted] } });
    const err = await refusal(api.keys.list());
    expect(err.code).toBe('INTERNAL');
    expect(err.message).toContain('keys.list');
    expect(err.message).toContain('0.bits');
    expect(drift).toHaveLength(1);
  });

  it('fails a shared fake that drifts: fakeConsole with a key missing its fingerprint', async () => {
    const { fingerprint: _dropped, ...rest } = keyInfo('k1');
    const fake = fakeConsole({ keys: [rest as unknown as KeyInfo] });
    expect((await refusal(fake.api.keys.list())).message).toMatch(/keys\.list: 0\.fingerprint/);
  });

  it('fails an event store fake whose summaries drift', async () => {
    const bad = { ...summary({ id: 'e1' }), status: 'ok' } as unknown as ReturnType<typeof summary>;
    const fake = fakeEventsConsole({ events: [bad] });
    const err = await refusal(fake.api.events.query({ kind: 'callback', limit: 10 }));
    expect(err.message).toMatch(/events\.query: events\.0\.status/);
  });

  it('refuses an argument the contract refuses before the handler runs, as the hosts do', async () => {
    const generate = vi.fn(async () => keyInfo('k1'));
    const { api } = contractApi({ keys: { generate } });
    const err = await refusal(api.keys.generate({ bits: 1024 as 2048 }));
    expect(err.code).toBe('BAD_ARGUMENT');
    expect(err.message).toContain('keys.generate: bits');
    expect(generate).not.toHaveBeenCalled();
  });

  it("passes a handler's ConsoleError on with its code, message and details", async () => {
    const refuse = async () => {
      throw new ConsoleError('BAD_ARGUMENT', 'kid already exists', { field: 'kid' });
    };
    const { api } = contractApi({ keys: { generate: refuse } });
    const err = await refusal(api.keys.generate({ kid: 'k1' }));
    expect([err.code, err.message, err.details]).toEqual([
      'BAD_ARGUMENT',
      'kid already exists',
      { field: 'kid' },
    ]);
  });

  it('names a method the fake has no handler for', async () => {
    const { api } = contractApi({});
    const err = await refusal(api.vault.status());
    expect(err.code).toBe('UNKNOWN_METHOD');
    expect(err.message).toContain('vault.status');
  });

  it('plays only live events whose payload fits the event schema', () => {
    const { api, emit, drift } = contractApi({});
    const heard = vi.fn();
    api.on('keys.changed', heard);
    emit('keys.changed', [keyInfo('k1')]);
    expect(heard).toHaveBeenCalledTimes(1);
    expect(() => emit('keys.changed', [{ kid: 'k2' } as unknown as KeyInfo])).toThrow(/event keys\.changed/);
    expect(heard).toHaveBeenCalledTimes(1);
    expect(drift).toHaveLength(1);
  });
});
