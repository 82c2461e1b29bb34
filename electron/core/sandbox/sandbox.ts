/**
 * The service simulator (DESIGN.md "Sandbox service"): the spec's endpoints under /api/v1, the
 * sandbox-only controls under /sandbox/v1, and the same operations as Sandbox methods for the
 * ConsoleApi. State lives in the profile database `<dataDir>/console.db` (state-store.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { controlRoutes } from './control-routes';
import { SandboxEngine } from './engine';
import { serviceRoutes } from './service-routes';
import { maskSignInResult } from './trace';
import type { Sandbox, SandboxListener, SandboxOptions } from './types';
import { toWireError } from './errors';
import {
  jsonReply,
  originRefusal,
  refusedRequest,
  Router,
  type RunningServer,
  sendJson,
  startServer,
} from '../http';

/**
 * Loads the sandbox for a profile. Rejects with ConsoleError STATE_DAMAGED when the state file
 * exists but cannot be used (it is then left untouched).
 *
 * @example
 * const sandbox = await createSandbox({ dataDir, events });
 * const { url } = await sandbox.listen({ host: '127.0.0.1', port: 0 });
 */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const engine = await SandboxEngine.create(options);
  const router = new Router([...serviceRoutes(engine), ...controlRoutes(engine)], {
    notFoundHint:
      "the sandbox serves the service's endpoints under /api/v1 and its controls under /sandbox/v1",
    // Whatever a route throws becomes the sandbox's error body (errors.ts).
    errorReply: (err) => {
      const wire = toWireError(err);
      return jsonReply(wire.status, wire.body, { headers: wire.headers });
    },
  });
  const servers = new Set<RunningServer>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    // Every route, the spec's and the controls alike: a web page must not onboard, rotate the
    // key or make the sandbox call URLs of its choosing (http/origin.ts, DESIGN.md).
    const refused = originRefusal(req);
    if (!refused) return router.handle(req, res);
    req.resume();
    sendJson(res, refused.status, { error: refused.error, detail: refused.detail });
    try {
      options.onRefused?.(refusedRequest(req, refused, engine.now()));
    } catch {
      // Recording a refusal never stops the refusal.
    }
  };

  return {
    status: async () => engine.status(),
    traces: async (query) => engine.traces(query ?? {}),
    onboard: (input) => engine.onboard(input),
    updateCounterparty: (input) => engine.updateCounterparty(input),
    deleteCounterparty: (input) => engine.deleteCounterparty(input.counterparty_guid),
    // The ConsoleApi's answer reaches the page, which never sees a user's secret key (issue 13
    // item 7); the HTTP control route keeps the spec's whole answer (control-routes.ts).
    signIn: async (input) => maskSignInResult(await engine.signIn(input.counterparty_guid, input.token)),
    notify: (input) => engine.notify(input),
    delivery: async (input) => engine.delivery(input.delivery_id),
    deliveries: async (input) => engine.listDeliveries(input ?? {}),
    rotateKey: async () => {
      await engine.rotateKey();
    },
    updateSettings: (partial) => engine.updateSettings(partial),
    signServiceToken: (claims) => engine.signServiceToken(claims),
    handle,
    async listen(opts): Promise<SandboxListener> {
      const server = await startServer(handle, opts);
      servers.add(server);
      engine.url ??= server.url;
      return {
        url: server.url,
        port: server.port,
        close: async () => {
          servers.delete(server);
          if (engine.url === server.url) engine.url = null;
          await server.close();
        },
      };
    },
    async close() {
      const closing = [...servers].map((s) => s.close());
      servers.clear();
      engine.url = null;
      await Promise.all(closing);
      await engine.close();
    },
  };
}
