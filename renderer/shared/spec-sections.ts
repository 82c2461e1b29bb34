/**
 * The service interface (docs: the Authentication and Notification Interface of the DETS), as
 * the console's in-app reference (issue 13 item 4): each section's rules in short, and what the
 * console does about them. The walkthrough's and the pages' spec citations ("spec 4.4 #2, 2.4")
 * open these sections at #/reference/<id>.
 */
export interface SpecSection {
  /** "4.4", "2.1", "8". */
  id: string;
  title: string;
  /** What the spec says, in short. */
  rules: string[];
  /** What the console does about it, and where. */
  console: string;
}

export const SPEC_SECTIONS: readonly SpecSection[] = [
  {
    id: '1',
    title: 'What the service does',
    rules: [
      'The service holds digital-entity balances and transfers for counterparties (banks).',
      'Every request to the service API carries a JWT signed with the bank’s private key.',
      'The bank implements three callbacks (user data, user secret key, external identifier) and receives three notifications (pay-in, pay-out, transfer).',
    ],
    console:
      'The Walkthrough takes a new bank through all of it against the built-in sandbox, then against a real environment.',
  },
  {
    id: '2.1',
    title: 'JWK (JSON Web Key)',
    rules: [
      'Fields: alg, e, kid, kty, n, use (sig).',
      'Updating a key sends {"data": <JWK>}; the answer is an empty JSON object.',
    ],
    console:
      'Keys generates RSA keys in the vault and exports only these public members; the private part never leaves this machine.',
  },
  {
    id: '2.2',
    title: 'JWK set',
    rules: ['{"keys": [JWK, …]}, fields as in 2.1.'],
    console:
      'The bank endpoints fetch the service’s JWK set to verify X-Session-ID; the Bank page shows its kids and state.',
  },
  {
    id: '2.3',
    title: 'Session token result',
    rules: ['{"session_token": "<string>"}, the answer of POST …/jwk/authenticate.'],
    console:
      'Walkthrough step 4 and the Service page decode the session_token and check it against the service’s JWKS.',
  },
  {
    id: '2.4',
    title: 'JWT payload (claims)',
    rules: [
      'flow: always sign-in; obj: the customer (an IBAN or a phone number); sub: who initiates; iat and exp: Unix seconds.',
      'The bank’s JWT goes in CX-Authorization; the service’s JWT goes in X-Session-ID on callbacks.',
      'obj and sub come back in the callback, so the bank can check signature, object and subject.',
    ],
    console:
      'The Composer and Walkthrough step 3 sign these claims; the Inspector runs every check on any token.',
  },
  {
    id: '2.5',
    title: 'User data (GET /user_auth)',
    rules: [
      'Required: external_id (up to 500 symbols), phone, key (the user secret key).',
      'Optional: first_name, last_name, email.',
    ],
    console:
      'The bank endpoints answer this from the test customers (Bank page); the sandbox’s sign-in judges each field.',
  },
  {
    id: '2.6',
    title: 'Other callback responses',
    rules: ['GET /key: {"key": …}; GET /external_id: {"external_id": …}.'],
    console: 'The bank endpoints answer both from the test customers; every answer is on the Callbacks page.',
  },
  {
    id: '2.7',
    title: 'Notification body',
    rules: ['{"transaction_id": "<UUID>"}.'],
    console:
      'The bank endpoints refuse anything else with 400 and the reason; the Notifications page shows every one.',
  },
  {
    id: '4.1',
    title: 'Endpoints offered by the service',
    rules: [
      '#1 PUT /api/v1/counterparty/{counterparty_guid}/jwk/{jwk_guid}: register a new JWK before the old one expires (body {"data": JWK}).',
      '#2 POST /api/v1/counterparty/{counterparty_guid}/jwk/authenticate: check the bank’s JWT; CX-Authorization, no body; answers {"session_token"}.',
      '#3 GET /api/v1/.well-known/jwks.json: the service’s public keys.',
    ],
    console:
      'The Service page calls all three; the Walkthrough uses #1 (step 8), #2 (step 4) and #3 (step 6).',
  },
  {
    id: '4.2',
    title: 'Callbacks the bank must offer',
    rules: [
      'GET /user_auth, /key and /external_id on {bank_auth_url}, each with X-Session-ID holding the service’s JWT.',
      'Each must answer within 1 second.',
      'A successful answer when every check passes; otherwise HTTP 401.',
    ],
    console:
      'The bank endpoints verify X-Session-ID and answer; a callback answered over 1 s is failed `budget` on every page.',
  },
  {
    id: '4.3',
    title: 'Notification endpoints the bank must offer',
    rules: [
      'POST /api/svc/notify/pay-in ({bank_receiver_url}), /pay-out ({bank_sender_url}), /transfer (either).',
      'Body {"transaction_id": "<UUID>"}; answer 200 OK with no body.',
    ],
    console:
      'The bank endpoints store each notification durably before the 200; Walkthrough step 7 sends one per route.',
  },
  {
    id: '4.4',
    title: 'Registration flow (sequence)',
    rules: [
      '#1 The bank sends a request to the service API with a JWT.',
      '#2 The bank generates the JWT.',
      '#3–4 (Optional in the spec) The bank checks the JWT with endpoint 2 and gets the result.',
      '#5 The JWT is sent in CX-Authorization.',
      '#6 The service validates the JWT.',
      '#7 The service builds its own JWT and calls the bank’s GET /user_auth with it in X-Session-ID.',
      '#8 The bank validates that X-Session-ID is signed by the service key (from endpoint 3).',
    ],
    console:
      'Walkthrough steps 3 to 6 are this flow; the console’s walkthrough needs #3–4 (step 4) because the rotation builds on it.',
  },
  {
    id: '5',
    title: 'Authentication',
    rules: [
      '5.1 Every request to the service carries a JWT signed with the bank’s private key, in CX-Authorization.',
      '5.2 The initial JWK is uploaded in onboarding (the procedure is not specified).',
      '5.3 Before a key expires, the new JWK is registered through endpoint 1.',
      '5.4 The service verifies the bank’s JWT (flow sign-in; claims in 2.4).',
      '5.5 Callbacks carry the service’s JWT in X-Session-ID; the bank verifies it against endpoint 3’s keys, and may check obj and sub.',
      '5.6 The bank answers 401 when a check fails.',
      '5.7 The callbacks return the user secret key in key.',
    ],
    console:
      'Walkthrough steps 1, 2 and 8 (keys, registration, rotation); the Callbacks page shows each check of 5.5.',
  },
  {
    id: '6',
    title: 'Events',
    rules: [
      'pay-in (to the receiving bank), pay-out (to the sending bank), transfer (either): each an HTTP POST with body transaction_id; the receiver answers 200.',
    ],
    console: 'Walkthrough step 7 and the Sandbox page send them; the Notifications page lists them live.',
  },
  {
    id: '7',
    title: 'Errors',
    rules: [
      'A callback whose X-Session-ID fails a check (signature, object, subject): 401 from the bank.',
      'A successful call of a service endpoint: 200.',
    ],
    console: 'The Callbacks page names the check that failed and why; the Inspector explains any token.',
  },
  {
    id: '8',
    title: 'Limits',
    rules: [
      'Each bank callback answers within 1 second.',
      'external_id: up to 500 symbols.',
      '/user_auth requires external_id, key and phone.',
    ],
    console:
      'Over 1 s is failed `budget` (Callbacks, Walkthrough, Sandbox traces, evidence pack); the Bank page’s behaviours break each limit on purpose.',
  },
  {
    id: '9',
    title: 'Versioning',
    rules: [
      'The service’s endpoints carry /api/v1.',
      'Bank-side callback and notification paths carry no version segment.',
    ],
    console: 'The console builds every service URL under {base_url}/api/v1.',
  },
];

/** The section a citation names: "4.4" → 4.4; "4.1 #2" → 4.1; "5.3" → 5 (5 has no subsections here). */
export function sectionFor(id: string): SpecSection | null {
  const exact = SPEC_SECTIONS.find((s) => s.id === id);
  if (exact) return exact;
  const top = id.split('.')[0] ?? '';
  return SPEC_SECTIONS.find((s) => s.id === top) ?? null;
}

/**
 * Splits a citation such as "spec 4.4 #3–6, 4.1 #2, 2.3" into its parts, each with the section it
 * opens: [{text: '4.4 #3–6', id: '4.4'}, …].
 */
export function citationParts(spec: string): { text: string; id: string | null }[] {
  const body = spec.replace(/^spec\s+/i, '');
  return body.split(/,\s*/).map((text) => {
    const m = /^(\d+(?:\.\d+)?)/.exec(text.trim());
    return { text: text.trim(), id: m ? (sectionFor(m[1]!)?.id ?? null) : null };
  });
}

export const referenceHref = (id: string) => `#/reference/${id}`;
