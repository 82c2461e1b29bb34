/**
 * Schema failures in words for the core: the contract's one formatter (contract/zod-issues.ts,
 * shared with the contract's own argument check and the renderer) and the BAD_ARGUMENT a failed
 * argument becomes, naming its field (issue 25 item 4).
 */
import type { z } from 'zod';
import type { ConsoleError } from '../../contract/errors';
import { describeIssues, issuePath } from '../../contract/zod-issues';
import { badArgument } from './errors';

export {
  describeIssues,
  firstIssueMessage,
  issuePath,
  issueText,
  issuesData,
  type Issue,
  type IssuesLine,
  type PathStyle,
} from '../../contract/zod-issues';

/** The field a whole-value failure names (the argument itself, as the contract's check says). */
export const WHOLE_ARGUMENT = 'argument';

/**
 * A BAD_ARGUMENT from a zod error: "invalid onboarding: bank_auth_url: must be an http(s) URL;
 * jwk: required", naming the first issue's path as its field.
 *
 * @example
 * const parsed = OnboardInput.safeParse(input);
 * if (!parsed.success) throw invalidArgument(parsed.error, 'onboarding');
 */
export function invalidArgument(error: z.ZodError, what: string): ConsoleError {
  const first = error.issues[0];
  const field = (first && issuePath(first)) || WHOLE_ARGUMENT;
  return badArgument(`invalid ${what}: ${describeIssues(error)}`, field);
}
