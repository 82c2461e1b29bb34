/**
 * The core's shared helpers (issue 25 item 3): small infrastructure every domain uses, written
 * once. It imports no domain (lint: eslint.config.js "core/common"), only the contract and Node.
 */
export { badArgument, errorField, fieldProblem, type BadArgumentDetails, type IssueData } from './errors';
export {
  createFileExclusive,
  ensurePrivateDir,
  readFileOrNull,
  readJsonFileOrNull,
  writeFileAtomic,
  type JsonFileFaults,
  type AtomicWriteOptions,
} from './files';
export { GUID_PATTERN, GUID_SOURCE, Guid, isGuid } from './ids';
export { parseJsonText } from './json-text';
export { derivedJwksUrl, JWKS_PATH } from './paths';
export { serializer } from './queue';
export { unpackedPath, workerFile, WORKER_DIRS, WORKER_NAMES, type WorkerName } from './worker-file';
export {
  describeIssues,
  firstIssueMessage,
  invalidArgument,
  issueField,
  issuePath,
  issueText,
  issuesData,
  WHOLE_ARGUMENT,
  type Issue,
  type IssuesLine,
  type PathStyle,
} from './zod-messages';
export { splitShellWords } from './shell-words';
export { PendingSet } from './pending';
