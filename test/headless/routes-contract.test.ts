/**
 * The headless routes are generated from the contract table: every method in METHOD_NAMES is
 * routed (reaching the contract's own validation, not a 404), and nothing else is.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { methods, METHOD_NAMES, TRANSPORT, type MethodName } from '../../electron/contract';
import { createConsoleCore, type ConsoleCore } from '../../electron/core/console-core';
import { ROUTED_METHODS, callPath, startHeadlessServer, type HeadlessServer } from '../../electron/headless';
import { request } from './http-client';

let tmp: string;
let core: ConsoleCore;
let server: HeadlessServer;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'dets-routes-'));
  core = await createConsoleCore({ dataDir: tmp, host: 'browser' });
  server = await startHeadlessServer({ core, port: 0, rendererDir: path.join(tmp, 'no-renderer') });
});

afterAll(async () => {
  await server?.close();
  await core?.close();
  await rm(tmp, { recursive: true, force: true, maxRetries: 5 });
});

/** A JSON value the method's own schema refuses, so the call stops at validation. */
function invalidInputFor(name: MethodName): unknown {
  const candidates: unknown[] = [12345, 'not-an-argument', [1, 2, 3], true, { __invalid__: [null] }];
  const refused = candidates.find((c) => !methods[name].input.safeParse(c).success);
  if (refused === undefined)
    throw new Error(`${name}: every probe value passes its schema; add one it refuses`);
  return refused;
}

describe('headless routes and the contract', () => {
  it('route exactly the methods of the contract table, in its order', () => {
    expect([...ROUTED_METHODS]).toEqual(METHOD_NAMES);
  });

  it.each(METHOD_NAMES)('routes %s to the contract validation (BAD_ARGUMENT, not 404)', async (name) => {
    expect(callPath(name)).toBe(`${TRANSPORT.callPathPrefix}${name}`);
    const res = await request({
      port: server.port,
      path: callPath(name),
      method: 'POST',
      headers: { [TRANSPORT.tokenHeader]: server.token, 'content-type': 'application/json' },
      body: JSON.stringify(invalidInputFor(name)),
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ ok: false, error: expect.objectContaining({ code: 'BAD_ARGUMENT' }) });
  });

  it('does not route a name outside the table', async () => {
    const res = await request({
      port: server.port,
      path: `${TRANSPORT.callPathPrefix}app.notInTheContract`,
      method: 'POST',
      headers: { [TRANSPORT.tokenHeader]: server.token },
      body: '{}',
    });
    expect(res.status).toBe(404);
    expect(res.json()).toMatchObject({ ok: false, error: { code: 'UNKNOWN_METHOD' } });
  });
});
