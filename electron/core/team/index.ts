/** The team hub (issue 30): members and their tokens, roles at the door, the audit trail. */
export { auditEvent, type AuditEntry, type Caller } from './audit';
export { LOCAL_MEMBER, TeamGuard, type TeamGuardOptions } from './guard';
export {
  checkedMember,
  FileMemberStore,
  membersFile,
  type Member,
  type MemberInfo,
  type MemberStore,
} from './members';
export { PgMemberStore } from './members-pg';
export { MEMBER_TOKEN_PREFIX, newMemberToken, tokenHash, tokenMatchesHash } from './tokens';
export { RelayHub, noLaptop, MAX_IN_FLIGHT, type RelayHubOptions } from './relay-hub';
export { PgRouteShare } from './route-share-pg';
export { RELAY_PATH, RELAY_PROTOCOL } from './relay-frames';
export { parseRouteSpec, globMatches, compareRoutes, specificity } from './route-glob';
export { RelayClient, type RelayStart, MAX_BACKEND_CALLS } from './relay-client';
export { AttachCore } from './attach-core';
export { HubClient, type HubLinkState } from './hub-client';
export { detachedConnection, hubUrl, unattachableHandlers } from './connection';
export { AttachedCore, type AttachedCoreOptions, type LocalCore } from './attached-core';
