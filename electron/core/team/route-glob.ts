/**
 * Route globs (issue 30 item 3; DESIGN.md "Team hub": `--route obj=GLOB|sub=GLOB`): what a route
 * claims, how a glob matches a claim, and which of two routes claiming one request wins.
 *
 * Threat model: a glob comes from a member (a flag, a page, a relay frame) and a claim from a
 * service token; neither is trusted to be small or friendly. The glob's rule is the contract's
 * (globProblem: at most 300 characters, no control characters, only `*` and `?` as wildcards);
 * matching is a linear-time two-pointer walk (no regular expression, so no catastrophic
 * backtracking whatever the glob and the claim).
 */
import { badArgument } from '../../contract';
import { globProblem, type RouteField, type RouteRequest } from '../../contract/schemas/team';

/**
 * Parses `obj=GLOB` or `sub=GLOB` (the flag's form); BAD_ARGUMENT naming `route` and what is wrong.
 *
 * @example
 * parseRouteSpec('sub=alice@*'); // { field: 'sub', glob: 'alice@*' }
 * parseRouteSpec('iss=x');       // throws: route: "iss=x": expected obj=GLOB or sub=GLOB
 */
export function parseRouteSpec(text: string): RouteRequest {
  const eq = text.indexOf('=');
  const field = eq < 0 ? '' : text.slice(0, eq);
  const shown = JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  if (field !== 'obj' && field !== 'sub')
    throw badArgument(`route: ${shown}: expected obj=GLOB or sub=GLOB`, 'route');
  const glob = text.slice(eq + 1);
  const problem = globProblem(glob);
  if (problem !== null) throw badArgument(`route: ${shown}: ${problem}`, 'route');
  return { field: field as RouteField, glob };
}

/**
 * Whether `value` matches `glob` whole: `*` any run of characters (empty too), `?` exactly one
 * character (a Unicode code point), anything else itself, case-sensitively (obj and sub are
 * compared exactly, spec 2.4). Linear in practice: the classic greedy walk that remembers only
 * the last `*`.
 *
 * @example
 * globMatches('alice@*', 'alice@bank.example'); // true
 * globMatches('DE??*', 'de89');                 // false (case-sensitive)
 */
export function globMatches(glob: string, value: string): boolean {
  const g = Array.from(glob);
  const v = Array.from(value);
  let gi = 0;
  let vi = 0;
  let star = -1;
  let mark = 0;
  while (vi < v.length) {
    if (gi < g.length && (g[gi] === '?' || (g[gi] !== '*' && g[gi] === v[vi]))) {
      gi++;
      vi++;
    } else if (gi < g.length && g[gi] === '*') {
      star = gi++;
      mark = vi;
    } else if (star >= 0) {
      gi = star + 1;
      vi = ++mark;
    } else return false;
  }
  while (gi < g.length && g[gi] === '*') gi++;
  return gi === g.length;
}

/** How specific a glob is: its wildcards, and its literal characters before the first one. */
export function specificity(glob: string): { wildcards: number; prefix: number } {
  let wildcards = 0;
  let prefix = -1;
  let i = 0;
  for (const ch of glob) {
    if (ch === '*' || ch === '?') {
      wildcards++;
      if (prefix < 0) prefix = i;
    }
    i++;
  }
  return { wildcards, prefix: prefix < 0 ? i : prefix };
}

/** What {@link compareRoutes} orders: a glob and when its route was first registered. */
export interface RankedRoute {
  glob: string;
  /** Registration order on its hub (smaller: older). */
  order: number;
  /**
   * When it was first registered (ISO 8601, UTC): "the oldest" among routes of several hubs on
   * one database, whose orders are each their own hub's.
   */
  since?: string;
}

/**
 * Orders two routes claiming one request, the winner first (issue 30 item 3: "the most specific
 * glob, then the oldest"): fewer wildcards wins (an exact glob has none); then the longer literal
 * prefix before the first wildcard (`alice@bank.*` over `alice@*`); then the older route.
 *
 * @example
 * [b, a].sort(compareRoutes)[0]; // the winner
 */
export function compareRoutes(a: RankedRoute, b: RankedRoute): number {
  const sa = specificity(a.glob);
  const sb = specificity(b.glob);
  if (sa.wildcards !== sb.wildcards) return sa.wildcards - sb.wildcards;
  if (sa.prefix !== sb.prefix) return sb.prefix - sa.prefix;
  if (a.since !== undefined && b.since !== undefined && a.since !== b.since)
    return a.since < b.since ? -1 : 1;
  return a.order - b.order;
}

/** Whether a glob matches every string (only `*`): such a route also claims notifications. */
export function isCatchAll(glob: string): boolean {
  return /^\*+$/.test(glob);
}
