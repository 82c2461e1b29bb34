/**
 * The service's JWKS for the bank suites: a tiny node:http server answering GET
 * /api/v1/.well-known/jwks.json with the JWKS in BENCH_JWKS (the public half of the key the bench
 * signs its X-Session-ID tokens with). GET /stats answers {"requests": N}, how many times the
 * JWKS was fetched, so the bench can show that the bank endpoints cache it.
 */
import { createServer } from 'node:http';
import { announce, closeServer, listenLoopback, stopOn } from '../lib/child-runtime';

const jwks = process.env.BENCH_JWKS;
if (!jwks) throw new Error('BENCH_JWKS (the service JWKS as JSON) is required');
const body = Buffer.from(jwks);
let fetched = 0;

const server = createServer((req, res) => {
  req.resume();
  if (req.url === '/stats') {
    const stats = Buffer.from(JSON.stringify({ requests: fetched }));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': stats.length });
    return res.end(stats);
  }
  if (req.method !== 'GET' || req.url !== '/api/v1/.well-known/jwks.json') {
    res.writeHead(404, { 'content-length': '0' });
    return res.end();
  }
  fetched++;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});

const url = await listenLoopback(server);
stopOn(() => closeServer(server));
announce({ url, jwks_url: `${url}/api/v1/.well-known/jwks.json` });
