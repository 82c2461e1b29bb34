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
});
export type TeamSession = z.infer<typeof TeamSession>;

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
