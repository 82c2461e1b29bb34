import { describe, expect, it, vi } from 'vitest';
import { ConsoleError } from '../../electron/contract';
import { SANDBOX_PORT, startSandboxListener } from '../../electron/main/sandbox-listener';

const listener = (port: number) => ({ url: `http://127.0.0.1:${port}`, port, close: vi.fn(async () => {}) });
const inUse = () =>
  Object.assign(new Error('listen EADDRINUSE: address already in use'), { code: 'EADDRINUSE' });
const now = () => new Date('2025-01-01T12:00:00.000Z');

describe('startSandboxListener', () => {
  it('listens on 127.0.0.1:7302 and says nothing when that works', async () => {
    const listenSandbox = vi.fn(async ({ port }: { host: string; port: number }) => listener(port));
    const started = await startSandboxListener({ listenSandbox });
    expect(listenSandbox).toHaveBeenCalledWith({ host: '127.0.0.1', port: SANDBOX_PORT });
    expect(SANDBOX_PORT).toBe(7302);
    expect(started.listener?.port).toBe(7302);
    expect(started.notice).toBeNull();
  });

  it('falls back to a free port when 7302 is taken, with a warning naming the URL in use', async () => {
    const listenSandbox = vi
      .fn<(o: { host: string; port: number }) => Promise<ReturnType<typeof listener>>>()
      .mockRejectedValueOnce(inUse())
      .mockImplementationOnce(async () => listener(41234));
    const started = await startSandboxListener({ listenSandbox }, { now });
    expect(listenSandbox.mock.calls.map(([o]) => o.port)).toEqual([7302, 0]);
    expect(started.listener?.url).toBe('http://127.0.0.1:41234');
    expect(started.notice).toEqual({
      at: '2025-01-01T12:00:00.000Z',
      level: 'warning',
      message: expect.stringContaining('port 7302 is in use'),
    });
    expect(started.notice?.message).toContain('http://127.0.0.1:41234');
  });

  it('starts the app without a sandbox when its state is damaged, and says why', async () => {
    const listenSandbox = vi.fn(async () => {
      throw new ConsoleError(
        'STATE_DAMAGED',
        'the sandbox state file /x/sandbox/state.json is not valid JSON',
      );
    });
    const started = await startSandboxListener({ listenSandbox }, { now });
    expect(listenSandbox).toHaveBeenCalledTimes(1);
    expect(started.listener).toBeNull();
    expect(started.notice).toMatchObject({ level: 'error' });
    expect(started.notice?.message).toMatch(
      /^Sandbox not started: STATE_DAMAGED: .*state\.json is not valid JSON/,
    );
  });

  it('reports a failed fallback as an error, not a crash', async () => {
    const listenSandbox = vi.fn(async () => {
      throw inUse();
    });
    const started = await startSandboxListener({ listenSandbox }, { now });
    expect(listenSandbox).toHaveBeenCalledTimes(2);
    expect(started).toEqual({ listener: null, notice: expect.objectContaining({ level: 'error' }) });
  });
});
