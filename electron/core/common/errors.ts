/**
 * The core's refusals of an argument: one BAD_ARGUMENT shape, naming its field in typed details
 * (contract/errors.ts BadArgumentDetails), so pages and the CLI never guess it from the message.
 */
import { badArgument, type ConsoleError } from '../../contract/errors';

export { badArgument, errorField, type BadArgumentDetails, type IssueData } from '../../contract/errors';

/**
 * BAD_ARGUMENT "field: problem", with the problem as the one issue at that field: the shape the
 * contract's own check gives, so the CLI names the flag and shows the problem alone.
 *
 * @example
 * throw fieldProblem('bits', 'must be at least 2048');
 */
export function fieldProblem(field: string, problem: string): ConsoleError {
  return badArgument(`${field}: ${problem}`, field, [{ path: field.split('.'), message: problem }]);
}
