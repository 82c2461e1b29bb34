/**
 * The team hub's role table (contract team-roles.ts, issue 30) names every method of the
 * contract once, and nothing else, so a new method cannot slip onto a hub without a decision
 * about who may call it; a method it does not name needs admin.
 */
import { describe, expect, it } from 'vitest';
import { METHOD_NAMES, METHOD_ROLES, isMutation, mayCall, roleFor } from '../../electron/contract';

describe('team roles', () => {
  it('classifies every contract method and nothing else', () => {
    expect(Object.keys(METHOD_ROLES).sort()).toEqual([...METHOD_NAMES].sort());
  });

  it('orders the roles: viewer reads, operator acts, admin holds keys and secrets', () => {
    expect(mayCall('viewer', 'events.query')).toBe(true);
    expect(mayCall('viewer', 'bank.replay')).toBe(false);
    expect(mayCall('operator', 'bank.replay')).toBe(true);
    expect(mayCall('operator', 'keys.generate')).toBe(false);
    expect(mayCall('operator', 'bank.exportCustomersWithKeys')).toBe(false);
    expect(mayCall('admin', 'keys.delete')).toBe(true);
    expect(roleFor('no.suchMethod')).toBe('admin');
    expect(roleFor('__proto__')).toBe('admin');
    expect(isMutation('events.query')).toBe(false);
    expect(isMutation('sandbox.notify')).toBe(true);
  });

  it('lets whoever may do a thing undo it, and whoever may run a listed thing list it', () => {
    // [do, undo]: a role that may take the first and not the second changes what it cannot put back.
    const pairs: [string, string][] = [
      ['conformance.trustRunnerJwks', 'bank.setServiceJwksUrl'],
      ['team.addRoute', 'team.removeRoute'],
      ['tunnel.start', 'tunnel.stop'],
      ['tunnel.trustHostKey', 'tunnel.unpinHostKey'],
      ['bank.saveCustomer', 'bank.removeCustomer'],
      ['sandbox.onboard', 'sandbox.deleteCounterparty'],
      ['keys.generate', 'keys.delete'],
      ['env.save', 'env.remove'],
      ['vault.createPassphrase', 'vault.unlock'],
      // The Scenarios page runs a file from the folder it lists.
      ['scenario.run', 'scenario.list'],
    ];
    for (const role of ['viewer', 'operator', 'admin'] as const)
      for (const [act, undo] of pairs)
        if (mayCall(role, act)) expect(mayCall(role, undo), `${role}: ${act} but not ${undo}`).toBe(true);
  });
});
