/**
 * Member tokens of a team hub (issue 30 item 1): 256 random bits, printed once by `team add`,
 * stored only as their SHA-256 (a slow KDF buys nothing against a random 256-bit secret), and
 * compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The prefix that makes a member token recognisable in a leaked log or a secret scanner. */
export const MEMBER_TOKEN_PREFIX = 'dets_m_';

/** A fresh member token. */
export function newMemberToken(): string {
  return `${MEMBER_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** What the hub stores of a token: its SHA-256, hex. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Whether `token` hashes to `storedHash`, in constant time (both sides are 32-byte digests).
 *
 * @example
 * tokenMatchesHash(presented, member.token_sha256);
 */
export function tokenMatchesHash(token: string, storedHash: string): boolean {
  const a = createHash('sha256').update(token, 'utf8').digest();
  const b = Buffer.from(storedHash, 'hex');
  return b.length === a.length && timingSafeEqual(a, b);
}
