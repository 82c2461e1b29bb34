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
