/**
 * The composer (DESIGN.md "JWTs"): builds the bank's JWT exactly as spec 2.4 lists its claims
 * (flow = sign-in, obj, sub, iat, exp = iat + ttl, nothing else), signs it with a key from the
 * key store (header alg, kid, typ), and hands it back ready to use: as the CX-Authorization
 * header line and as a curl call to the active environment's authenticate endpoint (spec 4.1
 * #2). Odd inputs earn warnings, not refusals: the spec does not fix obj's format, and a
 * person testing the service's limits must be able to sign a token it will refuse.
 *
 * Every obj/sub pair signed is remembered (SignedPairs), so the bank endpoints can check that a
 * callback carries the sub the console sent for that obj.
 */
import { decodeProtectedHeader } from 'jose';
import type { SignedJwt, SignJwtInput } from '../../contract/schemas/service';
import type { z } from 'zod';
import type { SignedPairs } from '../bank';
import { LEEWAY_SECONDS, MAX_BANK_JWT_LIFETIME_SECONDS, objHints, SIGN_IN_FLOW } from '../jwt';
import type { KeyStore } from '../keys';
import type { Composer, EnvironmentStore } from './types';

/** Default lifetime of a composed token, in seconds. */
export const DEFAULT_TTL_SECONDS = 300;

export interface ComposerOptions {
  keys: Pick<KeyStore, 'sign' | 'get'>;
  pairs: SignedPairs;
  environments: Pick<EnvironmentStore, 'get'>;
  now?: () => number;
}

/** Single-quotes a string for a POSIX shell. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The authenticate call (spec 4.1 #2) as a ready-to-paste curl command. */
export function authenticateCurl(baseUrl: string, counterpartyGuid: string, token: string): string {
  const url = `${baseUrl.replace(/\/+$/, '')}/api/v1/counterparty/${encodeURIComponent(counterpartyGuid)}/jwk/authenticate`;
  return `curl -sS -X POST ${shellQuote(url)} -H ${shellQuote(`CX-Authorization: ${token}`)}`;
}

/**
 * Creates the composer.
 *
 * @example
 * const composer = createComposer({ keys, pairs, environments });
 * const { token, warnings, curl } = await composer.sign({ kid, obj: 'DE89370400440532013000', sub: 'ops@bank.example' });
 */
export function createComposer(options: ComposerOptions): Composer {
  const { keys, pairs, environments } = options;
  const now = options.now ?? Date.now;

  return {
    async sign(input: z.output<typeof SignJwtInput>): Promise<SignedJwt> {
      const nowSeconds = Math.floor(now() / 1000);
      const ttl = input.ttl ?? DEFAULT_TTL_SECONDS;
      const iat = input.iat ?? nowSeconds;
      // Spec 2.4: exactly these claims, in this order.
      const payload = { flow: SIGN_IN_FLOW, obj: input.obj, sub: input.sub, iat, exp: iat + ttl };

      const warnings = [...objHints(input.obj)];
      if (input.sub.trim() !== input.sub) {
        warnings.push('sub starts or ends with white space: the bank compares it exactly');
      }
      if (ttl > MAX_BANK_JWT_LIFETIME_SECONDS) {
        warnings.push(
          `the lifetime is ${ttl} s: the sandbox refuses tokens living over 1 hour (${MAX_BANK_JWT_LIFETIME_SECONDS} s), ` +
            'and the service likely does too',
        );
      }
      if (iat > nowSeconds + LEEWAY_SECONDS) {
        warnings.push(
          `iat is ${iat - nowSeconds} s in the future: the service refuses tokens issued in the future`,
        );
      }
      if (iat + ttl <= nowSeconds) {
        warnings.push(`exp is ${nowSeconds - (iat + ttl)} s in the past: the token is already expired`);
      }

      const token = await keys.sign(input.kid, payload);
      const key = await keys.get(input.kid).catch(() => null);
      if (key?.status === 'retired') {
        warnings.push(
          `key "${input.kid}" is retired: the service may no longer accept it once a rotation is complete`,
        );
      }

      try {
        await pairs.record(input.obj, input.sub, now());
      } catch (err) {
        warnings.push(
          `this obj/sub pair could not be remembered for the bank endpoints' sub check: ${err instanceof Error ? err.message : String(err)}`,
        );
      }

      let curl: string | null = null;
      try {
        const env = await environments.get();
        if (env.base_url && env.counterparty_guid)
          curl = authenticateCurl(env.base_url, env.counterparty_guid, token);
      } catch {
        // No active environment to call (or it cannot be read): the token is still good to copy.
      }

      return {
        token,
        header: decodeProtectedHeader(token) as Record<string, unknown>,
        payload,
        warnings,
        header_line: `CX-Authorization: ${token}`,
        curl,
      };
    },
  };
}
