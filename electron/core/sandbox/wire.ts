/**
 * The sandbox's HTTP answers for the registration flow and notifications, as DESIGN.md fixes
 * them ("Sandbox service": `{"ok":true,"user":{…},"trace":[…]}`, `{"ok":false,"failed":…,
 * "trace":[…]}`, `{transaction_id, url, status, duration_ms}`): bank teams' CI parses these, so
 * the schemas live beside the routes and the tests hold the routes to them.
 */
import { z } from 'zod';
import { NotifyResult, SignInResult, TraceStep } from '../../contract/schemas/sandbox';

const WireTrace = {
  /** The steps, in order. */
  trace: z.array(TraceStep),
  trace_id: z.string(),
  trace_duration_ms: z.number(),
};

/** The sign-in answer: the ConsoleApi's SignInResult with its trace as WireTrace. */
export const SignInWire = SignInResult.omit({ trace: true }).extend(WireTrace);
export type SignInWire = z.infer<typeof SignInWire>;

/** The notification answer: the ConsoleApi's NotifyResult with its trace as WireTrace. */
export const NotifyWire = NotifyResult.omit({ trace: true }).extend(WireTrace);
export type NotifyWire = z.infer<typeof NotifyWire>;
