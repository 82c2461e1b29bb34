import { SignJwtInput, SignedJwt } from '../schemas/service';
import { method } from './method';

/** `jwt.*` methods: the composer (spec 2.4). */
export const jwtMethods = {
  'jwt.sign': method({
    summary: 'Compose and sign a bank JWT (flow sign-in, obj, sub, iat, exp) with a vault key.',
    input: SignJwtInput,
    output: SignedJwt,
  }),
} as const;
