/**
 * The role each method needs on a team hub (DESIGN.md "Team hub"): viewer reads; operator also
 * replays, runs the sandbox, conformance and the walkthrough, edits the bank's customers and
 * behaviours and signs JWTs; admin also keys, environments, the vault, the tunnel, retention
 * and anything that exports secrets. One table, read by the hub (to refuse and to audit) and by
 * the pages (to hide what a role may not do). A method missing here needs admin
 * (test/contract/team-roles.test.ts keeps it complete).
 */
import type { TeamRole } from './schemas/team';

export const METHOD_ROLES: Readonly<Record<string, TeamRole>> = Object.freeze({
  'app.info': 'viewer',
  'team.session': 'viewer',
  'team.routes': 'viewer',
  // DESIGN.md "Team hub": operators route (a laptop's relay connection needs the same role).
  'team.addRoute': 'operator',
  'team.removeRoute': 'operator',
  // Attaching is the laptop's own business (issue 30 item 2), answered by the console the page
  // runs in and never forwarded to a hub (TEAM_LOCAL_METHODS); a hub's own core refuses it.
  'team.connection': 'viewer',
  'team.attach': 'viewer',
  'team.detach': 'viewer',
  'inspector.inspect': 'viewer',
  'bank.status': 'viewer',
  'bank.customers': 'viewer',
  'bank.saveCustomer': 'operator',
  'bank.removeCustomer': 'operator',
  'bank.importCustomers': 'operator',
  'bank.exportCustomers': 'operator',
  'bank.exportCustomersWithKeys': 'admin',
  'bank.setBehaviours': 'operator',
  'bank.setForward': 'operator',
  'bank.setNotifyPrefix': 'admin',
  'bank.setServiceJwksUrl': 'admin',
  'bank.recheck': 'operator',
  'bank.replay': 'operator',
  'bank.freshSession': 'operator',
  'conformance.run': 'operator',
  'conformance.runNotify': 'operator',
  'conformance.selfCheck': 'operator',
  // Which keys the hub's own bank trusts is an admin's (as bank.setServiceJwksUrl, which puts it
  // back): an operator could change it and not undo it.
  'conformance.trustRunnerJwks': 'admin',
  'conformance.lastReport': 'viewer',
  'conformance.export': 'viewer',
  'env.list': 'viewer',
  'env.save': 'admin',
  'env.remove': 'admin',
  'env.activate': 'admin',
  'events.query': 'viewer',
  'events.stats': 'viewer',
  'events.get': 'viewer',
  'events.export': 'viewer',
  'events.health': 'viewer',
  'events.requestRecovery': 'admin',
  'events.retention': 'viewer',
  'events.setRetention': 'admin',
  'jwt.sign': 'operator',
  'keys.list': 'viewer',
  'keys.generate': 'admin',
  'keys.import': 'admin',
  'keys.export': 'viewer',
  'keys.update': 'admin',
  'keys.delete': 'admin',
  'keys.addExternal': 'admin',
  // Scenario files live on the machine that serves: listing, reading or writing its folders is
  // an admin's. Running one names a folder and reads its file, so it is an admin's too (the
  // Scenarios page says so to the others).
  'scenario.record': 'viewer',
  'scenario.list': 'admin',
  'scenario.save': 'admin',
  'scenario.run': 'admin',
  'sandbox.status': 'viewer',
  'sandbox.traces': 'viewer',
  'sandbox.delivery': 'viewer',
  'sandbox.deliveries': 'viewer',
  'sandbox.onboard': 'operator',
  'sandbox.updateCounterparty': 'operator',
  'sandbox.deleteCounterparty': 'operator',
  'sandbox.signIn': 'operator',
  'sandbox.notify': 'operator',
  'sandbox.rotateKey': 'operator',
  'sandbox.updateSettings': 'operator',
  'service.authenticate': 'operator',
  'service.registerJwk': 'admin',
  'service.updateJwk': 'admin',
  'service.listJwks': 'operator',
  'service.fetchJwks': 'operator',
  'service.exchanges': 'viewer',
  'service.rotate': 'admin',
  'tunnel.status': 'viewer',
  'tunnel.setPublicUrl': 'admin',
  'tunnel.start': 'admin',
  'tunnel.stop': 'admin',
  // Issue 26 item 4: the ssh settings choose which key the hub's host presents and what ssh
  // runs with; pinning or unpinning a host key is a trust decision. Both are an admin's, as
  // starting the tunnel is (an operator may still probe it).
  'tunnel.saveSsh': 'admin',
  'tunnel.trustHostKey': 'admin',
  'tunnel.unpinHostKey': 'admin',
  'tunnel.probe': 'operator',
  'vault.status': 'viewer',
  'vault.unlock': 'admin',
  'vault.createPassphrase': 'admin',
  'walkthrough.state': 'viewer',
  'walkthrough.run': 'operator',
  'walkthrough.reset': 'operator',
  'walkthrough.exportPack': 'viewer',
});

/**
 * Methods a console attached to a hub answers itself: where it is attached, attaching and
 * detaching. Every other call of an attached console goes to the hub (core/team attached-core.ts).
 */
export const TEAM_LOCAL_METHODS: readonly string[] = Object.freeze([
  'team.connection',
  'team.attach',
  'team.detach',
]);

const RANK: Readonly<Record<TeamRole, number>> = { viewer: 0, operator: 1, admin: 2 };

/** The role a method needs (admin for a method the table does not name). */
export function roleFor(method: string): TeamRole {
  return Object.hasOwn(METHOD_ROLES, method) ? METHOD_ROLES[method]! : 'admin';
}

/**
 * Whether `role` may call `method`.
 *
 * @example
 * mayCall('viewer', 'events.query'); // true
 * mayCall('viewer', 'bank.replay'); // false
 */
export function mayCall(role: TeamRole, method: string): boolean {
  return RANK[role] >= RANK[roleFor(method)];
}

/** Whether a call changes something (it needs more than viewer): every such call is audited. */
export function isMutation(method: string): boolean {
  return roleFor(method) !== 'viewer';
}
