/**
 * The Sandbox page end to end, as an engineer uses it: `dets-console serve` with its sandbox on a
 * fresh data directory, the built renderer in headless Chromium, a bank key made by jose, and a
 * small real bank (node:http) that answers /user_auth after verifying the sandbox's X-Session-ID
 * against the sandbox's JWKS, as spec 4.4 #8 says a bank must, and takes notifications.
 */
import { mkdir } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPageModel } from './pages/sandbox-page';
import { launchChromium, collectPageProblems } from './support/browser';
import { ROOT } from './support/build';
import { startServe, type ServeProcess } from './support/serve';
import { createSigner, nowSeconds, type TestSigner } from './support/tokens';

const SHOTS = join(ROOT, 'test-results/e2e');
const OBJ = 'DE89370400440532013000';
const SUB = 'ops@bank.example';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface BankRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** For /user_auth: the verified X-Session-ID claims, or why they did not verify. */
  session?: JWTPayload | { error: string };
}

/** A bank's backend, minimal but honest: it checks X-Session-ID before answering. */
async function startTestBank(jwksUrl: string) {
  const jwks = createRemoteJWKSet(new URL(jwksUrl));
  const received: BankRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const entry: BankRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        received.push(entry);
        if (req.method === 'GET' && req.url === '/user_auth') {
          try {
            const { payload } = await jwtVerify(String(req.headers['x-session-id']), jwks);
            entry.session = payload;
          } catch (err) {
            entry.session = { error: err instanceof Error ? err.message : String(err) };
            res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              external_id: 'cust-000042',
              first_name: 'Ana',
              last_name: 'Lovelace',
              email: 'ana@example.com',
              phone: '+4915112345678',
              key: 'user-secret-key-42',
            }),
          );
          return;
        }
        if (req.method === 'POST' && req.url?.startsWith('/api/svc/notify/')) {
          res.writeHead(200).end();
          return;
        }
        res.writeHead(404).end();
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let sandbox: SandboxPageModel;
let signer: TestSigner;
let bank: Awaited<ReturnType<typeof startTestBank>> | undefined;
let guid: string;
const pageProblems: string[] = [];

beforeAll(async () => {
  await mkdir(SHOTS, { recursive: true });
  signer = await createSigner('bank-key-2025-06');
  serve = await startServe();
  if (!serve.ready.sandbox) throw new Error(`serve started no sandbox: ${JSON.stringify(serve.ready)}`);
  bank = await startTestBank(`${serve.ready.sandbox}/api/v1/.well-known/jwks.json`);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  page = await context.newPage();
  collectPageProblems(page, pageProblems);
  sandbox = new SandboxPageModel(page);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await bank?.close();
  const code = await serve?.stop();
  if (serve) expect(code, `serve exit code; stderr:\n${serve.stderr()}`).toBe(0);
}, 30_000);

function signInToken(): Promise<string> {
  const iat = nowSeconds();
  return signer.sign({ flow: 'sign-in', obj: OBJ, sub: SUB, iat, exp: iat + 300 });
}

describe('Sandbox page in browser mode', () => {
  it('shows the sandbox serve started: its URL, its JWKS URL and its keys', async () => {
    await sandbox.open(serve!.ready.ui);
    expect(await sandbox.sandboxUrl.textContent()).toBe(serve!.ready.sandbox);
    expect(await sandbox.jwksUrl.textContent()).toBe(`${serve!.ready.sandbox}/api/v1/.well-known/jwks.json`);
    const jwks = (await (await fetch(`${serve!.ready.sandbox}/api/v1/.well-known/jwks.json`)).json()) as {
      keys: Array<{ kid: string }>;
    };
    for (const { kid } of jwks.keys) await page.locator(`[data-testid="sandbox-key-${kid}"]`).waitFor();
  });

  it('onboards a counterparty with a public JWK pasted into the form, and lists it with that JWK', async () => {
    guid = await sandbox.onboard(signer.publicJwk);
    expect(guid).toMatch(UUID);
    expect(await sandbox.registeredKids(guid)).toEqual([signer.kid]);
    // The sandbox itself knows it, as its control endpoint shows.
    const res = await fetch(`${serve!.ready.sandbox}/sandbox/v1/counterparties/${guid}`);
    expect(res.status).toBe(200);
  });

  it("sets the bank's URLs", async () => {
    await sandbox.setBankUrls(guid, { auth: bank!.url, receiver: bank!.url });
    const res = await fetch(`${serve!.ready.sandbox}/sandbox/v1/counterparties/${guid}`);
    expect(await res.json()).toMatchObject({ bank_auth_url: bank!.url, bank_receiver_url: bank!.url });
  });

  it('runs sign-in with a bank JWT: the bank is called with a verifiable X-Session-ID, the trace shows every step passed', async () => {
    const known = await sandbox.traceIds();
    expect(await sandbox.runSignIn(guid, await signInToken())).toBe(true);
    const id = await sandbox.waitForNewTrace(known);
    const trace = sandbox.trace(id);
    expect(await trace.getAttribute('data-kind')).toBe('sign-in');
    expect(await trace.getAttribute('data-ok')).toBe('true');
    const steps = await sandbox.stepStatuses(id);
    expect(steps.length).toBeGreaterThan(3);
    expect(steps.filter(([, status]) => status !== 'passed')).toEqual([]);

    const call = bank!.received.find((r) => r.path === '/user_auth');
    expect(call?.session).toMatchObject({ flow: 'sign-in', obj: OBJ, sub: SUB });
    const request = await sandbox.stepRequest(id, 'reachable');
    expect(request).toContain(`GET ${bank!.url}/user_auth`);
  });

  it('shows a sign-in started elsewhere live, without a reload', async () => {
    const known = await sandbox.traceIds();
    const before = bank!.received.length;
    const res = await fetch(`${serve!.ready.sandbox}/sandbox/v1/counterparties/${guid}/sign-in`, {
      method: 'POST',
      headers: { 'CX-Authorization': await signInToken() },
    });
    expect(res.status).toBe(200);
    expect(bank!.received.length).toBe(before + 1);
    const id = await sandbox.waitForNewTrace(known);
    expect(await sandbox.trace(id).getAttribute('data-ok')).toBe('true');
  });

  it('sends a pay-in: the bank receives a UUID transaction_id, and the trace shows it', async () => {
    const known = await sandbox.traceIds();
    const sent = await sandbox.sendNotification(guid, 'pay-in');
    expect(sent.status).toBe('200');
    expect(sent.transactionId).toMatch(UUID);

    const delivery = bank!.received.find((r) => r.method === 'POST' && r.path === '/api/svc/notify/pay-in');
    expect(delivery).toBeDefined();
    expect(JSON.parse(delivery!.body)).toEqual({ transaction_id: sent.transactionId });

    const id = await sandbox.waitForNewTrace(known);
    const trace = sandbox.trace(id);
    expect(await trace.getAttribute('data-kind')).toBe('notify');
    expect(await trace.getAttribute('data-ok')).toBe('true');
    await sandbox.expandTrace(id);
    expect(await trace.textContent()).toContain(sent.transactionId!);
    const request = await sandbox.stepRequest(id, 'delivered');
    expect(request).toContain(`POST ${bank!.url}/api/svc/notify/pay-in`);
    expect(request).toContain(sent.transactionId!);
    await sandbox.screenshot(join(SHOTS, 'sandbox.png'));
  });

  it('logged no page error, CSP violation or failed request', () => {
    expect(pageProblems).toEqual([]);
  });
});
