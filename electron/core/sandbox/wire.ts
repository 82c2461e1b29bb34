/**
 * The sandbox's HTTP answers for the registration flow and notifications, as DESIGN.md fixes
 * them ("Sandbox service": `{"ok":true,"user":{…},"trace":[…]}`, `{"ok":false,"failed":…,
 * "trace":[…]}`, `{transaction_id, url, status, duration_ms}`): bank teams' CI parses these, so
 * the schemas live beside the routes and the tests hold the routes to them.
 */
import { z } from 'zod';
import { TraceStep } from '../../contract/schemas/sandbox';

const WireTrace = {
  /** The steps, in order. */
  trace: z.array(TraceStep),
  trace_id: z.string(),
  trace_duration_ms: z.number(),
};

export const SignInWire = z.object({
  ok: z.boolean(),
  user: z.record(z.string(), z.unknown()).nullable(),
  failed: z.string().nullable(),
  ...WireTrace,
});
export type SignInWire = z.infer<typeof SignInWire>;

export const NotifyWire = z.object({
  transaction_id: z.string(),
  url: z.string(),
  status: z.number().nullable(),
  duration_ms: z.number(),
  error: z.string().nullable(),
  ...WireTrace,
});
export type NotifyWire = z.infer<typeof NotifyWire>;
