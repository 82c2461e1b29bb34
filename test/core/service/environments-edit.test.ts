/**
 * env.save's rules (environments-edit.ts) on a state in memory, which were reachable only
 * through the environment store's closure and a file on disk.
 */
import { describe, expect, it } from 'vitest';
import { ConsoleError } from '../../../electron/contract/errors';
import { applySave, checkBaseUrl, checkNameFree } from '../../../electron/core/service/environments-edit';
import { emptyState } from '../../../electron/core/service/environments-file';

const blank = emptyState;

function refusal(fn: () => unknown): { code: string; field: unknown } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConsoleError)
      return { code: err.code, field: (err.details as { field?: unknown })?.field };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('env.save rules', () => {
  it('base_url is the service root: trailing slashes dropped, /api/v1 refused', () => {
    expect(checkBaseUrl('https://dets.example///')).toBe('https://dets.example');
    expect(refusal(() => checkBaseUrl('https://dets.example/API/v1/'))).toEqual({
      code: 'BAD_ARGUMENT',
      field: 'base_url',
    });
  });

  it('names are unique ignoring case and spaces, the sandbox included', () => {
    const state = blank();
    const id = applySave(state, { name: ' Staging ', base_url: 'https://s.example' });
    expect(state.environments[0]).toMatchObject({ id, name: 'Staging', base_url: 'https://s.example' });
    expect(refusal(() => checkNameFree(state, 'staging', undefined))).toEqual({
      code: 'CONFLICT',
      field: 'name',
    });
    expect(refusal(() => checkNameFree(state, 'SANDBOX', undefined))).toEqual({
      code: 'CONFLICT',
      field: 'name',
    });
    expect(() => checkNameFree(state, 'staging', id)).not.toThrow(); // renaming itself
  });

  it("the sandbox's URL and JWKS cannot be set; its profile can", () => {
    const state = blank();
    expect(refusal(() => applySave(state, { id: 'sandbox', base_url: 'https://x.example' }))).toEqual({
      code: 'BAD_ARGUMENT',
      field: 'base_url',
    });
    expect(applySave(state, { id: 'sandbox', active_kid: 'k1' })).toBe('sandbox');
    expect(state.sandbox.active_kid).toBe('k1');
  });

  it('a new environment needs a name and a base_url; an unknown id is NOT_FOUND; nothing changes on refusal', () => {
    const state = blank();
    expect(refusal(() => applySave(state, { base_url: 'https://s.example' }))).toEqual({
      code: 'BAD_ARGUMENT',
      field: 'name',
    });
    expect(refusal(() => applySave(state, { name: 'Staging' }))).toEqual({
      code: 'BAD_ARGUMENT',
      field: 'base_url',
    });
    expect(refusal(() => applySave(state, { id: 'nope', name: 'X' }))).toEqual({
      code: 'NOT_FOUND',
      field: 'id',
    });
    expect(state).toEqual(blank());
  });
});
