/**
 * Zod issues in words, written once for every layer (issue 25: one formatter instead of a dozen
 * copies). It lives in the contract, the layer everything may import, so the contract's own
 * argument check, the core's damaged-file reports and its BAD_ARGUMENTs name a place the same
 * way: `jwk.n: must be base64url`.
 */
import type { IssueData } from './errors';

/** A zod issue as far as these words need it (zod's own issues fit, and plain data). */
export interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** How a path is spelled: dotted (`environments.0.base_url`) or with indexes in brackets (`customers[2].obj`). */
export interface PathStyle {
  /** Put first, before the issue's own path ("customers"). */
  prefix?: string;
  /** Array indexes as `[2]` rather than `.2`. */
  brackets?: boolean;
}

/**
 * Where an issue points, '' for the value as a whole.
 *
 * @example
 * issuePath({ path: ['jwk', 'n'], message: '…' }); // 'jwk.n'
 * issuePath({ path: [2, 'obj'], message: '…' }, { prefix: 'customers', brackets: true }); // 'customers[2].obj'
 */
export function issuePath(issue: Pick<Issue, 'path'>, style: PathStyle = {}): string {
  return issue.path.reduce<string>((acc, key) => {
    if (style.brackets && typeof key === 'number') return `${acc}[${key}]`;
    return `${acc}${acc ? '.' : ''}${String(key)}`;
  }, style.prefix ?? '');
}

/**
 * One issue as "where: what", or "what" alone when it is about the value as a whole.
 *
 * @example
 * issueText({ path: ['base_url'], message: 'must be an http(s) URL' }); // 'base_url: must be an http(s) URL'
 */
export function issueText(issue: Issue, style: PathStyle = {}): string {
  const where = issuePath(issue, style);
  return where ? `${where}: ${issue.message}` : issue.message;
}

/** How many issues a line lists, and whether it says how many more there were. */
export interface IssuesLine extends PathStyle {
  /** At most this many (all when absent). */
  max?: number;
  /** Adds " (and N more)" when some were left out. */
  countRest?: boolean;
}

/**
 * A zod error's issues on one line, separated by "; ".
 *
 * @example
 * describeIssues(error, { max: 3, countRest: true }); // 'a: required; b: too long (and 2 more)'
 */
export function describeIssues(error: { issues: readonly Issue[] }, line: IssuesLine = {}): string {
  const shown = line.max === undefined ? error.issues : error.issues.slice(0, line.max);
  const text = shown.map((issue) => issueText(issue, line)).join('; ');
  const rest = error.issues.length - shown.length;
  return line.countRest && rest > 0 ? `${text} (and ${rest} more)` : text;
}

/**
 * The first issue's message, or `fallback` when there is none: for a value checked on its own
 * (a URL flag, a tunnel spec), where the caller says what was checked.
 */
export function firstIssueMessage(error: { issues: readonly Issue[] }, fallback: string): string {
  return error.issues[0]?.message ?? fallback;
}

/** The issues as error details carry them (paths as strings). */
export function issuesData(error: { issues: readonly Issue[] }): IssueData[] {
  return error.issues.map((i) => ({ path: i.path.map(String), message: i.message }));
}
