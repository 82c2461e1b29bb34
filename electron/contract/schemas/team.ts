import { z } from 'zod';

/**
 * A team hub member's role (DESIGN.md "Team hub"): viewer (reads), operator (also replays,
 * sandbox actions, routes), admin (also keys, environments, members).
 */
export const TeamRole = z.enum(['viewer', 'operator', 'admin']);
export type TeamRole = z.infer<typeof TeamRole>;

/** A member's name: a person or a technical user, often an email (the guide's `sub`). */
export const MemberName = z
  .string()
  .min(1)
  .max(100)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._@+-]*$/,
    'letters, digits and . _ @ + - only, starting with a letter or digit',
  );

/**
 * Who the page speaks for (issue 30 item 2: "the hub's name and the member's role in the
 * header"). Outside a team hub: no hub, no member, and every action allowed (`admin`).
 */
export const TeamSession = z.object({
  /** The hub's name (its URL's host) when this page talks to a team hub; null otherwise. */
  hub: z.string().nullable(),
  member: z.string().nullable(),
  role: TeamRole,
  /**
   * Set only on the page `attach --forward-to URL` serves: this laptop's backend, where routes
   * added from this page send their requests (team.addRoute is answered there and nowhere else).
   */
  forward_to: z.string().optional(),
});
export type TeamSession = z.infer<typeof TeamSession>;

/**
 * A route's claim (issue 30 item 3; DESIGN.md "Team hub": `--route obj=GLOB|sub=GLOB`): which
 * claim of the X-Session-ID the glob is matched against. Matching is exact and case-sensitive,
 * as obj and sub are (spec 2.4).
 */
export const RouteField = z.enum(['obj', 'sub']);
export type RouteField = z.infer<typeof RouteField>;

/** The longest glob a route may carry (an IBAN is 34 characters, an email at most 254). */
export const ROUTE_GLOB_MAX = 300;

/**
 * What is wrong with a route's glob, or null: the one rule, read by the contract (pages, the
 * hub's API) and by `attach --route` (core/team route-glob.ts). `*` (any run, empty too) and `?`
 * (one character) are the only wildcards; `[`, `]`, `{`, `}` and `\` would look like other glob
 * dialects' classes, braces or escapes, so they are refused rather than taken literally.
 *
 * @example
 * globProblem('alice@*'); // null
 * globProblem('DE[0-9]*'); // 'only * and ? are wildcards: "[" is not allowed'
 */
export function globProblem(glob: string): string | null {
  if (glob.length === 0) return 'the glob is empty';
  if (glob.length > ROUTE_GLOB_MAX) return `the glob is longer than ${ROUTE_GLOB_MAX} characters`;
  if (glob.trim() !== glob) return 'the glob starts or ends with white space';
  for (const ch of glob) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || c === 0x7f) return 'the glob holds a control character';
    if ('[]{}\\'.includes(ch)) return `only * and ? are wildcards: "${ch}" is not allowed`;
  }
  return null;
}

export const RouteGlob = z.string().superRefine((glob, ctx) => {
  const problem = globProblem(glob);
  if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
});

/** A route a laptop asks for (team.addRoute on an attached page; `attach --route`). */
export const RouteRequest = z.object({ field: RouteField, glob: RouteGlob }).strict();
export type RouteRequest = z.infer<typeof RouteRequest>;

/** A route as the team sees it: who routes what, to which attached laptop, since when, up or down. */
export const RouteInfo = z.object({
  id: z.string(),
  /** The member whose attach registered it. */
  member: z.string(),
  field: RouteField,
  glob: z.string(),
  /** The attached laptop: its host name as it said (display only). */
  attach: z.string(),
  /** The laptop's backend as its attach names it (`--forward-to`), for display. */
  forward_to: z.string().nullable(),
  /** When it was first registered (kept across the laptop's reconnects). */
  since: z.string(),
  /** Whether the laptop's connection is up now. */
  up: z.boolean(),
  /**
   * The hub the laptop is attached to, when several hubs share one database (`--store
   * postgres://…`, docs/team-hub.md "Routes"): every hub routes by every hub's routes.
   */
  hub: z.string().optional(),
});
export type RouteInfo = z.infer<typeof RouteInfo>;

/**
 * What a console attached to a team hub holds (issue 30 item 2: "the desktop app can attach to a
 * hub from its start page"): where it is attached, as whom, and whether the hub's live events
 * arrive. Never the member token: it goes into `team.attach` once and stays in the host (the OS
 * keychain and the host's memory).
 */
export const TeamConnection = z.object({
  /** detached: the pages are this console's; connected/retrying: they are the hub's. */
  state: z.enum(['detached', 'connected', 'retrying']),
  hub_url: z.string().nullable(),
  /** The hub's name (its URL's host), as the hub says it. */
  hub: z.string().nullable(),
  member: z.string().nullable(),
  role: TeamRole.nullable(),
  /** Whether the token is in the OS keychain (the host re-attaches at its next start). */
  remembered: z.boolean(),
  /** Why the live events are down, or why the token is not remembered; null when nothing to say. */
  detail: z.string().nullable(),
  /** When retrying: the wait before the next attempt (backoff), in ms. */
  retry_in_ms: z.number().int().nonnegative().nullable(),
  /** Failed attempts since the connection was last up. */
  attempts: z.number().int().nonnegative(),
  /** Whether this host can attach at all (the desktop app and `serve` on a laptop; not a hub, not an attached page). */
  can_attach: z.boolean(),
});
export type TeamConnection = z.infer<typeof TeamConnection>;

/** `team.attach`: the hub's URL and the member token `team add` printed. */
export const TeamAttachInput = z
  .object({
    hub_url: z
      .string()
      .trim()
      .min(1, 'the hub’s URL is needed (https://…)')
      .max(2000)
      .refine((v) => URL.canParse(v), 'not a URL'),
    token: z.string().trim().min(1, 'your member token is needed').max(500),
  })
  .strict();
