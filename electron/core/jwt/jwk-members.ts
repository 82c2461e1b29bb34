/**
 * The encoding of a JWK's binary members, written once (issue 24 item 11): every member that
 * holds octets (an RSA key's n and e, its private d, p, q, dp, dq, qi; a certificate thumbprint
 * x5t, x5t#S256) is base64url without padding (RFC 7518 §6.3.1 and §6.3.2, RFC 7517 §4.8-§4.9,
 * RFC 7515 §2). The sandbox's registration, the key sets built from a JWKS or a pasted JWK (the
 * bank endpoints, the inspector, the conformance runner) and a private JWK's import all judge a
 * JWK by this one rule, so a key is never used in one place and refused in another.
 *
 * Threat model: the members come from whoever wrote the JWK. Node's decoder reads standard
 * base64 (`+`, `/`, `=`) in a base64url member without a word, so without this rule a JWKS key
 * the service would refuse at registration could still verify tokens at the bank. A private
 * member's problem is named without quoting any of its characters: it is a secret.
 */
import { base64urlProblem } from './decode';

/** The members that hold octets as base64url, in the order they are judged. */
export const JWK_BINARY_MEMBERS = ['n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi', 'x5t', 'x5t#S256'] as const;

/** Members whose value is a secret: a problem with them never quotes a character. */
const SECRET_MEMBERS: ReadonlySet<string> = new Set(['d', 'p', 'q', 'dp', 'dq', 'qi']);

/**
 * The first binary member of `jwk` that is present but not a non-empty base64url string, as a
 * sentence naming the member, the character at fault (for a public member) and the rule; null
 * when every binary member present is base64url.
 *
 * @example
 * jwkMemberProblem({ kty: 'RSA', n: 'ab+c', e: 'AQAB' })
 * // "n is not base64url: '+' (standard base64; …) at position 3; JWK members are base64url without padding (RFC 7518 §6.3.1, RFC 7515 §2)"
 */
export function jwkMemberProblem(jwk: Record<string, unknown>): string | null {
  for (const member of JWK_BINARY_MEMBERS) {
    if (!Object.hasOwn(jwk, member)) continue;
    const value = jwk[member];
    if (typeof value !== 'string' || value === '') {
      return `${member} is ${value === '' ? 'an empty string' : 'not a string'}; JWK members holding octets are non-empty base64url strings (RFC 7518 §6.3.1)`;
    }
    const problem = base64urlProblem(value);
    if (problem === null) continue;
    const what = SECRET_MEMBERS.has(member)
      ? 'it holds a character outside the base64url alphabet, or padding, or has an impossible length'
      : problem.message;
    return `${member} is not base64url: ${what}; JWK members are base64url without padding (RFC 7518 §6.3.1, RFC 7515 §2)`;
  }
  return null;
}
