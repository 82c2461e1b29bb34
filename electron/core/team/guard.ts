/**
 * The hub's door (issue 30 item 1; DESIGN.md "Team hub"): every request to the UI's API carries
 * a member token; the member's role decides whether a call may run (contract team-roles.ts);
 * every call that needs more than viewer is audited, allowed or refused.
 *
 * Threat model: the hub listens off loopback (behind TLS, serve refuses otherwise), so anyone on
 * the staging network can send it anything. Without a member's token nothing under /api answers
 * but 401; a token is compared in constant time against stored SHA-256 hashes; a revoked token
 * fails on its next request. The per-launch token of browser mode is honoured only from a
 * loopback peer (the operator on the hub's own machine), as an admin named `local`.
 */
import type { TeamRole } from '../../contract/schemas/team';
import { isMutation, mayCall } from '../../contract/team-roles';
import { auditEvent, type Caller } from './audit';
import type { MemberStore } from './members';
import type { RelayHub } from './relay-hub';
import type { NewEvent } from '../store';

/** The member the per-launch token speaks for (loopback only). */
export const LOCAL_MEMBER = 'local';

/** What the guard needs: the members, where audit events go, and the hub's name. */
export interface TeamGuardOptions {
  members: MemberStore;
  /** Stores an audit event (the core's event store). */
  audit: (event: NewEvent) => Promise<unknown>;
  /** The hub's name as pages show it (its host name). */
  hubName: string;
  /** The hub's routes: laptops' relay connections arrive at the door (issue 30 item 3). */
  relay?: RelayHub;
}

/** The guard of one hub. */
export class TeamGuard {
  constructor(private readonly options: TeamGuardOptions) {}

  get hubName(): string {
    return this.options.hubName;
  }

  /** The relay laptops connect to, when the hub routes. */
  get relay(): RelayHub | undefined {
    return this.options.relay;
  }

  /** The caller a member token speaks for, or null (401). */
  async authenticate(token: string | undefined, remote: string | null): Promise<Caller | null> {
    if (typeof token !== 'string' || token === '') return null;
    const member = await this.options.members.byToken(token);
    return member ? { member: member.name, role: member.role, remote } : null;
  }

  /** The local operator (the per-launch token from a loopback peer). */
  localCaller(remote: string | null): Caller {
    return { member: LOCAL_MEMBER, role: 'admin', remote };
  }

  /** Whether `caller` may call `method`. */
  allows(caller: Caller, method: string): boolean {
    return mayCall(caller.role, method);
  }

  /**
   * Records a call in the audit trail when it changes something (or was refused for trying).
   * A failure to store it is logged by the store's health, never turned into the call's answer.
   */
  async record(caller: Caller, method: string, input: unknown, error: string | null): Promise<void> {
    if (!isMutation(method)) return;
    await this.options.audit(auditEvent({ caller, method, input, error })).catch(() => undefined);
  }

  /** The session a page of `caller` sees (team.session). */
  session(caller: Caller): { hub: string; member: string; role: TeamRole } {
    return { hub: this.options.hubName, member: caller.member, role: caller.role };
  }
}
