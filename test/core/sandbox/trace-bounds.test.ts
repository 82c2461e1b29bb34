/**
 * The sandbox's recorded exchanges are bounded like every recorded request (issue 24 item 4;
 * DESIGN.md "Storage"): a bank may answer the sandbox's sign-in or notification with headers of
 * any size up to the client's limit, and a trace keeps each header value to 1 KiB and the
 * section to 8 KiB, with the sizes as received in `cut`.
 */
import { describe, expect, it } from 'vitest';
import { Trace } from '../../../electron/contract/schemas/sandbox';
import { TraceBuilder } from '../../../electron/core/sandbox/trace';

describe('trace steps', () => {
  it('bound the headers of an exchange, keeping the sizes, and stay valid for the contract', () => {
    const t = new TraceBuilder('sign-in', '3f0c2d1e-0000-4000-8000-000000000001', () => Date.now());
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    for (let i = 0; i < 12; i++) headers[`x-junk-${i}`] = 'j'.repeat(1400);
    t.step('reachable', 'The bank answered', 'passed', 'HTTP 200', {
      duration_ms: 12,
      request: {
        method: 'GET',
        url: 'http://127.0.0.1:9/user_auth',
        headers: { 'x-session-id': 'a.b.c' },
        body: null,
      },
      response: { status: 200, headers, body: '{}' },
    });
    const trace = Trace.parse(t.finish());
    const response = trace.steps[0]!.response!;
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-junk-0']).toHaveLength(1024);
    const section = Object.entries(response.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    expect(section).toBeLessThanOrEqual(8 * 1024);
    expect(response.cut).toMatchObject({
      values: { 'x-junk-0': 1400 },
      headers_left_out: expect.any(Number),
    });
    expect(response.cut?.header_bytes).toBeGreaterThan(12 * 1400);
    // Nothing cut: the request as it was, no `cut`.
    expect(trace.steps[0]!.request).toEqual({
      method: 'GET',
      url: 'http://127.0.0.1:9/user_auth',
      headers: { 'x-session-id': 'a.b.c' },
      body: null,
    });
  });
});
