/**
 * The engineer's own backend behind an attached laptop, for the team suite's routed /user_auth
 * (issue 30 "Performance"): a node:http server answering every request 200 with one fixed user
 * (external_id, key, phone: what the answer judge asks of /user_auth), so its own time is the
 * baseline the route's cost is measured against.
 */
import { createServer } from 'node:http';
import { announce, closeServer, listenLoopback, stopOn } from '../lib/child-runtime';

const body = Buffer.from(
  JSON.stringify({ external_id: 'bench-user', key: 'bench-key', phone: '+4915112345678' }),
);

const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});

const url = await listenLoopback(server);
stopOn(() => closeServer(server));
announce({ url });
