/**
 * Issue 24 item 9, in headless Chromium: no local program can borrow the browser's access.
 *
 * A browser sends 127.0.0.1 cookies to every port of 127.0.0.1 (DESIGN.md "Architecture"), and
 * the previous version put the access token in such a cookie: a dev server on another port
 * received it on every request. Here a "bystander" server on another 127.0.0.1 port records
 * every request the browser sends it while the console is used in full (the access link, data
 * loaded, live events, a second tab); it must receive no Cookie carrying the token and no header
 * holding it. Every Set-Cookie the console sends during the session is collected (there must be
 * none), and the console's API refuses each cookie the browser holds, presented alone, and the
 * old cookie name with the right token. The event stream needs the header.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BankPageModel } from './pages/bank-page';
import { NotificationsPageModel } from './pages/notifications-page';
import { collectPageProblems, launchChromium } from './support/browser';
import { callApi, postNotification, startServe, type ServeProcess } from './support/serve';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/**
 * The bystander: another local server the user's browser visits. Its page loads an image and
 * calls fetch with credentials included, as a dev server's page would, and sets a cookie of its
 * own on 127.0.0.1 (so the console's requests can be checked for not carrying it).
 */
const BYSTANDER_PAGE = `<!doctype html><title>bystander</title><img src="/pixel.gif" alt="">
<script>fetch('/probe', { credentials: 'include' }).then(() => (document.title = 'probed'));</script>`;

let serve: ServeProcess | undefined;
let browser: Browser | undefined;
let bystander: Server | undefined;
let bystanderUrl = '';
const bystanderSaw: Seen[] = [];

beforeAll(async () => {
  serve = await startServe();
  browser = await launchChromium();
  bystander = createServer((req, res) => {
    bystanderSaw.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    if (new URL(req.url ?? '/', 'http://x').pathname === '/') {
      res.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Set-Cookie': 'bystander_session=dev-server-cookie; Path=/',
      });
      res.end(BYSTANDER_PAGE);
    } else {
      res.writeHead(204).end();
    }
  });
  await new Promise<void>((resolve) => bystander!.listen(0, '127.0.0.1', resolve));
  bystanderUrl = `http://127.0.0.1:${(bystander.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  bystander?.closeAllConnections();
  await new Promise<void>((resolve) => (bystander ? bystander.close(() => resolve()) : resolve()));
  await serve?.stop();
});

const consoleOrigin = () => new URL(serve!.ready.ui).origin;
const token = () => new URL(serve!.ready.ui).searchParams.get('token')!;

/** Every Set-Cookie header the console's origin sends to the context, whatever the response. */
function collectConsoleSetCookies(context: BrowserContext): string[] {
  const found: string[] = [];
  context.on('response', (res) => {
    if (new URL(res.url()).origin !== consoleOrigin()) return;
    void res
      .headerValues('set-cookie')
      .then((values) => found.push(...values))
      .catch(() => undefined);
  });
  return found;
}

/** The Cookie header of each request the context sends to the console's /api, by path. */
function collectApiCookies(context: BrowserContext): Array<{ path: string; cookie: string | undefined }> {
  const found: Array<{ path: string; cookie: string | undefined }> = [];
  context.on('request', (req) => {
    const url = new URL(req.url());
    if (url.origin !== consoleOrigin() || !url.pathname.startsWith('/api/')) return;
    void req
      .allHeaders()
      .then((h) => found.push({ path: url.pathname, cookie: h.cookie }))
      .catch(() => undefined);
  });
  return found;
}

const callInfo = (headers: Record<string, string>) =>
  fetch(`${consoleOrigin()}/api/call/app.info`, { method: 'POST', headers });

describe('no credential in a cookie (browser mode)', () => {
  let context: BrowserContext;
  let setCookies: string[] = [];
  let apiCookies: Array<{ path: string; cookie: string | undefined }> = [];
  const problems: string[] = [];

  // One whole session, as a user has it: the bystander visited, the access link opened, data
  // loaded, live events in two tabs, then the bystander visited again. The tests read what it left.
  beforeAll(async () => {
    context = await browser!.newContext();
    setCookies = collectConsoleSetCookies(context);
    apiCookies = collectApiCookies(context);

    // The user visits the bystander first: it leaves its own cookie on 127.0.0.1.
    const visit = await context.newPage();
    await visit.goto(bystanderUrl);
    await visit.waitForFunction(() => document.title === 'probed');

    const first = new NotificationsPageModel(await context.newPage());
    collectPageProblems(first.page, problems);
    await first.openConsole(serve!.ready.ui);
    await first.open();
    const second = new NotificationsPageModel(await context.newPage());
    collectPageProblems(second.page, problems);
    await second.openConsole(`${consoleOrigin()}/#/notifications`);
    await second.root.waitFor();
    const transactionId = await postNotification(serve!);
    await first.row(transactionId).waitFor();
    await second.row(transactionId).waitFor();
    await second.goTo('bank', 'bank-page');

    // Then the bystander again, from a tab of the same browser, after the console has been used.
    await visit.goto(`${bystanderUrl}/?again`);
    await visit.waitForFunction(() => document.title === 'probed');
  }, 120_000);

  afterAll(async () => {
    await context?.close();
  });

  it('the console worked in both tabs (data and live events), with no page problem', () => {
    expect(problems).toEqual([]);
  });

  it('the bystander on another port received no cookie carrying the token, and the token in no header', () => {
    // Both visits: the page, its image and its fetch, twice.
    expect(bystanderSaw.length).toBeGreaterThanOrEqual(6);
    for (const seen of bystanderSaw) {
      const where = `${seen.method} ${seen.url}`;
      expect(seen.url, where).not.toContain(token());
      for (const [name, value] of Object.entries(seen.headers)) {
        expect(String(value), `${where}: ${name}`).not.toContain(token());
      }
      // The only cookie a bystander request carries is the bystander's own.
      if (seen.headers.cookie !== undefined) {
        expect(seen.headers.cookie, where).toBe('bystander_session=dev-server-cookie');
      }
    }
  });

  it('the console sent no Set-Cookie during the whole session, and its API requests carried no cookie', () => {
    expect(setCookies).toEqual([]);
    expect(apiCookies.some((c) => c.path === '/api/events')).toBe(true);
    expect(apiCookies.filter((c) => c.cookie !== undefined)).toEqual([]);
  });

  it('the API refuses every cookie the browser holds, presented alone, and the old cookie with the right token', async () => {
    const held = await context.cookies();
    expect(held.map((c) => c.name)).toEqual(['bystander_session']); // none is the console's
    const cookies = [
      ...held.map((c) => `${c.name}=${c.value}`),
      ...setCookies.map((c) => c.split(';')[0]!),
      `dets_console_token_${new URL(consoleOrigin()).port}=${token()}`,
      `dets_console_token=${token()}`,
    ];
    for (const cookie of cookies) {
      const refused = await callInfo({ cookie, 'content-type': 'application/json' });
      expect(refused.status, cookie).toBe(401);
      expect(await refused.json()).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    }
    const allowed = await callInfo({ 'X-DETS-Token': token() });
    expect(allowed.status).toBe(200);
  });

  it('the event stream needs the header: no cookie, no query token, no other header opens it', async () => {
    const events = `${consoleOrigin()}/api/events`;
    for (const [url, headers] of [
      [events, {}],
      [events, { cookie: `dets_console_token_${new URL(consoleOrigin()).port}=${token()}` }],
      [`${events}?token=${token()}`, {}],
      [events, { authorization: `Bearer ${token()}` }],
    ] as Array<[string, Record<string, string>]>) {
      const res = await fetch(url, { headers });
      expect(res.status, `${url} ${JSON.stringify(headers)}`).toBe(401);
      await res.body?.cancel();
    }
    const controller = new AbortController();
    const open = await fetch(events, { headers: { 'X-DETS-Token': token() }, signal: controller.signal });
    expect(open.status).toBe(200);
    expect(open.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(open.headers.get('set-cookie')).toBeNull();
    controller.abort();
  });

  it('a one-time download (customers WITH keys) is fetched with the header and saved, never by cookie or link', async () => {
    const secret = `secret-key-${randomUUID()}`;
    await callApi(serve!, 'bank.saveCustomer', {
      obj: 'DE89370400440532013000',
      sub: 'export@bank.example',
      external_id: 'cust-export',
      phone: '+4915112345678',
      key: secret,
    });
    const exporting = await browser!.newContext({ acceptDownloads: true });
    const problems: string[] = [];
    const downloads: Array<{ url: string; token: string | undefined; cookie: string | undefined }> = [];
    exporting.on('request', (req) => {
      if (!new URL(req.url()).pathname.startsWith('/api/download/')) return;
      void req
        .allHeaders()
        .then((h) => downloads.push({ url: req.url(), token: h['x-dets-token'], cookie: h.cookie }));
    });
    try {
      const bank = new BankPageModel(await exporting.newPage());
      collectPageProblems(bank.page, problems);
      await bank.openConsole(serve!.ready.ui);
      await bank.open();
      const file = await bank.exportWithKeys();
      expect(file.filename).toMatch(/\.json$/);
      expect(file.text).toContain(secret);
      expect(downloads).toHaveLength(1);
      expect(downloads[0]).toMatchObject({ token: token(), cookie: undefined });
      // Served once: the ticket is spent, even for the right token.
      const again = await fetch(downloads[0]!.url, { headers: { 'X-DETS-Token': token() } });
      expect(again.status).toBe(404);
      expect(await exporting.cookies()).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await exporting.close();
    }
  }, 60_000);
});
