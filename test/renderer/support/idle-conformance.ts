import { vi } from 'vitest';
import type { ConsoleApi } from '../../../electron/contract';
import { contractApi } from './contract-api';
import { fakeConsole } from './fake-console';

/**
 * A contract-checked ConsoleApi for the Conformance page over a fake console's environments: no
 * report yet, and a run or self-check that never ends (the form, not the run, is under test).
 */
export function idleConformanceApi(fake: ReturnType<typeof fakeConsole> = fakeConsole()): ConsoleApi {
  return contractApi({
    env: fake.env,
    conformance: {
      lastReport: vi.fn(async () => null),
      run: vi.fn(() => new Promise(() => undefined)),
      selfCheck: vi.fn(() => new Promise(() => undefined)),
      export: vi.fn(),
    },
  }).api;
}
