/**
 * The tunnel clients' command lines and output readers (issue 14), against lines in the real
 * clients' formats (cloudflared's banner and ERR lines, ngrok's JSON log, ssh's stderr).
 */
import { describe, expect, it } from 'vitest';
import { parseTunnelTarget, planFor } from '../../../electron/core/tunnel';
import { splitShellWords } from '../../../electron/core/common/shell-words';

const origin = { host: '127.0.0.1', port: 7301, tls: false };

describe('parseTunnelTarget', () => {
  it('reads ssh:[USER@]HOST[:PORT], cloudflared and ngrok', () => {
    expect(parseTunnelTarget('ssh:deploy@tunnel.example.com:2222')).toEqual({
      client: 'ssh',
      target: 'ssh:deploy@tunnel.example.com:2222',
      user: 'deploy',
      host: 'tunnel.example.com',
      port: 2222,
    });
    expect(parseTunnelTarget('ssh:[::1]')).toMatchObject({ host: '[::1]', user: null, port: null });
    expect(parseTunnelTarget('cloudflared')).toEqual({ client: 'cloudflared', target: 'cloudflared' });
    expect(parseTunnelTarget('ngrok')).toEqual({ client: 'ngrok', target: 'ngrok' });
  });

  it('refuses what ssh could read as an option, and unknown clients', () => {
    for (const bad of ['ssh:-oProxyCommand=x', 'ssh:', 'localtunnel', 'ssh:host:99999']) {
      expect(() => parseTunnelTarget(bad), bad).toThrow(
        /ssh:\[USER@\]HOST\[:PORT\], cloudflared or ngrok|1-65535/,
      );
    }
  });
});

describe('splitShellWords', () => {
  it('splits like a shell, with quotes and escapes, and no expansion', () => {
    expect(splitShellWords(`ssh -i "/home/me/my key" -o 'UserKnownHostsFile=/a b' x\\ y $HOME`)).toEqual([
      'ssh',
      '-i',
      '/home/me/my key',
      '-o',
      'UserKnownHostsFile=/a b',
      'x y',
      '$HOME',
    ]);
    expect(() => splitShellWords('ssh -i "unclosed')).toThrow('unterminated double quote');
  });
});

describe('planFor', () => {
  it('ssh: DETS_SSH_COMMAND first, then the forward and its options, then the host', () => {
    const plan = planFor(parseTunnelTarget('ssh:me@example.com:2222'), origin, {
      DETS_SSH_COMMAND: 'ssh -i /k/id -o StrictHostKeyChecking=accept-new',
    });
    expect([plan.command, ...plan.args]).toEqual([
      'ssh',
      '-i',
      '/k/id',
      '-o',
      'StrictHostKeyChecking=accept-new',
      '-N',
      '-R',
      '0:127.0.0.1:7301',
      '-o',
      'ExitOnForwardFailure=yes',
      '-o',
      'ServerAliveInterval=15',
      '-o',
      'ServerAliveCountMax=3',
      '-o',
      'BatchMode=yes',
      '-p',
      '2222',
      'me@example.com',
    ]);
    expect(plan.read('Allocated port 41234 for remote forward to 127.0.0.1:7301', 'stderr')).toEqual({
      kind: 'url',
      url: 'http://example.com:41234',
    });
    expect(plan.read('me@example.com: Permission denied (publickey).', 'stderr')).toEqual({
      kind: 'said',
      text: 'me@example.com: Permission denied (publickey).',
      failure: true,
    });
    expect(plan.read('Error: remote port forwarding failed for listen port 0', 'stderr')).toMatchObject({
      failure: true,
    });
  });

  it('ssh over TLS: the public URL is https', () => {
    const plan = planFor(parseTunnelTarget('ssh:example.com'), { ...origin, tls: true }, {});
    expect(plan.read('Allocated port 5000 for remote forward to 127.0.0.1:7301', 'stderr')).toEqual({
      kind: 'url',
      url: 'https://example.com:5000',
    });
  });

  it('cloudflared: the quick tunnel banner, not api.trycloudflare.com', () => {
    const plan = planFor(parseTunnelTarget('cloudflared'), origin, {});
    expect([plan.command, ...plan.args]).toEqual([
      'cloudflared',
      'tunnel',
      '--no-autoupdate',
      '--url',
      'http://127.0.0.1:7301',
    ]);
    expect(
      plan.read(
        '2024-06-01T10:00:00Z ERR failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": EOF',
        'stderr',
      ),
    ).toEqual({
      kind: 'said',
      text: 'failed to request quick Tunnel: Post "https://api.trycloudflare.com/tunnel": EOF',
      failure: true,
    });
    expect(
      plan.read(
        '2024-06-01T10:00:01Z INF |  Your quick Tunnel has been created! Visit it at (it may take some time to be reachable):  |',
        'stderr',
      ),
    ).toMatchObject({ kind: 'said', failure: false });
    expect(
      plan.read(
        '2024-06-01T10:00:01Z INF |  https://rare-words-go-here.trycloudflare.com                 |',
        'stderr',
      ),
    ).toEqual({ kind: 'url', url: 'https://rare-words-go-here.trycloudflare.com' });
  });

  it('ngrok: started tunnel, the web service address, and errors with their code (token masked)', () => {
    const plan = planFor(parseTunnelTarget('ngrok'), origin, {});
    expect([plan.command, ...plan.args]).toEqual([
      'ngrok',
      'http',
      '7301',
      '--log',
      'stdout',
      '--log-format',
      'json',
    ]);
    expect(
      plan.read(
        '{"addr":"http://localhost:7301","lvl":"info","msg":"started tunnel","name":"command_line","obj":"tunnels","t":"2024-06-01T10:00:00Z","url":"https://ab12-203-0-113-7.ngrok-free.app"}',
        'stdout',
      ),
    ).toEqual({ kind: 'url', url: 'https://ab12-203-0-113-7.ngrok-free.app' });
    expect(
      plan.read('{"addr":"127.0.0.1:4040","lvl":"info","msg":"starting web service","obj":"web"}', 'stdout'),
    ).toEqual({ kind: 'api', addr: '127.0.0.1:4040' });
    expect(
      plan.read(
        '{"err":"authentication failed: The authtoken you specified does not look like a proper ngrok authtoken.\\nYour authtoken: 2abcSECRETxyz\\nERR_NGROK_105\\r\\n","lvl":"eror","msg":"failed to reconnect session"}',
        'stdout',
      ),
    ).toEqual({
      kind: 'said',
      text: 'authentication failed: The authtoken you specified does not look like a proper ngrok authtoken. (ERR_NGROK_105)',
      failure: true,
    });
  });
});
