/**
 * "Open in Inspector" from any page (Composer, Service): the token, the key that verifies it and
 * the claims it must carry are handed to the Inspector's form, then the Inspector page opens and
 * inspects it as if it had been pasted. The Inspector takes handoffs (its form is its own UI
 * state); a handoff made before it has loaded waits here until it does.
 */

/** A token handed over from another page, with what verifies it. */
export interface InspectorHandoff {
  token: string;
  /** A public JWK or JWKS (text) that verifies the signature; none: keep the current key source. */
  keyText?: string;
  /** A JWKS URL that verifies the signature (e.g. the service's, for a session_token). */
  keyUrl?: string;
  expectedObj?: string;
  expectedSub?: string;
}

type Taker = (handoff: InspectorHandoff) => void;

let pending: InspectorHandoff | null = null;
let taker: Taker | null = null;

/**
 * Hands `handoff` to the Inspector and opens its page (the same `#/inspector` link the nav has).
 *
 * @example
 * openInInspector({ token, keyUrl: env.effective_jwks_url });
 */
export function openInInspector(handoff: InspectorHandoff): void {
  if (taker) taker(handoff);
  else pending = handoff;
  if (window.location.hash !== '#/inspector') window.location.hash = '#/inspector';
}

/** The Inspector's side: `take` hears every handoff, first the one waiting (if any). Returns the release. */
export function takeInspectorHandoffs(take: Taker): () => void {
  taker = take;
  if (pending) {
    const waiting = pending;
    pending = null;
    take(waiting);
  }
  return () => {
    if (taker === take) taker = null;
  };
}
