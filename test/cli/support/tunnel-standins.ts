/**
 * Stand-ins for the `cloudflared` and `ngrok` executables (issue 14): node scripts written into
 * a folder that goes first on PATH. They print what the real clients print (formats from their
 * documentation and public logs: cloudflared's quick-tunnel banner and ERR lines on stderr,
 * ngrok's `--log stdout --log-format json` records and its ERROR: lines on stderr) and, unlike
 * a fake, really forward: a TCP proxy on 127.0.0.1 leads to the --url/port they were given, and
 * its address is the "public" URL they announce, so the probe and real requests pass.
 *
 * STANDIN_MODE picks the behaviour: ok | edge-fail | drop-once (cloudflared), ok-log | ok-api |
 * auth-fail (ngrok). Each stand-in appends its PID to STANDIN_PIDS, so a test can check that
 * `serve` stopped it.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const SCRIPT = String.raw`
const net = require('node:net');
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const name = path.basename(process.argv[1]);
const args = process.argv.slice(2);
const mode = process.env.STANDIN_MODE || 'ok';
if (process.env.STANDIN_PIDS) fs.appendFileSync(process.env.STANDIN_PIDS, process.pid + '\n');
const ts = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const err = (line) => process.stderr.write(ts() + ' ' + line + '\n');
const out = (obj) => process.stdout.write(JSON.stringify({ ...obj, t: new Date().toISOString() }) + '\n');
process.on('SIGTERM', () => process.exit(0));
// Stay alive until stopped (the clients run until killed).
setInterval(() => undefined, 60_000);

function origin() {
  if (name === 'cloudflared') return new URL(args[args.indexOf('--url') + 1]);
  const a = args[1];
  return /^\d+$/.test(a) ? new URL('http://127.0.0.1:' + a) : new URL(a);
}
function proxy(ready) {
  const o = origin();
  const server = net.createServer((c) => {
    const u = net.connect(Number(o.port), o.hostname);
    c.pipe(u).pipe(c);
    c.on('error', () => u.destroy());
    u.on('error', () => c.destroy());
  });
  server.listen(0, '127.0.0.1', () => ready(server.address().port));
}
function runs() {
  const file = process.env.STANDIN_COUNTER;
  if (!file) return 1;
  const n = Number(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '0') + 1;
  fs.writeFileSync(file, String(n));
  return n;
}

if (name === 'cloudflared') {
  err('INF Thank you for trying Cloudflare Tunnel. Doing so, without a Cloudflare account, is a quick way to experiment and try it out. However, be aware that these account-less Tunnels have no uptime guarantee.');
  err('INF Requesting new quick Tunnel on trycloudflare.com...');
  if (mode === 'edge-fail') {
    err('ERR failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": dial tcp: lookup api.trycloudflare.com on 127.0.0.53:53: server misbehaving');
    process.exit(1);
  }
  const run = runs();
  proxy((port) => {
    err('INF +--------------------------------------------------------------------------------------------+');
    err('INF |  Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):  |');
    err('INF |  http://127.0.0.1:' + port + '                                                           |');
    err('INF +--------------------------------------------------------------------------------------------+');
    err('INF Version 2024.6.1');
    err('INF Registered tunnel connection connIndex=0 connection=8b7c3e1a-0f3c-4a51-9d0e-2f4b8c6d1a77 event=0 ip=198.41.200.13 location=ams08 protocol=quic');
    if (mode === 'drop-once' && run === 1) {
      setTimeout(() => {
        err('ERR Connection terminated error="connection with edge closed" connIndex=0');
        err('ERR no more connections active and exiting');
        process.exit(1);
      }, 1500);
    }
  });
} else if (name === 'ngrok') {
  out({ lvl: 'info', msg: 'no configuration paths supplied' });
  if (mode === 'auth-fail') {
    out({
      err: 'authentication failed: Usage of ngrok requires a verified account and authtoken.\n\nSign up for an account: https://dashboard.ngrok.com/signup\nInstall your authtoken: https://dashboard.ngrok.com/get-started/your-authtoken\r\n\r\nERR_NGROK_4018\r\n',
      lvl: 'eror',
      msg: 'failed to reconnect session',
      obj: 'tunnels.session',
    });
    for (const line of [
      'authentication failed: Usage of ngrok requires a verified account and authtoken.',
      '',
      'Sign up for an account: https://dashboard.ngrok.com/signup',
      'Install your authtoken: https://dashboard.ngrok.com/get-started/your-authtoken',
      '',
      'ERR_NGROK_4018',
      'https://ngrok.com/docs/errors/err_ngrok_4018',
    ])
      process.stderr.write('ERROR:  ' + line + '\n');
    process.exit(1);
  }
  proxy((port) => {
    const publicUrl = 'http://127.0.0.1:' + port;
    const api = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ tunnels: [{ name: 'command_line', proto: 'http', public_url: publicUrl }], uri: '/api/tunnels' }));
    });
    api.listen(0, '127.0.0.1', () => {
      out({ addr: '127.0.0.1:' + api.address().port, lvl: 'info', msg: 'starting web service', obj: 'web', allow_hosts: null });
      out({ lvl: 'info', msg: 'tunnel session started', obj: 'tunnels.session' });
      if (mode !== 'ok-api') {
        out({ addr: origin().href, lvl: 'info', msg: 'started tunnel', name: 'command_line', obj: 'tunnels', url: publicUrl });
      }
    });
  });
}
`;

/** Writes `cloudflared` and `ngrok` into `dir`; resolves to `dir` (put it first on PATH). */
export async function writeStandIns(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const name of ['cloudflared', 'ngrok']) {
    const file = path.join(dir, name);
    await writeFile(file, `#!${process.execPath}\n${SCRIPT}`);
    await chmod(file, 0o755);
  }
  return dir;
}
