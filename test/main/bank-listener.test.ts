import { describe, expect, it, vi } from 'vitest';
import { ConsoleError } from '../../electron/contract';
import { BANK_PORT, startBankListener } from '../../electron/main/bank-listener';

const listener = (port: number) => ({ url: `http://127.0.0.1:${port}`, port, close: vi.fn(async () => {}) });
const inUse = () =>
  Object.assign(new Error('listen EADDRINUSE: address already in use'), { code: 'EADDRINUSE' });
const now = () => new Date('2025-01-01T12:00:00.000Z');

describe('startBankListener', () => {
  it('listens on 127.0.0.1:7301 and says nothing when that works', async () => {
    const listenBank = vi.fn(async ({ port }: { host: string; port: number }) => listener(port));
    const started = await startBankListener({ listenBank });
    expect(listenBank).toHaveBeenCalledWith({ host: '127.0.0.1', port: BANK_PORT });
    expect(BANK_PORT).toBe(7301);
    expect(started.listener?.port).toBe(7301);
    expect(started.notice).toBeNull();
  });

  it('falls back to a free port when 7301 is taken, with a warning naming the URL in use', async () => {
    const listenBank = vi
      .fn<(o: { host: string; port: number }) => Promise<ReturnType<typeof listener>>>()
      .mockRejectedValueOnce(inUse())
      .mockImplementationOnce(async () => listener(41234));
    const started = await startBankListener({ listenBank }, { now });
    expect(listenBank.mock.calls.map(([o]) => o.port)).toEqual([7301, 0]);
    expect(started.listener?.url).toBe('http://127.0.0.1:41234');
    expect(started.notice).toEqual({
      at: '2025-01-01T12:00:00.000Z',
      level: 'warning',
      message: expect.stringContaining('port 7301 is in use'),
    });
    expect(started.notice?.message).toContain('http://127.0.0.1:41234');
    expect(started.notice?.message).toMatch(/^Bank endpoints: /);
  });

  it('starts the app without bank endpoints when their state is damaged, and says why', async () => {
    const listenBank = vi.fn(async () => {
      throw new ConsoleError('STATE_DAMAGED', 'the customers file /x/bank/customers.json is not valid JSON');
    });
    const started = await startBankListener({ listenBank }, { now });
    expect(listenBank).toHaveBeenCalledTimes(1);
    expect(started.listener).toBeNull();
    expect(started.notice).toMatchObject({ level: 'error' });
    expect(started.notice?.message).toMatch(
      /^Bank endpoints not started: STATE_DAMAGED: .*customers\.json is not valid JSON/,
    );
  });

  it('reports a failed fallback as an error, not a crash', async () => {
    const listenBank = vi.fn(async () => {
      throw inUse();
    });
    const started = await startBankListener({ listenBank }, { now });
    expect(listenBank).toHaveBeenCalledTimes(2);
    expect(started).toEqual({ listener: null, notice: expect.objectContaining({ level: 'error' }) });
  });
});
