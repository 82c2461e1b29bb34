/**
 * A console core with its sandbox and bank on 127.0.0.1, one customer, and a second service
 * (its JWKS on a real HTTP server, test/support/real-service.ts) saved as the environment
 * "Staging": what the environment-aware bank tests start from. `call` sends a /user_auth with a
 * token and answers its status and the callback event stored for it.
 */
import type { EventDetail } from '../../../electron/contract/schemas/events';
import type { Environment } from '../../../electron/contract/schemas/service';
import type { ConsoleCore } from '../../../electron/core/console-core';
import { startRealService } from '../../support/real-service';
import { tempCore, valueOf } from '../../support/temp-core';

export const CUSTOMER = {
  obj: 'DE89370400440532013000',
  sub: 'ops@bank.example',
  external_id: 'ext-1',
  phone: '+4930123',
  key: 'k-0123456789',
};

/** The stored event of the newest callback not in `seen` (bounded wait: 3 s). */
export async function eventAfter(core: ConsoleCore, seen: Set<string>): Promise<EventDetail> {
  for (let i = 0; i < 300; i++) {
    const page = await valueOf<{ events: Array<{ id: string }> }>(core, 'events.query', {
      kind: 'callback',
      limit: 1,
    });
    const id = page.events[0]?.id;
    if (id && !seen.has(id)) {
      seen.add(id);
      return valueOf<EventDetail>(core, 'events.get', { id });
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no new callback event');
}

/**
 * @example
 * const { core, call, real } = await twoServices(); const { status, event } = await call(token);
 */
export async function twoServices() {
  const { core } = await tempCore();
  await core.listenSandbox({ host: '127.0.0.1', port: 0 });
  const bank = await core.listenBank({ host: '127.0.0.1', port: 0 });
  await valueOf(core, 'bank.saveCustomer', CUSTOMER);
  const real = await startRealService();
  const staging = await valueOf<Environment>(core, 'env.save', { name: 'Staging', base_url: real.base });
  const sandbox = await core.sandbox();
  const seen = new Set<string>();
  const call = async (token: string) => {
    const res = await fetch(`${bank.url}/user_auth`, { headers: { 'X-Session-ID': token } });
    await res.text();
    return { status: res.status, event: await eventAfter(core, seen) };
  };
  return { core, bank, real, staging, sandbox, seen, call };
}
