/**
 * A key's status per environment (issue 26 item 1; DESIGN.md "Environments"): a new active_kid
 * retires the key it replaces in that environment only, every listing names each environment's
 * status, and the key a signing form starts with is the environment's active key, never one the
 * environment retired.
 */
import { describe, expect, it } from 'vitest';
import type { Environment } from '../../../electron/contract/schemas/service';
import { applySave } from '../../../electron/core/service/environments-edit';
import { emptyState } from '../../../electron/core/service/environments-file';
import { environmentsView } from '../../../electron/core/service/environments-view';
import { keyInfoOf } from '../keys/helpers';
import { preferredKid, retiredAfter, withEnvironments } from '../../../electron/core/service';

const blank = emptyState;

const key = keyInfoOf;

describe('key status per environment', () => {
  it('a walkthrough in a second environment leaves the first one’s active key active there', () => {
    const state = blank();
    applySave(state, { id: 'sandbox', active_kid: 'sandbox-key' });
    const real = applySave(state, { name: 'Staging', base_url: 'https://s.example' });
    applySave(state, { id: real, active_kid: 'real-key' });
    // The profile-wide status the key store keeps says the sandbox key was retired by the
    // second walkthrough; the environments say what each uses.
    const keys = [key('sandbox-key', 'retired'), key('real-key', 'active'), key('spare', 'next')];
    const envs = environmentsView(state, () => 'http://127.0.0.1:1').environments;
    const listed = withEnvironments(keys, envs);
    expect(listed[0]!.environments).toEqual([{ environment: 'sandbox', name: 'Sandbox', status: 'active' }]);
    expect(listed[1]!.environments).toEqual([{ environment: real, name: 'Staging', status: 'active' }]);
    expect(listed[2]!.environments).toEqual([]);
    expect(preferredKid(keys, envs[0]!)).toBe('sandbox-key');
    expect(preferredKid(keys, envs[1]!)).toBe('real-key');
  });

  it('rotation in one environment retires the old key there only, and a form never preselects it', () => {
    const state = blank();
    applySave(state, { id: 'sandbox', active_kid: 'k1' });
    const real = applySave(state, { name: 'Staging', base_url: 'https://s.example', active_kid: 'k1' });
    applySave(state, { id: real, active_kid: 'k2' });
    const envs: Environment[] = environmentsView(state, () => null).environments;
    const listed = withEnvironments([key('k1', 'retired'), key('k2', 'active')], envs);
    expect(listed[0]!.environments).toEqual([
      { environment: 'sandbox', name: 'Sandbox', status: 'active' },
      { environment: real, name: 'Staging', status: 'retired' },
    ]);
    // A form for an environment whose active key is not in the vault never falls back to a key
    // that environment retired.
    const staging = { ...envs[1]!, active_kid: 'gone' };
    expect(preferredKid([key('k1', 'active'), key('k3', 'next')], staging)).toBe('k3');
    expect(preferredKid([key('k1', 'active')], staging)).toBeNull();
    // Among the keys a counterparty registered only.
    expect(preferredKid([key('k1', 'active'), key('k3', 'next')], envs[0]!, ['k3'])).toBe('k3');
  });

  it('making a retired key active again takes it off the retired list', () => {
    expect(retiredAfter({ active_kid: 'b', retired_kids: ['a'] }, 'a')).toEqual(['b']);
    expect(retiredAfter({ active_kid: null, retired_kids: [] }, 'a')).toEqual([]);
    expect(retiredAfter({ active_kid: 'a', retired_kids: [] }, 'a')).toEqual([]);
  });

  it('a new real environment records when it was created; the sandbox has no creation time', () => {
    const state = blank();
    const before = Date.now();
    const id = applySave(state, { name: 'Staging', base_url: 'https://s.example' });
    const view = environmentsView(state, () => null).environments;
    const created = view.find((e) => e.id === id)!.created_at!;
    expect(Date.parse(created)).toBeGreaterThanOrEqual(before - 1000);
    expect(view[0]!.created_at).toBeNull();
  });
});
