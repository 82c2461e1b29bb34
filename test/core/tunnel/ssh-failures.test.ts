/**
 * ssh's stderr read by one module (issue 26 item 4): each failure its own code, from the lines
 * OpenSSH 9 prints (copied from real runs against sshd on loopback, \r included as ssh writes
 * them); fingerprints equal to `ssh-keygen -lf`; the option rules of the Bank page.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { looksLikeKeyMaterial, SshTunnelSettings } from '../../../electron/contract/schemas/tunnel';
import { fingerprintOf, parseKnownHosts } from '../../../electron/core/tunnel/known-hosts';
import { diagnoseSsh, type SshContext } from '../../../electron/core/tunnel/ssh-failures';
import { checkSshOptions } from '../../../electron/core/tunnel/ssh-settings';
import { shownCommand } from '../../../electron/core/tunnel/service';

const c: SshContext = {
  host: 'tunnel.example.com',
  port: 2222,
  remotePort: null,
  identityFile: '/k/id',
  pinnedFile: '/p/ssh/known_hosts',
  override: null,
};

describe('diagnoseSsh', () => {
  it('names each failure with its own code', () => {
    const cases: Array<[string[], string, Partial<SshContext>?]> = [
      [
        [
          'No ED25519 host key is known for [tunnel.example.com]:2222 and you have requested strict checking.\r',
          'Host key verification failed.\r',
        ],
        'host_key_unknown',
      ],
      [
        [
          '@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r',
          'The fingerprint for the ED25519 key sent by the remote host is',
          'SHA256:se8ulbrW3QmjWO0MYDghDdUfBJZxx5qKlisEn8DX5Xg.\r',
          'Offending ED25519 key in /p/ssh/known_hosts:1\r',
          'Host key for [tunnel.example.com]:2222 has changed and you have requested strict checking.\r',
          'Host key verification failed.\r',
        ],
        'host_key_changed',
      ],
      [['root@tunnel.example.com: Permission denied (publickey).'], 'auth_refused'],
      [
        [
          'Warning: Identity file /nonexist not accessible: No such file or directory.',
          'root@tunnel.example.com: Permission denied (publickey).',
        ],
        'identity_unusable',
      ],
      [['Error: remote port forwarding failed for listen port 0'], 'forward_refused'],
      [
        ['Error: remote port forwarding failed for listen port 8080'],
        'remote_port_in_use',
        { remotePort: 8080 },
      ],
      [['ssh: connect to host tunnel.example.com port 2222: Connection refused'], 'connection_refused'],
      [['ssh: connect to host tunnel.example.com port 2222: No route to host'], 'host_unreachable'],
      [['ssh: Could not resolve hostname nonexistent.invalid: Name or service not known'], 'dns'],
      [['something new'], 'ssh_failed'],
    ];
    for (const [lines, code, over] of cases) {
      expect(diagnoseSsh(lines, { ...c, ...over }).code, lines.join(' | ')).toBe(code);
    }
    const changed = diagnoseSsh(cases[1]![0], c);
    expect(changed.message).toContain('SHA256:se8ulbrW3QmjWO0MYDghDdUfBJZxx5qKlisEn8DX5Xg');
    expect(changed.action).toContain(`ssh-keygen -R '[tunnel.example.com]:2222' -f /p/ssh/known_hosts`);
    // A line not seen before is kept as ssh said it.
    expect(diagnoseSsh(['ssh: something new'], c).message).toBe('something new');
  });
});

describe('fingerprints as ssh-keygen -lf prints them', () => {
  it('matches ssh-keygen for ed25519, rsa and ecdsa keys', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dets-fp-'));
    try {
      for (const [type, bits] of [
        ['ed25519', null],
        ['rsa', '3072'],
        ['ecdsa', '384'],
      ] as const) {
        const file = join(dir, type);
        execFileSync('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', bits] : []), '-N', '', '-f', file]);
        const pub = (await readFile(`${file}.pub`, 'utf8')).split(' ').slice(0, 2).join(' ');
        const line = `[h.example]:2222 ${pub}`;
        const kh = join(dir, `${type}.kh`);
        await writeFile(kh, `${line}\n`);
        const expected = execFileSync('ssh-keygen', ['-lf', kh], { encoding: 'utf8' }).trim();
        expect(fingerprintOf(parseKnownHosts(line)[0]!).line).toBe(expected);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the Bank page settings rules', () => {
  it('refuses key material as the identity path, accepts paths', () => {
    expect(looksLikeKeyMaterial('~/.ssh/id_ed25519')).toBe(false);
    expect(looksLikeKeyMaterial('/home/someone/.ssh/keys/tunnel-staging_ed25519')).toBe(false);
    for (const bad of [
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIILZkkIKjB+618V87T//o8Lc+zozOT53/xeonnN8tmOp',
      'line one\nline two',
    ]) {
      expect(looksLikeKeyMaterial(bad), bad).toBe(true);
      const parsed = SshTunnelSettings.safeParse({
        identity_file: bad,
        known_hosts_file: null,
        options: [],
        remote_port: null,
      });
      expect(parsed.success).toBe(false);
    }
    expect(
      SshTunnelSettings.safeParse({
        identity_file: 'id_rsa',
        known_hosts_file: null,
        options: [],
        remote_port: null,
      }).success,
    ).toBe(false);
  });

  it('accepts harmless options and refuses those that run commands or take what the console decides', () => {
    expect(() =>
      checkSshOptions(['-o', 'ServerAliveInterval=30', '-J', 'bastion.example', '-4', '-oCompression=yes']),
    ).not.toThrow();
    for (const bad of [
      ['-o', 'ProxyCommand=nc %h %p'],
      ['-oLocalCommand=touch /tmp/x'],
      ['-o', 'PermitLocalCommand yes'],
      ['-o', 'KnownHostsCommand=/bin/true'],
      ['-o', 'PKCS11Provider=/tmp/evil.so'],
      ['-o', 'StrictHostKeyChecking=no'],
      ['-o', 'UserKnownHostsFile=/dev/null'],
      ['-F', '/tmp/config'],
      ['-R', '80:localhost:80'],
      ['-A'],
      ['-J', '-oProxyCommand=x'],
      ['-o'],
    ]) {
      expect(() => checkSshOptions(bad), bad.join(' ')).toThrow(/ssh option .* is refused/);
    }
  });
});

describe('DETS_SSH_COMMAND as the page shows it', () => {
  it('keeps the words and masks what could be a password', () => {
    expect(shownCommand('sshpass -p hunter2 ssh -i /k/id')).toBe('sshpass -p [redacted] ssh -i /k/id');
    expect(shownCommand('ssh -o password=hunter2')).toBe('ssh -o password=[redacted]');
    expect(shownCommand('  ')).toBeNull();
  });
});
