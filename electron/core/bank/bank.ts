/**
 * The bank's side (issue 5; DESIGN.md "Bank endpoints"; spec 4.2, 4.3, 5, 7, 8): GET /user_auth,
 * /key and /external_id verifying X-Session-ID and answering from the test customers; POST
 * {prefix}/pay-in, /pay-out and /transfer storing each notification durably before its 200;
 * every request recorded as an event; deliberate misbehaviours; forward mode.
 *
 * Layout (issue 25): this file only composes. The state the modules share is a plain object
 * (state.ts); the listener's route table is routes.ts; a callback goes through callbacks.ts
 * (verify.ts, replies.ts, forward.ts), a notification through notifications.ts (intake.ts);
 * events are built and appended by recording.ts; recheck and replay are replay.ts; the status
 * and settings are admin.ts; listeners are listening.ts.
 *
 * Threat model: everything a request carries is untrusted. The listener binds where the host
 * says (127.0.0.1 by default), bounds headers (431), bodies (413) and time (timeouts in
 * http/listener.ts); a slow client holds only its own connection. The customers' secret keys
 * leave the process only in the callbacks' answers; in events they are masked to their length
 * (http/reply.ts), and Authorization and Cookie headers are masked (X-Session-ID is kept: it is
 * what is under test; intake.ts).
 */
import path from 'node:path';
import { JwksPool } from '../jwt';
import * as admin from './admin';
import { createCustomerDirectory, toView } from './customers';
import { KID_WAIT_NOTE } from './intake';
import { closeBank, listen } from './listening';
import { freshSession } from './fresh-session';
import { recheck, replay } from './replay';
import { handleBankRequest } from './routes';
import { createSettingsStore } from './settings';
import type { BankState } from './state';
import type { BankEndpoints, BankOptions } from './types';

/** Loads `<dataDir>/bank/` (settings, customers) into a new state, its JWKS client not fetching yet. */
async function createBankState(options: BankOptions): Promise<BankState> {
  const now = options.now ?? Date.now;
  const dir = path.join(options.dataDir, 'bank');
  const settings = createSettingsStore(dir);
  await settings.load();
  const vault = options.vault;
  const customers = createCustomerDirectory({ dir, sealer: vault ? () => vault.sealer() : undefined });
  await customers.load();
  const jwks: JwksPool = new JwksPool({
    sources: () => admin.jwksSources(state),
    fetch: options.fetch,
    now,
    onChange: () => admin.announce(state),
    waitNote: KID_WAIT_NOTE,
  });
  const state: BankState = {
    options,
    now,
    settings,
    customers,
    jwks,
    servers: new Set(),
    pending: new Set(),
    replayWaiters: new Map(),
    answered: [],
    successReplies: new WeakMap(),
    routes: null,
  };
  return state;
}

/**
 * Builds the bank endpoints: loads `<dataDir>/bank/` (settings, customers), and answers requests
 * through `handle` (for any node:http server) or its own listeners (`listen`).
 *
 * @example
 * const bank = await createBankEndpoints({ dataDir, events, store, pairs, serviceJwksUrl, fetch });
 * const l = await bank.listen({ host: '127.0.0.1', port: 0 });
 */
export async function createBankEndpoints(options: BankOptions): Promise<BankEndpoints> {
  const state = await createBankState(options);
  return {
    status: () => admin.status(state),
    customers: async () => state.customers.list().map(toView),
    saveCustomer: (customer) => admin.saveCustomer(state, customer),
    removeCustomer: (obj) => admin.removeCustomer(state, obj),
    importCustomers: (value) => admin.importCustomers(state, value),
    exportCustomers: async () => state.customers.list().map((c) => ({ ...c })),
    setBehaviours: (behaviours) => admin.setBehaviours(state, behaviours),
    setForward: (forward) => admin.setForward(state, forward),
    setNotifyPrefix: (prefix) => admin.setNotifyPrefix(state, prefix),
    setServiceJwksUrl: (url) => admin.setServiceJwksUrl(state, url),
    recheck: (id) => recheck(state, id),
    replay: (id) => replay(state, id),
    freshSession: (id) => freshSession(state, id),
    handle: (req, res) => handleBankRequest(state, req, res),
    listen: (where) => listen(state, where),
    close: () => closeBank(state),
  };
}
