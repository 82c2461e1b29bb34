/**
 * The request target rule of the headless server (requests.ts), which was private to its
 * closure: only origin-form targets are served; absolute-form, authority-form, `*` and
 * scheme-relative targets are refused before any check that could say more.
 */
import { describe, expect, it } from 'vitest';
import { parseTarget } from '../../electron/headless/requests';

describe('parseTarget', () => {
  it('splits an origin-form target into path and query', () => {
    const target = parseTarget('/api/call/keys.list?a=1&b=two');
    expect(target?.path).toBe('/api/call/keys.list');
    expect(Object.fromEntries(target?.query ?? [])).toEqual({ a: '1', b: 'two' });
    expect(parseTarget('/')?.path).toBe('/');
  });

  it('refuses every other form', () => {
    for (const raw of [undefined, '', '*', 'http://evil.example/api', '127.0.0.1:80', '//evil.example/x']) {
      expect(parseTarget(raw), String(raw)).toBeUndefined();
    }
  });
});
