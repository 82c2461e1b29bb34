/**
 * The vault's cipher: AES-256-GCM (node:crypto) with a random 96-bit IV per seal and the
 * caller's `aad` bound as additional authenticated data, so a sealed secret opens only with the
 * same vault key and for the same purpose it was sealed for.
 *
 * Sealed form (opaque to callers, safe to store): `v1.<iv>.<ciphertext>.<tag>`, each part
 * base64url. The version prefix leaves room for another cipher later without guessing.
 */
import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto';
import { ConsoleError } from '../../contract/errors';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const B64URL = /^[A-Za-z0-9_-]*$/;

export function sealBytes(key: KeyObject, plaintext: Uint8Array, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv, ciphertext, tag]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/**
 * Opens what sealBytes made. A wrong key, a wrong `aad`, an altered or a malformed value all
 * reject VAULT_DAMAGED (never a crash, and nothing of the value in the message).
 */
export function openSealed(key: KeyObject, sealed: string, aad: string): Uint8Array {
  const parts = typeof sealed === 'string' ? sealed.split('.') : [];
  const [version, ivText, ctText, tagText] = parts;
  if (
    parts.length !== 4 ||
    version !== VERSION ||
    ![ivText, ctText, tagText].every((p) => p !== undefined && B64URL.test(p))
  ) {
    throw new ConsoleError(
      'VAULT_DAMAGED',
      `A sealed secret (for "${aad}") is not in the vault's format (${VERSION}.<iv>.<ciphertext>.<tag>): it was altered or written by something else. Nothing was changed.`,
    );
  }
  const iv = Buffer.from(ivText!, 'base64url');
  const tag = Buffer.from(tagText!, 'base64url');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
    throw new ConsoleError(
      'VAULT_DAMAGED',
      `A sealed secret (for "${aad}") has a ${iv.length}-byte IV or a ${tag.length}-byte tag where the vault writes ${IV_BYTES} and ${TAG_BYTES}: it was altered. Nothing was changed.`,
    );
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    const ciphertext = Buffer.from(ctText!, 'base64url');
    return new Uint8Array(Buffer.concat([decipher.update(ciphertext), decipher.final()]));
  } catch {
    throw new ConsoleError(
      'VAULT_DAMAGED',
      `A sealed secret does not open with this vault's key for "${aad}": it was sealed by another vault (another profile or machine) or for another purpose, or it was altered. Nothing was changed.`,
    );
  }
}
