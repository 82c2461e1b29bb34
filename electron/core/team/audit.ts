/**
 * The audit trail of a team hub (issue 30 item 1: "every mutating call is an audit event naming
 * the member, visible on an Audit page and in `events --kind audit`"). One event per call that
 * needs more than viewer (contract team-roles.ts isMutation), allowed or refused, after it ran.
 *
 * What it keeps: who (the member, their role, their address), what (the method, the names of
 * the argument's fields and the identifiers it named: a kid, a name, a guid), and how it ended
 * (ok, or the error code). Never the argument's values beyond those identifiers: an argument may
 * carry a passphrase, a private key or a customer's secret key (DESIGN.md "Secrets").
 */
import type { TeamRole } from '../../contract/schemas/team';
import { blankEvent, FORBIDDEN_CHECK, type NewEvent } from '../store';

/** Argument fields whose string value names what a call acted on, and is no secret. */
const TARGET_FIELDS = [
  'kid',
  'name',
  'id',
  'obj',
  'counterparty_guid',
  'guid',
  'transaction_id',
  'event',
  'url',
];

/** Who made a call. */
export interface Caller {
  member: string;
  role: TeamRole;
  remote: string | null;
}

/** The audit record of one call: `error` is its code (`FORBIDDEN` when the role refused it). */
export interface AuditEntry {
  caller: Caller;
  method: string;
  input: unknown;
  error: string | null;
}

/** The identifiers an argument named (never other values). */
function targetsOf(input: unknown): { fields: string[]; targets: Record<string, string> } {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return { fields: [], targets: {} };
  const fields = Object.keys(input).slice(0, 50);
  const targets: Record<string, string> = {};
  for (const f of TARGET_FIELDS) {
    const v = (input as Record<string, unknown>)[f];
    if (typeof v === 'string' && v.length <= 300) targets[f] = v;
  }
  return { fields, targets };
}

/**
 * The event that records `entry`.
 *
 * @example
 * await store.append(auditEvent({ caller, method: 'keys.delete', input: { kid: 'k1' }, error: null }));
 */
export function auditEvent(entry: AuditEntry, at = new Date().toISOString()): NewEvent {
  const { fields, targets } = targetsOf(entry.input);
  const status = entry.error === null ? 200 : entry.error === FORBIDDEN_CHECK ? 403 : 400;
  return {
    ...blankEvent('audit', at),
    path: entry.method,
    method: 'POST',
    status,
    failed_check: entry.error,
    sub: entry.caller.member,
    obj: targets.kid ?? targets.name ?? targets.counterparty_guid ?? targets.obj ?? null,
    remote: entry.caller.remote,
    warning: entry.error === FORBIDDEN_CHECK ? `${entry.caller.role} may not call ${entry.method}` : null,
    data: {
      member: entry.caller.member,
      role: entry.caller.role,
      method: entry.method,
      ok: entry.error === null,
      error: entry.error,
      fields,
      targets,
    },
  };
}
