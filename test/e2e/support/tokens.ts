import { SignJWT, generateKeyPair, type JWK } from 'jose';
import { jwkOf } from '../../support/rsa-pair';

export interface TestSigner {
  kid: string;
  publicJwk: JWK;
  sign(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
}

/** A fresh RS256 key pair: real crypto, as a bank's key would be. */
export async function createSigner(kid: string): Promise<TestSigner> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = jwkOf(publicKey);
  return {
    kid,
    publicJwk: { alg: 'RS256', e: jwk.e, kid, kty: jwk.kty, n: jwk.n, use: 'sig' },
    sign: (claims, header = {}) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT', ...header }).sign(privateKey),
  };
}

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** An unsigned token (`alg: none`), which every check must refuse. */
export function unsignedToken(claims: Record<string, unknown>): string {
  return `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);
