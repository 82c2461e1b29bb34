/**
 * The host key decision of the ssh tunnel (issue 26 item 4): when ssh stops on an unknown or a
 * changed host key, the key the host shows now is fetched (host-key-scan.ts) and offered to
 * the engineer; an unknown key is pinned only when they confirm its exact fingerprint, a changed
 * one is refused until they unpin the old key. The offer lives in memory: a restart forgets it
 * and the next attempt fetches it again.
 *
 * Threat model: the key fetched is the claim of a host not yet trusted (a man in the middle
 * could show his own); the engineer compares its fingerprint with the host's owner, and the
 * key pinned is the one that was shown, never a key fetched again at confirmation time.
 */
import { ConsoleError } from '../../contract';
import type { HostKeyOffer, SshFailure } from '../../contract/schemas/tunnel';
import { badArgument } from '../common';
import { scanHostKeys } from './host-key-scan';
import { fingerprintOf, PinnedHostKeys, type KnownHostLine } from './known-hosts';
import type { TunnelSpec } from './plan';
import { sshCommandWords } from './ssh-plan';

type SshSpec = Extract<TunnelSpec, { client: 'ssh' }>;

export class HostKeyGate {
  readonly pinned: PinnedHostKeys;
  #offer: { offer: HostKeyOffer; lines: KnownHostLine[] } | null = null;

  constructor(file: string) {
    this.pinned = new PinnedHostKeys(file);
  }

  /** What the Bank page shows: the key waiting for confirmation, or refused as changed. */
  offer(): HostKeyOffer | null {
    return this.#offer?.offer ?? null;
  }

  clear(): void {
    this.#offer = null;
  }

  /**
   * After ssh stopped on a host key: fetches the key the host shows now and offers it. Nothing
   * is offered when DETS_SSH_COMMAND names its own known-hosts file (ssh reads that one first,
   * so a pin here would change nothing) or when the host showed no key.
   */
  async afterFailure(
    spec: SshSpec,
    failure: SshFailure | null,
    options: readonly string[],
    env: NodeJS.ProcessEnv,
  ): Promise<void> {
    this.#offer = null;
    if (failure?.code !== 'host_key_unknown' && failure?.code !== 'host_key_changed') return;
    const { words, custom } = sshCommandWords(env);
    if (custom && /UserKnownHostsFile/i.test(custom)) return;
    const lines = await scanHostKeys({
      command: words[0]!,
      options,
      user: spec.user,
      host: spec.host,
      port: spec.port,
      env,
    }).catch(() => []);
    if (lines.length === 0) return;
    const host = lines[0]!.hosts;
    const pinned = await this.pinned.list(host);
    this.#offer = {
      lines,
      offer: {
        // Pinned keys for the host and ssh still stopped: whatever ssh said, it is a change.
        state: failure.code === 'host_key_changed' || pinned.length > 0 ? 'changed' : 'unknown',
        host,
        keys: lines.map((l) => strip(fingerprintOf(l))),
        pinned: pinned.map(strip),
        file: this.pinned.file,
      },
    };
  }

  /**
   * Pins the offered key of `host` whose fingerprint is `fingerprint` (what the engineer saw).
   *
   * @example
   * await gate.trust('[tunnel.example.com]:2222', 'SHA256:hNSz…'); // pinned in <data-dir>/ssh/known_hosts
   */
  async trust(host: string, fingerprint: string): Promise<void> {
    const pending = this.#offer;
    if (!pending || pending.offer.host !== host) {
      throw new ConsoleError(
        'CONFLICT',
        `no host key of ${host} is waiting for confirmation: start the ssh tunnel to fetch it`,
        { field: 'host' },
      );
    }
    if (pending.offer.state !== 'unknown') {
      throw new ConsoleError(
        'CONFLICT',
        `${host} already has a pinned key and now shows another: unpin the old key first (only after its owner confirmed the change)`,
        { field: 'host' },
      );
    }
    const entry = pending.lines.find((l) => fingerprintOf(l).fingerprint === fingerprint);
    if (!entry) {
      throw badArgument(
        `${host} showed ${pending.offer.keys.map((k) => k.fingerprint).join(', ')}, not ${fingerprint}: nothing was pinned`,
        'fingerprint',
      );
    }
    await this.pinned.pin(entry);
    this.#offer = null;
  }

  /** Removes `host`'s pinned keys; a changed key on offer becomes one to confirm. */
  async unpin(host: string): Promise<void> {
    const removed = await this.pinned.unpin(host);
    if (removed === 0) {
      throw new ConsoleError('NOT_FOUND', `no key is pinned for ${host} in ${this.pinned.file}`, {
        field: 'host',
      });
    }
    if (this.#offer?.offer.host === host) {
      this.#offer = { ...this.#offer, offer: { ...this.#offer.offer, state: 'unknown', pinned: [] } };
    }
  }
}

function strip<T extends { host: string }>(f: T): Omit<T, 'host'> {
  const { host: _host, ...rest } = f;
  return rest;
}
