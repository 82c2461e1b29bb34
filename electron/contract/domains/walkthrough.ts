import {
  EvidencePack,
  ExportPackInput,
  RunStepInput,
  RunStepResult,
  WalkthroughChanged,
  WalkthroughState,
  WalkthroughTarget,
} from '../schemas/walkthrough';
import { method } from './method';

/** `walkthrough.*` methods and events: the guided onboarding walkthrough (issue 6). */
export const walkthroughMethods = {
  'walkthrough.state': method({
    summary:
      "The walkthrough's eight steps for an environment (default: the active one), each derived from real events: " +
      'pending, done, failed with the reason and the fix, or waiting for the service.',
    input: WalkthroughTarget.optional(),
    output: WalkthroughState,
  }),
  'walkthrough.run': method({
    summary:
      "Run one step's action (create the key, register it, compose, authenticate, reach the callbacks, sign in, " +
      'notifications, rotate); the answer carries the state derived afterwards.',
    input: RunStepInput,
    output: RunStepResult,
  }),
  'walkthrough.reset': method({
    summary:
      "Start an environment's walkthrough again: events before now are ignored (keys and registrations stay).",
    input: WalkthroughTarget.optional(),
    output: WalkthroughState,
  }),
  'walkthrough.exportPack': method({
    summary:
      'The evidence pack for the onboarding sign-off: steps, times, key fingerprints and public JWKs, decoded tokens, ' +
      'traces; redacted (no private key, no user secret key, signatures shortened).',
    input: ExportPackInput.optional(),
    output: EvidencePack,
  }),
} as const;

export const walkthroughEvents = {
  /** A reset or a recorded attempt changed an environment's walkthrough. */
  'walkthrough.changed': WalkthroughChanged,
} as const;
