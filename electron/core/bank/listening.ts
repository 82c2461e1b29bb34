/**
 * The bank's listeners (DESIGN.md "Bank endpoints"; `serve`, the Bank page's start): node:http
 * (or https with --tls-cert) servers over the route table (routes.ts), bounded by http/listener.ts
 * (431 headers, 413 bodies, timeouts). A request node:http refuses before routing is an event too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ClientErrorInfo, startServer } from '../http';
import { announce } from './admin';
import { clientErrorEvent, recordAnswered, recordLater } from './recording';
import { handleBankRequest } from './routes';
import type { BankState } from './state';
import type { BankListener, BankListenOptions } from './types';

/** Starts a listener; its URL is the status's while it is the first one running. */
export async function listen(
  state: BankState,
  { intercept, ...where }: BankListenOptions,
): Promise<BankListener> {
  const handle = (req: IncomingMessage, res: ServerResponse) => handleBankRequest(state, req, res);
  // `intercept` answers a few console-level paths (the reachability probe, issue 14) before
  // the bank routes; everything else goes on to them unchanged.
  // A web page's request (Origin) is refused by handle even on those paths (http/origin.ts).
  const handler = intercept
    ? (req: IncomingMessage, res: ServerResponse) => {
        if (req.headers.origin !== undefined || !intercept(req, res)) handle(req, res);
      }
    : handle;
  const onClientError = (info: ClientErrorInfo) =>
    recordLater(state, clientErrorEvent(info, state.now()), undefined);
  const server = await startServer(handler, { ...where, onClientError });
  state.servers.add(server);
  announce(state);
  return {
    url: server.url,
    port: server.port,
    close: async () => {
      state.servers.delete(server);
      announce(state);
      await server.close();
    },
  };
}

/** Stops the JWKS client and every listener, then records what was answered and waits for the appends. */
export async function closeBank(state: BankState): Promise<void> {
  state.jwks.stop();
  const closing = [...state.servers].map((s) => s.close());
  state.servers.clear();
  await Promise.all(closing);
  recordAnswered(state);
  await Promise.allSettled([...state.pending]);
}
