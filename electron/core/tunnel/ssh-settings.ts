/**
 * The ssh tunnel's settings of an environment (issue 26 item 4): checked before they are kept,
 * and turned into ssh's arguments. The contract already refused key material and relative paths
 * (`SshTunnelSettings`); here the files must exist and be readable, and the extra options are
 * held to a short list.
 *
 * Extra options are an argv, never run through a shell. What is refused, and why
 * (docs/real-environment.md "ssh tunnel options"):
 * - anything that runs a command or loads code on this machine (`ProxyCommand`, `LocalCommand`,
 *   `PermitLocalCommand`, `KnownHostsCommand`, `RemoteCommand`, `PKCS11Provider`,
 *   `SecurityKeyProvider`, `Match`, `Include`, `-F`): the settings are set through the console's
 *   API, which on a team hub an admin reaches over the network; running commands is the
 *   business of whoever owns the machine's shell, through DETS_SSH_COMMAND or ~/.ssh/config.
 * - what the console itself decides (known hosts and strict checking, batch mode, the forward,
 *   the log level that carries "Allocated port", the host, port and user of the target).
 * - what no tunnel needs and weakens the user (agent and X11 forwarding, tun devices, control
 *   sockets, writing host keys or logs).
 */
import { constants } from 'node:fs';
import { access, open, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SshTunnelSettings } from '../../contract/schemas/tunnel';
import { badArgument } from '../common';

/** `~/x` → the home folder's x (ssh expands it itself; the checks here need the real path). */
export function expandHome(p: string, home: string = os.homedir()): string {
  return p === '~' ? home : p.startsWith('~/') ? path.join(home, p.slice(2)) : p;
}

/** Flags accepted alone. */
const FLAGS = new Set(['-4', '-6', '-C', '-v']);
/** Flags that take the next word. */
const WITH_VALUE = new Set(['-c', '-m', '-J', '-b', '-B', '-o']);

/** -o keywords refused, lower case, each with why. */
const REFUSED: Record<string, string> = Object.fromEntries([
  ...[
    'proxycommand',
    'localcommand',
    'permitlocalcommand',
    'knownhostscommand',
    'remotecommand',
    'pkcs11provider',
    'securitykeyprovider',
    'match',
    'include',
  ].map((k) => [
    k,
    'runs a command or loads code on this machine; only DETS_SSH_COMMAND or ~/.ssh/config (set by whoever owns this machine) may do that',
  ]),
  ...[
    'userknownhostsfile',
    'globalknownhostsfile',
    'stricthostkeychecking',
    'updatehostkeys',
    'hashknownhosts',
    'verifyhostkeydns',
    'hostkeyalias',
  ].map((k) => [
    k,
    'the console decides host keys: use the known-hosts field and confirm new keys on the Bank page',
  ]),
  ['identityfile', 'use the identity file field'],
  ...['hostname', 'port', 'user'].map((k) => [k, 'belongs in ssh:[USER@]HOST[:PORT]']),
  ...[
    'batchmode',
    'exitonforwardfailure',
    'remoteforward',
    'localforward',
    'dynamicforward',
    'clearallforwardings',
    'loglevel',
    'sessiontype',
    'stdinnull',
    'forkafterauthentication',
    'requesttty',
  ].map((k) => [k, 'the console sets it: the tunnel needs it as it is']),
  ...[
    'forwardagent',
    'forwardx11',
    'forwardx11trusted',
    'tunnel',
    'tunneldevice',
    'controlmaster',
    'controlpath',
    'controlpersist',
  ].map((k) => [k, 'a tunnel does not need it, and it lends the ssh host more than the forward']),
]);

function refuse(word: string, why: string): never {
  throw badArgument(`ssh option ${JSON.stringify(word.slice(0, 80))} is refused: ${why}`, 'options');
}

/** Checks one `-o` value (`Key=Value` or `Key Value`). */
function checkConfigOption(value: string): void {
  const key = /^\s*([A-Za-z0-9]+)\s*(=|\s)\s*\S/.exec(value)?.[1];
  if (!key) refuse(value, 'an -o option is Keyword=value');
  const why = REFUSED[key.toLowerCase()];
  if (why) refuse(value, why);
}

/**
 * Checks the extra options (an argv): only the flags listed here, and `-o` keywords that are
 * not refused. Throws BAD_ARGUMENT on the `options` field naming the word.
 *
 * @example
 * checkSshOptions(['-o', 'ServerAliveInterval=30', '-J', 'bastion']); // fine
 * checkSshOptions(['-o', 'ProxyCommand=nc %h %p']); // throws: runs a command
 */
export function checkSshOptions(argv: readonly string[]): void {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (FLAGS.has(word)) continue;
    if (WITH_VALUE.has(word)) {
      const value = argv[++i];
      if (value === undefined) refuse(word, 'it needs a value after it');
      if (word === '-o') checkConfigOption(value);
      else if (value.startsWith('-')) refuse(`${word} ${value}`, 'its value must not start with -');
      continue;
    }
    if (word.startsWith('-o') && word.length > 2) {
      checkConfigOption(word.slice(2));
      continue;
    }
    refuse(
      word,
      'the accepted options are -4, -6, -C, -v, -c CIPHER, -m MAC, -J JUMP, -b ADDRESS, -B INTERFACE and -o Keyword=value (the identity and known-hosts files have their own fields)',
    );
  }
}

async function checkReadableFile(raw: string, field: 'identity_file' | 'known_hosts_file'): Promise<string> {
  const file = expandHome(raw);
  let isFile: boolean;
  try {
    isFile = (await stat(file)).isFile();
    await access(file, constants.R_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw badArgument(
      `${field} ${raw}: ${code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'not readable by the console' : `cannot be read (${code ?? String(err)})`}`,
      field,
    );
  }
  if (!isFile) throw badArgument(`${field} ${raw}: is not a file`, field);
  return file;
}

/** The first bytes of a file (never logged or kept: only to tell a public key from a private one). */
async function head(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(64);
    const { bytesRead } = await handle.read(buf, 0, 64, 0);
    return buf.subarray(0, bytesRead).toString('latin1');
  } finally {
    await handle.close();
  }
}

/**
 * Checks settings before they are kept: files exist and are readable, the identity is not a
 * public key, the options pass {@link checkSshOptions}. BAD_ARGUMENT naming the field.
 */
export async function checkSshSettings(settings: SshTunnelSettings): Promise<void> {
  if (settings.identity_file !== null) {
    const file = await checkReadableFile(settings.identity_file, 'identity_file');
    if (/^(ssh-|ecdsa-|sk-)/.test(await head(file))) {
      throw badArgument(
        `identity_file ${settings.identity_file}: is a PUBLIC key; give the private key's file (usually the same name without .pub)`,
        'identity_file',
      );
    }
  }
  if (settings.known_hosts_file !== null)
    await checkReadableFile(settings.known_hosts_file, 'known_hosts_file');
  checkSshOptions(settings.options);
}

/** A path as one ssh config argument (quoted when it has spaces; `"` was refused by the contract). */
const configPath = (p: string) => (/\s/.test(p) ? `"${p}"` : p);

/**
 * The arguments the settings add, before the console's own: the identity, the extra options,
 * then the known-hosts files (the pinned one first) with strict checking.
 *
 * @example
 * sshSettingsArgs({ identity_file: '/k/tunnel', known_hosts_file: null, options: [], remote_port: null }, '/p/ssh/known_hosts');
 * // ['-i', '/k/tunnel', '-o', 'UserKnownHostsFile=/p/ssh/known_hosts /home/me/.ssh/known_hosts', '-o', 'StrictHostKeyChecking=yes']
 */
export function sshSettingsArgs(settings: SshTunnelSettings, pinnedFile: string): string[] {
  const own = expandHome(settings.known_hosts_file ?? '~/.ssh/known_hosts');
  return [
    ...(settings.identity_file !== null ? ['-i', expandHome(settings.identity_file)] : []),
    ...settings.options,
    '-o',
    `UserKnownHostsFile=${configPath(pinnedFile)} ${configPath(own)}`,
    '-o',
    'StrictHostKeyChecking=yes',
  ];
}
