/**
 * A console that can attach to a team hub from its start page (issue 30 item 2; DESIGN.md "Team
 * hub"): the desktop app (electron/main) and `serve` on a laptop put this in front of their own
 * core. Detached, every call and live event is the local core's; attached, every call goes to
 * the hub as the member (the same HubClient `dets-console attach` uses, no second client) and
 * the page hears the hub's live events, while `team.connection`, `team.attach` and
 * `team.detach` (TEAM_LOCAL_METHODS) are answered here. Each change is a `team.changed` event.
 *
 * Threat model: the member token arrives once, in `team.attach`, from the page the host already
 * trusts (IPC from the app's own page; browser mode behind its per-launch token). From then on it
 * lives in this process's memory (inside the HubClient) and in one OS keychain item written
 * through the vault's keychain layer (with its timeout, off the thread); it is in no file, no
 * answer, no event, no log line, no error message. The profile remembers only the hub's URL and
 * the keychain account's name (attachment-file.ts). Detaching closes the client and deletes the
 * keychain item. What the hub answers is data for the page, as with `attach`.
 */
import {
  badArgument,
  ConsoleError,
  isMethodName,
  parseArgs,
  TEAM_LOCAL_METHODS,
  toErrorData,
  type Envelope,
} from '../../contract';
import { TeamSession, type TeamConnection } from '../../contract/schemas/team';
import { serializer } from '../common';
import { EventHub } from '../event-hub';
import { KEYCHAIN_SERVICE, type KeychainBackend } from '../vault';
import {
  newAttachment,
  readAttachment,
  removeAttachment,
  writeAttachment,
  type Attachment,
} from './attachment-file';
import { detachedConnection, hubUrl } from './connection';
import { HubClient, type HubLinkState } from './hub-client';

/** What this needs of the host's own core. */
export interface LocalCore {
  dispatch(method: unknown, input: unknown): Promise<Envelope<unknown>>;
  readonly events: EventHub;
}

export interface AttachedCoreOptions {
  local: LocalCore;
  /** The profile: where the attachment (URL, keychain account name) is remembered. */
  dataDir: string;
  /** The vault's keychain layer (the real OS keychain in the hosts). */
  keychain: KeychainBackend;
  /** Where link changes are told (stderr, the app's console). */
  log?: (line: string) => void;
}

interface Attached {
  client: HubClient;
  session: TeamSession;
  remembered: Attachment | null;
  /** Why the token is not remembered, when it is not. */
  notRemembered: string | null;
}

/** The local core, or a hub's once attached. */
export class AttachedCore {
  readonly events = new EventHub();
  private attached: Attached | null = null;
  private connection: TeamConnection = detachedConnection(true);
  private readonly exclusive = serializer();
  private readonly offLocal: () => void;

  constructor(private readonly options: AttachedCoreOptions) {
    // Detached, the page hears the local core; attached, only the hub (below).
    this.offLocal = options.local.events.onAny((event, payload) => {
      if (!this.attached) this.events.emit(event, payload as never);
    });
  }

  /** Where a call goes: team.* locally, else the hub when attached, else the local core. */
  async dispatch(method: unknown, input: unknown): Promise<Envelope<unknown>> {
    if (typeof method === 'string' && TEAM_LOCAL_METHODS.includes(method)) return this.team(method, input);
    const attached = this.attached;
    if (!attached) return this.options.local.dispatch(method, input);
    if (!isMethodName(method))
      return { ok: false, error: { code: 'UNKNOWN_METHOD', message: `unknown method "${String(method)}"` } };
    return attached.client.dispatch(method, input);
  }

  private async team(method: string, input: unknown): Promise<Envelope<unknown>> {
    try {
      if (method === 'team.connection') return { ok: true, value: this.status() };
      if (method === 'team.detach') return { ok: true, value: await this.detach() };
      const args = parseArgs('team.attach', input);
      return { ok: true, value: await this.attach(args.hub_url, args.token) };
    } catch (err) {
      return { ok: false, error: toErrorData(err) };
    }
  }

  /** The connection as the page sees it (never the token). */
  status(): TeamConnection {
    return structuredClone(this.connection);
  }

  /**
   * Attaches to the hub at `url` as the member whose token this is: the hub must know the token
   * (BAD_ARGUMENT `token` when it refuses it) and be a team hub (BAD_ARGUMENT `hub_url`).
   */
  attach(url: string, token: string): Promise<TeamConnection> {
    return this.exclusive(async () => {
      const hub = hubUrl(url);
      await this.connect(hub, token.trim(), null);
      return this.status();
    });
  }

  /** Detaches: the pages are this console's again; the keychain item and the record go. */
  detach(): Promise<TeamConnection> {
    return this.exclusive(async () => {
      const was = this.attached;
      this.attached = null;
      was?.client.close();
      const record = was?.remembered ?? (await readAttachment(this.options.dataDir).catch(() => null));
      if (record) await this.forget(record);
      this.publish(detachedConnection(true));
      return this.status();
    });
  }

  /**
   * At the host's start: re-attaches to the remembered hub with the token from the keychain.
   * Whatever fails is said on the connection (and the page offers to attach again), never thrown.
   */
  resume(): Promise<TeamConnection> {
    return this.exclusive(async () => {
      let record: Attachment | null;
      try {
        record = await readAttachment(this.options.dataDir);
        if (!record) return this.status();
        const token = await this.options.keychain.get(KEYCHAIN_SERVICE, record.keychain_account);
        if (token === null)
          throw new ConsoleError('NOT_FOUND', 'the OS keychain holds no member token for it');
        await this.connect(new URL(record.hub_url), token, record);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        this.publish(detachedConnection(true, `Not re-attached to the team hub: ${why}. Attach again.`));
      }
      return this.status();
    });
  }

  /** Stops following the hub (the host is closing); the attachment stays remembered. */
  close(): void {
    this.offLocal();
    this.attached?.client.close();
    this.attached = null;
  }

  private async connect(hub: URL, token: string, remembered: Attachment | null): Promise<void> {
    const log = this.options.log ?? (() => undefined);
    let client: HubClient | null = null;
    client = new HubClient(hub, token, log, (link) => this.onLink(client, link));
    const answer = await client.dispatch('team.session', undefined);
    const session = answer.ok ? TeamSession.safeParse(answer.value) : null;
    if (!answer.ok || !session?.success || session.data.hub === null) {
      client.close();
      throw refusal(hub, answer);
    }
    const previous = this.attached;
    this.attached = null;
    previous?.client.close();
    const kept = await this.remember(hub, token, remembered ?? previous?.remembered ?? null);
    this.attached = { client, session: session.data, ...kept };
    client.events.onAny((event, payload) => {
      if (this.attached?.client === client) this.events.emit(event, payload as never);
    });
    this.publish(this.attachedConnection('connected', null, null, 0));
    client.follow();
  }

  /** The token into the keychain (replacing an earlier one), the URL into the profile. */
  private async remember(
    hub: URL,
    token: string,
    earlier: Attachment | null,
  ): Promise<Pick<Attached, 'remembered' | 'notRemembered'>> {
    if (earlier && earlier.hub_url === hub.href) {
      // Resuming, or attaching again to the same hub: the same item gets the (maybe new) token.
      try {
        await this.options.keychain.set(KEYCHAIN_SERVICE, earlier.keychain_account, token);
        return { remembered: earlier, notRemembered: null };
      } catch (err) {
        return { remembered: null, notRemembered: notKept(err) };
      }
    }
    if (earlier) await this.forget(earlier);
    const record = newAttachment(hub.href);
    try {
      await this.options.keychain.set(KEYCHAIN_SERVICE, record.keychain_account, token);
      await writeAttachment(this.options.dataDir, record);
      return { remembered: record, notRemembered: null };
    } catch (err) {
      await this.options.keychain.delete(KEYCHAIN_SERVICE, record.keychain_account).catch(() => false);
      return { remembered: null, notRemembered: notKept(err) };
    }
  }

  private async forget(record: Attachment): Promise<void> {
    await this.options.keychain.delete(KEYCHAIN_SERVICE, record.keychain_account).catch(() => false);
    await removeAttachment(this.options.dataDir).catch(() => undefined);
  }

  private onLink(client: HubClient | null, link: HubLinkState): void {
    if (!client || this.attached?.client !== client) return;
    this.publish(
      link.up
        ? this.attachedConnection('connected', null, null, 0)
        : this.attachedConnection('retrying', link.why, link.retryInMs, link.attempts),
    );
  }

  private attachedConnection(
    state: 'connected' | 'retrying',
    why: string | null,
    retryInMs: number | null,
    attempts: number,
  ): TeamConnection {
    const a = this.attached!;
    return {
      state,
      hub_url: a.client.hub.href,
      hub: a.session.hub,
      member: a.session.member,
      role: a.session.role,
      remembered: a.remembered !== null,
      detail: why ?? a.notRemembered,
      retry_in_ms: retryInMs,
      attempts,
      can_attach: true,
    };
  }

  private publish(connection: TeamConnection): void {
    this.connection = connection;
    this.events.emit('team.changed', structuredClone(connection));
  }
}

function notKept(err: unknown): string {
  const why = err instanceof Error ? err.message : String(err);
  return `Attached for this session only: the member token could not be kept in the OS keychain (${why}).`;
}

/** Why the hub did not take us: the token (401), not a hub, or not reachable. */
function refusal(hub: URL, answer: Envelope<unknown>): ConsoleError {
  if (!answer.ok && answer.error.code === 'UNAUTHORIZED')
    return badArgument(
      `token: the hub ${hub.origin} refused this member token (wrong or revoked): ask an admin for one (dets-console team add)`,
      'token',
    );
  if (!answer.ok) return new ConsoleError('SERVICE_UNREACHABLE', answer.error.message);
  return badArgument(
    `hub_url: ${hub.origin} is a DETS Console but not a team hub (it runs without serve --team)`,
    'hub_url',
  );
}
