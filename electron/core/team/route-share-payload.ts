/**
 * What hubs on one database say to each other on the relay channel (issue 30, routes across
 * hubs; docs/team-hub.md "Routes"): hub B hands a request one of hub A's routes claims to A
 * (an ask), and A hands back what its laptop answered (a reply); B asks A to remove one of A's
 * routes (a removal). Both are PostgreSQL NOTIFY
 * payloads, so each must stay under {@link NOTIFY_MAX_BYTES}; a request too large to cross is
 * answered by B itself.
 *
 * Threat model: the channel is shared by every session of the database, so a payload may be
 * broken or hostile: one addressed to another hub is skipped unparsed (a prefix check, as
 * store/pg-live.ts skips its own commits), one that is not JSON or not of these shapes, or over
 * their bounds, is dropped.
 */
import { z } from 'zod';
import type { RelayOutcome, RelayRequest } from '../bank';
import { PG_NOTIFY_MAX_BYTES } from '../store';
import { RELAY_MAX_BODY } from './relay-frames';

/** The relay channel's bound: PostgreSQL's, as every channel's (pg-schema.ts). */
export const NOTIFY_MAX_BYTES = PG_NOTIFY_MAX_BYTES;

const Text = (max: number) => z.string().max(max);
const Headers = z.record(Text(128), Text(8000)).refine((h) => Object.keys(h).length <= 32);

/** The request as it crosses (its deadline as the milliseconds left: two hosts' clocks differ). */
const CrossingRequest = z
  .object({
    kind: z.enum(['callback', 'notification']),
    method: z.enum(['GET', 'POST']),
    path: Text(2048),
    headers: Headers,
    body: Text(8000).nullable(),
    claims: z
      .object({ obj: Text(1024).nullable(), sub: Text(1024).nullable() })
      .strict()
      .nullable(),
  })
  .strict();

const Ask = z
  .object({
    to: Text(64),
    from: Text(64),
    id: z.number().int().positive(),
    /** The milliseconds left of the wait when B sent it (counted from the request's arrival at B). */
    deadline_ms: z.number().int().min(1).max(10_000),
    /** The claiming route's id on hub A. */
    route: Text(64),
    request: CrossingRequest,
  })
  .strict();

const Answer = z
  .object({
    answered: z.literal(true),
    url: Text(4096),
    status: z.number().int().min(100).max(999),
    headers: Headers,
    body_b64: Text(Math.ceil((RELAY_MAX_BODY * 4) / 3) + 4),
    truncated: z.boolean(),
    duration_ms: z.number().min(0).max(60_000),
  })
  .strict();

/**
 * Not answered. `why` null: hub A recorded its laptop's miss itself; else why A could not relay
 * (the route gone, the answer too large to cross), which B records as `route.down`.
 */
const NoAnswer = z.object({ answered: z.literal(false), why: Text(500).nullable() }).strict();

const Reply = z
  .object({
    to: Text(64),
    id: z.number().int().positive(),
    outcome: z.union([Answer, NoAnswer]),
  })
  .strict();

/** B asks A to remove A's route `remove` (team.removeRoute called on B's page). */
const Removal = z.object({ to: Text(64), from: Text(64), remove: Text(64) }).strict();

/** B's ask: A relays `request` through its route `route`. */
export type RelayAsk = z.infer<typeof Ask>;
/** A's reply to an ask. */
export type RelayReply = z.infer<typeof Reply>;
/** A removal of another hub's route. */
export type RouteRemoval = z.infer<typeof Removal>;

/** The removal as a NOTIFY payload (small: ids only). */
export function removalPayload(removal: RouteRemoval): string {
  return JSON.stringify({
    to: removal.to,
    from: removal.from,
    remove: removal.remove,
  } satisfies RouteRemoval);
}

/** The opening of every payload addressed to `hub`: what a hub reads, the rest skipped unparsed. */
export function addressedTo(hub: string): string {
  return `{"to":${JSON.stringify(hub)},`;
}

/**
 * The ask as a NOTIFY payload, or why it cannot cross (the reason `route.down` records).
 *
 * @example
 * const made = askPayload({ to, from, id: 1, route: 'r1', request }, performance.now());
 */
export function askPayload(
  ask: Omit<RelayAsk, 'request' | 'deadline_ms'>,
  request: RelayRequest,
  now: number,
): { payload: string } | { refused: string } {
  const { kind, method, path, headers, body, claims } = request;
  const message: RelayAsk = {
    to: ask.to,
    from: ask.from,
    id: ask.id,
    deadline_ms: Math.max(1, Math.floor(request.deadline - now)),
    route: ask.route,
    request: { kind, method, path, headers, body, claims },
  };
  return sized(message, 'the request');
}

/**
 * A's reply as a NOTIFY payload; an answer too large to cross becomes a refusal saying so (B
 * records it and answers itself).
 */
export function replyPayload(to: string, id: number, outcome: RelayOutcome): string {
  if (!outcome.answered) return refusalPayload(to, id, null);
  const { status, headers, body, truncated, durationMs } = outcome.result;
  const answer = {
    answered: true as const,
    url: outcome.url,
    status,
    headers,
    body_b64: body.toString('base64'),
    truncated,
    duration_ms: durationMs,
  };
  const made = sized({ to, id, outcome: answer }, "the laptop's answer");
  return 'payload' in made ? made.payload : refusalPayload(to, id, made.refused);
}

/** A reply without an answer: `why` null when this hub recorded the miss itself. */
export function refusalPayload(to: string, id: number, why: string | null): string {
  const reply: RelayReply = { to, id, outcome: { answered: false, why: why?.slice(0, 500) ?? null } };
  return JSON.stringify(reply);
}

function sized(message: RelayAsk | RelayReply, what: string): { payload: string } | { refused: string } {
  const payload = JSON.stringify(message);
  const bytes = Buffer.byteLength(payload);
  if (bytes > NOTIFY_MAX_BYTES)
    return {
      refused: `${what} is ${bytes} bytes as a PostgreSQL NOTIFY payload, over its ${NOTIFY_MAX_BYTES}`,
    };
  return { payload };
}

/**
 * A payload read off the relay channel: null when it is for another hub (not parsed at all) or
 * broken (not JSON, not an ask or a reply, over a bound).
 *
 * @example
 * const m = readRelayPayload(msg.payload, myHubId); if (m?.kind === 'ask') …
 */
export function readRelayPayload(
  payload: string,
  hub: string,
):
  | { kind: 'ask'; ask: RelayAsk }
  | { kind: 'reply'; reply: RelayReply }
  | { kind: 'remove'; removal: RouteRemoval }
  | null {
  if (!payload.startsWith(addressedTo(hub)) || payload.length > NOTIFY_MAX_BYTES) return null;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  const ask = Ask.safeParse(value);
  if (ask.success) return { kind: 'ask', ask: ask.data };
  const reply = Reply.safeParse(value);
  if (reply.success) return { kind: 'reply', reply: reply.data };
  const removal = Removal.safeParse(value);
  return removal.success ? { kind: 'remove', removal: removal.data } : null;
}

/** The reply's outcome as the bank takes it (the body back from base64). */
export function outcomeOf(reply: RelayReply): RelayOutcome {
  const o = reply.outcome;
  if (!o.answered) return { answered: false };
  return {
    answered: true,
    url: o.url,
    result: {
      ok: true,
      status: o.status,
      headers: o.headers,
      body: Buffer.from(o.body_b64, 'base64'),
      truncated: o.truncated,
      durationMs: o.duration_ms,
      connectMs: null,
    },
  };
}
