/**
 * The host keys the console pins (issue 26 item 4): `<data-dir>/ssh/known_hosts`, in OpenSSH's
 * known_hosts format, read by every ssh tunnel run (`UserKnownHostsFile` +
 * `StrictHostKeyChecking=yes`). A key gets in only after the engineer confirmed its fingerprint;
 * it leaves only by an explicit unpin.
 *
 * Fingerprints are computed as `ssh-keygen -lf` prints them: bits, `SHA256:` + the unpadded
 * base64 of the SHA-256 of the key blob, the host, and the type in parentheses.
 *
 * Threat model: the lines pinned come from a host not yet trusted; only well-formed
 * `host type base64` lines of known key types are kept, and the host field must be the one the
 * engineer confirmed.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { HostKeyFingerprint } from '../../contract/schemas/tunnel';
import { readFileOrNull, writeFileAtomic } from '../common';

/** `<data-dir>/ssh/known_hosts`. */
export function pinnedKnownHostsPath(dataDir: string): string {
  return path.join(dataDir, 'ssh', 'known_hosts');
}

/** How known_hosts names `host` at `port`: `host` on 22, else `[host]:port` (ssh's own rule). */
export function knownHostsName(host: string, port: number | null): string {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  return port === null || port === 22 ? bare : `[${bare}]:${port}`;
}

/** One key line of a known_hosts file. */
export interface KnownHostLine {
  /** The host field (comma-separated names allowed). */
  hosts: string;
  keyType: string;
  blob: string;
  /** The line as it is in the file. */
  line: string;
}

const KEY_TYPES: Record<string, string> = {
  'ssh-ed25519': 'ED25519',
  'ssh-rsa': 'RSA',
  'ssh-dss': 'DSA',
  'ecdsa-sha2-nistp256': 'ECDSA',
  'ecdsa-sha2-nistp384': 'ECDSA',
  'ecdsa-sha2-nistp521': 'ECDSA',
  'sk-ssh-ed25519@openssh.com': 'ED25519-SK',
  'sk-ecdsa-sha2-nistp256@openssh.com': 'ECDSA-SK',
};

/** The key lines of a known_hosts text (comments, markers and malformed lines skipped). */
export function parseKnownHosts(text: string): KnownHostLine[] {
  const out: KnownHostLine[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('@')) continue;
    const [hosts, keyType, blob] = line.split(/\s+/);
    if (!hosts || !keyType || !blob || !(keyType in KEY_TYPES)) continue;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(blob)) continue;
    out.push({ hosts, keyType, blob, line });
  }
  return out;
}

/** The bit length of a big-endian unsigned integer. */
function bitLength(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i]!));
}

/** The SSH wire strings of a key blob (RFC 4253 6.6). */
function wireStrings(blob: Buffer, max: number): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  while (at + 4 <= blob.length && out.length < max) {
    const len = blob.readUInt32BE(at);
    if (at + 4 + len > blob.length) break;
    out.push(blob.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  return out;
}

function bitsOf(keyType: string, blob: Buffer): number {
  if (keyType === 'ssh-rsa') return bitLength(wireStrings(blob, 3)[2] ?? Buffer.alloc(0));
  if (keyType === 'ssh-dss') return bitLength(wireStrings(blob, 2)[1] ?? Buffer.alloc(0));
  if (keyType.includes('nistp384')) return 384;
  if (keyType.includes('nistp521')) return 521;
  return 256;
}

/**
 * The fingerprint of one key line, as `ssh-keygen -lf` prints it.
 *
 * @example
 * fingerprintOf(parseKnownHosts('[127.0.0.1]:2222 ssh-ed25519 AAAAC3…')[0]).line;
 * // '256 SHA256:hNSz… [127.0.0.1]:2222 (ED25519)'
 */
export function fingerprintOf(entry: KnownHostLine): HostKeyFingerprint & { host: string } {
  const blob = Buffer.from(entry.blob, 'base64');
  const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  const type = KEY_TYPES[entry.keyType] ?? entry.keyType;
  const bits = bitsOf(entry.keyType, blob);
  return {
    host: entry.hosts,
    type,
    bits,
    fingerprint,
    line: `${bits} ${fingerprint} ${entry.hosts} (${type})`,
  };
}

/** Whether a known_hosts host field names `name` (one of its comma-separated names). */
export function namesHost(hosts: string, name: string): boolean {
  return hosts.split(',').includes(name);
}

/** The console's pinned keys, one store per profile. */
export class PinnedHostKeys {
  constructor(readonly file: string) {}

  async lines(): Promise<KnownHostLine[]> {
    return parseKnownHosts((await readFileOrNull(this.file)) ?? '');
  }

  /** The pinned keys for `name`, or every pinned key. */
  async list(name?: string): Promise<Array<HostKeyFingerprint & { host: string }>> {
    const lines = await this.lines();
    return lines.filter((l) => name === undefined || namesHost(l.hosts, name)).map(fingerprintOf);
  }

  /** Adds `entry` (a key the engineer confirmed) unless it is already there. */
  async pin(entry: KnownHostLine): Promise<void> {
    const lines = await this.lines();
    if (lines.some((l) => l.hosts === entry.hosts && l.blob === entry.blob)) return;
    await this.write([...lines, entry]);
  }

  /** Removes every key pinned for `name`; answers how many. */
  async unpin(name: string): Promise<number> {
    const lines = await this.lines();
    const kept = lines.filter((l) => !namesHost(l.hosts, name));
    if (kept.length !== lines.length) await this.write(kept);
    return lines.length - kept.length;
  }

  /** Makes sure the file exists, so ssh can be pointed at it before anything is pinned. */
  async ensure(): Promise<void> {
    if ((await readFileOrNull(this.file)) === null) await this.write([]);
  }

  private async write(lines: KnownHostLine[]): Promise<void> {
    await writeFileAtomic(
      this.file,
      `# Host keys pinned by DETS Console after the engineer confirmed their fingerprints.\n${lines
        .map((l) => `${l.hosts} ${l.keyType} ${l.blob}\n`)
        .join('')}`,
      { makeDir: true },
    );
  }
}
