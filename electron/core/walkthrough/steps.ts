/**
 * The walkthrough's eight steps as a newcomer reads them: what the service expects, why, and
 * where the spec says so. The registration flow itself is spec 4.4; the steps around it (the
 * key, the callbacks, the notifications, rotation) are what makes that flow work in practice.
 */
import type { StepId } from '../../contract/schemas/walkthrough';

export interface StepText {
  number: number;
  title: string;
  spec: string;
  explanation: string;
  /** Earlier steps this one builds on, in order. */
  needs: StepId[];
}

export const STEP_TEXT: Record<StepId, StepText> = {
  key: {
    number: 1,
    title: "Create the bank's signing key",
    spec: 'spec 5.1, 2.1',
    explanation:
      'Every request to the service carries a JWT signed with the bank’s private key (spec 5.1). The console ' +
      'generates an RSA key (RS256, 2048 bits) in its vault: the private part never leaves this machine, the ' +
      'public part is the JWK of spec 2.1 (alg, e, kid, kty, n, use = sig) the service verifies your tokens with.',
    needs: [],
  },
  register: {
    number: 2,
    title: 'Register the public JWK with the service',
    spec: 'spec 5.2, 4.1 #1',
    explanation:
      'The service only trusts tokens signed by a key registered for your counterparty. The first JWK is uploaded ' +
      'during onboarding (spec 5.2; the procedure itself is not specified): the service answers with your ' +
      'counterparty_guid, which every endpoint path carries. Later keys are registered with PUT …/jwk/{jwk_guid} ' +
      '(spec 4.1 #1), signed by a key already registered.',
    needs: ['key'],
  },
  compose: {
    number: 3,
    title: 'Compose a bank JWT',
    spec: 'spec 4.4 #2, 2.4',
    explanation:
      'The bank generates the JWT (spec 4.4 #2) with the claims of spec 2.4: flow = sign-in, obj (the customer ' +
      'acted on: an IBAN or a phone number), sub (who initiates: an employee or a technical user), iat and exp in ' +
      'Unix seconds. obj and sub come back to the bank in the service’s callback, so the bank can check them.',
    needs: ['key'],
  },
  authenticate: {
    number: 4,
    title: 'Check it with the authenticate endpoint',
    spec: 'spec 4.4 #3–6, 4.1 #2, 2.3',
    explanation:
      'The bank checks its JWT with POST …/jwk/authenticate, the token in CX-Authorization and no body ' +
      '(spec 4.1 #2). The service validates it (flow, obj, sub, iat, exp, the signature against your registered ' +
      'JWK) and answers a session_token (spec 2.3), which the console decodes and checks against the service’s ' +
      'JWKS. The spec leaves this call to the bank (4.4 #3–4), but the walkthrough needs it: it proves the ' +
      'registered key signs tokens the service accepts, and the rotation (step 8) builds on it.',
    needs: ['register', 'compose'],
  },
  callbacks: {
    number: 5,
    title: 'Bring up the callback endpoints',
    spec: 'spec 4.2, 4.3, 8',
    explanation:
      'The service calls the bank back: GET /user_auth, /key and /external_id on {bank_auth_url} (spec 4.2), and ' +
      'POSTs notifications to {bank_sender_url} / {bank_receiver_url} (spec 4.3). The console runs these ' +
      'endpoints for you; the service must know their URL and be able to reach it, and each callback must answer ' +
      'within 1 second (spec 8).',
    needs: ['register'],
  },
  'sign-in': {
    number: 6,
    title: 'Run the sign-in',
    spec: 'spec 4.4 #5–8, 2.5, 5.5',
    explanation:
      'The registration flow itself: the bank’s JWT goes in CX-Authorization (spec 4.4 #5), the service validates ' +
      'it (#6), builds its own JWT and calls the bank’s GET /user_auth with it in X-Session-ID (#7). The bank ' +
      'verifies that token against the service’s JWKS (#8, spec 5.5), checks obj and sub, and answers the user ' +
      'data of spec 2.5 (external_id, phone, key) — or 401 when a check fails.',
    needs: ['callbacks', 'compose'],
  },
  notifications: {
    number: 7,
    title: 'Receive each notification',
    spec: 'spec 4.3, 6, 2.7',
    explanation:
      'When a balance changes the service POSTs {"transaction_id": "<uuid>"} (spec 2.7) to /api/svc/notify/pay-in ' +
      '(the receiving bank), /pay-out (the sending bank) or /transfer (either) and expects 200 with no body ' +
      '(spec 4.3, 6). The console stores each one durably before it answers.',
    needs: ['callbacks'],
  },
  rotate: {
    number: 8,
    title: 'Rotate the key before it expires',
    spec: 'spec 5.3, 4.1 #1',
    explanation:
      'Before a key expires the bank registers the next one through PUT …/jwk/{jwk_guid} (spec 5.3, 4.1 #1), ' +
      'signed by the current key. The console generates the next key, registers it, proves the service accepts ' +
      'a JWT signed by it, and only then makes it active, so signing never stops.',
    needs: ['authenticate'],
  },
};
