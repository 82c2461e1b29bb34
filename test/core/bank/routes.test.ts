import { describe, expect, it } from 'vitest';
import { RouteTable } from '../../../electron/core/http/router';
import { bankRoutes, CALLBACK_PATHS } from '../../../electron/core/bank/routes';

describe("the bank listener's route table", () => {
  const table = new RouteTable(bankRoutes('/api/dcm/notify'));

  it('the three callbacks take GET (spec 4.2) and nothing else', () => {
    for (const path of CALLBACK_PATHS) {
      expect(table.match('GET', path)).toMatchObject({ kind: 'found', route: { serve: 'callback', path } });
      const other = table.match('POST', path);
      expect(other).toMatchObject({ kind: 'method_not_allowed', allow: 'GET' });
      if (other.kind === 'method_not_allowed') expect(other.routes[0]?.serve).toBe('callback');
    }
  });

  it('the three notifications take POST under the prefix it was made for (spec 4.3), by name', () => {
    for (const name of ['pay-in', 'pay-out', 'transfer']) {
      expect(table.match('POST', `/api/dcm/notify/${name}`)).toMatchObject({
        kind: 'found',
        route: { serve: 'notification', name },
      });
      expect(table.match('GET', `/api/dcm/notify/${name}`)).toMatchObject({
        kind: 'method_not_allowed',
        allow: 'POST',
      });
    }
    // Another prefix (the default one), a name it does not have, a deeper path: none is a route.
    for (const path of ['/api/svc/notify/pay-in', '/api/dcm/notify/refund', '/api/dcm/notify/pay-in/x']) {
      expect(table.match('POST', path).kind, path).toBe('not_found');
    }
  });

  it('a path is matched exactly: no trailing slash, no query, no case folding, no %-decoding', () => {
    for (const path of ['/key/', '/KEY', '/user_auth?x=1', '/us%65r_auth', '//key']) {
      expect(table.match('GET', path).kind, path).toBe('not_found');
    }
  });
});
