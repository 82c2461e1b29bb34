/**
 * The guided onboarding walkthrough (issue 6; DESIGN.md "onboarding"): the registration flow of
 * spec 4.4 and the work around it as eight steps. State is derived (derive.ts, one function per
 * step under derive/) from the facts the console's own stores record (facts.ts, one module per
 * source under facts/); actions (actions.ts) use the same services as the pages; a small
 * per-environment record in the profile database (progress.ts) keeps the reset mark and what no
 * other store keeps; the evidence pack (pack.ts) is redacted as a whole (redact.ts). The
 * contract's handlers are in handlers.ts.
 */
export { walkthroughHandlers, type WalkthroughOptions } from './handlers';
export { deriveSteps, type WalkthroughFacts } from './derive';
export { redactPack, shortenSignature } from './redact';
