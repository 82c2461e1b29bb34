/**
 * The relay's wire format (issue 30 item 3): after the hub accepts an HTTP upgrade to
 * {@link RELAY_PROTOCOL} on `/api/relay` (member token, operator role), both sides exchange JSON
 * frames, one per line, over that one connection (TLS when the hub serves TLS). The laptop opens
 * it, so the laptop needs no inbound port (DESIGN.md "Team hub").
 *
 * Threat model: each side treats the other's frames as untrusted input. A line longer than
 * {@link MAX_FRAME_BYTES}, a line that is not JSON or a frame its schema refuses ends the
 * connection with a reason; nothing in a frame is evaluated or followed.
 */
import { z } from 'zod';
import { RouteInfo, RouteRequest } from '../../contract/schemas/team';

/** The Upgrade token of the relay connection. */
export const RELAY_PROTOCOL = 'dets-relay/1';
/** Where the hub's UI listener accepts it. */
export const RELAY_PATH = '/api/relay';
/** One frame's largest line: a relayed answer's body is cut at RELAY_MAX_BODY first. */
export const MAX_FRAME_BYTES = 512 * 1024;
/** The largest body of a relayed request or answer (the event store keeps 64 KiB of it). */
export const RELAY_MAX_BODY = 256 * 1024;

const Headers = z.record(z.string().max(200), z.string().max(8192));
const Id = z.number().int().nonnegative();

/** What the laptop sends. */
export const LaptopFrame = z.discriminatedUnion('t', [
  z.object({
    t: z.literal('hello'),
    name: z.string().min(1).max(200),
    forward_to: z.string().max(2048),
    routes: z.array(RouteRequest).max(50),
  }),
  z.object({ t: z.literal('add'), ref: Id, route: RouteRequest }),
  z.object({
    t: z.literal('answer'),
    id: Id,
    status: z.number().int().min(100).max(599),
    headers: Headers,
    body_b64: z.string().max(Math.ceil((RELAY_MAX_BODY * 4) / 3) + 4),
    truncated: z.boolean(),
    duration_ms: z.number().nonnegative(),
  }),
  z.object({ t: z.literal('refused'), id: Id, why: z.string().max(500) }),
  z.object({ t: z.literal('pong') }),
]);
export type LaptopFrame = z.infer<typeof LaptopFrame>;

/** What the hub sends. */
export const HubFrame = z.discriminatedUnion('t', [
  z.object({ t: z.literal('welcome'), attach: z.string(), routes: z.array(RouteInfo) }),
  z.object({
    t: z.literal('added'),
    ref: Id,
    route: RouteInfo.nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  }),
  z.object({ t: z.literal('removed'), id: z.string() }),
  z.object({
    t: z.literal('relay'),
    id: Id,
    method: z.enum(['GET', 'POST']),
    path: z.string().max(2048),
    headers: Headers,
    body: z.string().nullable(),
    /** How long the laptop has, from when it reads this frame. */
    budget_ms: z.number().int().positive(),
  }),
  z.object({ t: z.literal('ping') }),
  z.object({ t: z.literal('bye'), why: z.string() }),
]);
export type HubFrame = z.infer<typeof HubFrame>;

/** One frame as the line that carries it. */
export function frameLine(frame: LaptopFrame | HubFrame): string {
  return `${JSON.stringify(frame)}\n`;
}

/**
 * Splits a byte stream into frames checked against `schema`. `onFrame` gets each; `onError`
 * gets the first problem (then nothing more is read: the caller ends the connection).
 *
 * @example
 * const read = frameReader(HubFrame, (f) => handle(f), (why) => socket.destroy());
 * socket.on('data', read);
 */
export function frameReader<T>(
  schema: z.ZodType<T>,
  onFrame: (frame: T) => void,
  onError: (why: string) => void,
): (chunk: Buffer) => void {
  let pending: Buffer[] = [];
  let size = 0;
  let failed = false;
  const fail = (why: string) => {
    failed = true;
    pending = [];
    onError(why);
  };
  return (chunk) => {
    if (failed) return;
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, nl));
      start = nl + 1;
      const line = Buffer.concat(pending).toString('utf8');
      pending = [];
      size = 0;
      if (line.length > MAX_FRAME_BYTES) return fail(`a frame over ${MAX_FRAME_BYTES} bytes`);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return fail('a frame that is not JSON');
      }
      const parsed = schema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return fail(
          `a frame the relay refuses (${issue?.path.join('.') || 'frame'}: ${issue?.message ?? '?'})`,
        );
      }
      onFrame(parsed.data);
      if (failed) return;
    }
    const rest = chunk.subarray(start);
    size += rest.length;
    if (size > MAX_FRAME_BYTES) return fail(`a frame over ${MAX_FRAME_BYTES} bytes`);
    if (rest.length > 0) pending.push(rest);
  };
}
