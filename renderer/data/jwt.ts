/** Signing bank JWTs (`jwt.sign`), for the Composer and the sandbox's sign-in form. */
import { useMutation } from '@tanstack/react-query';
import type { MethodInput } from '../../electron/contract';
import { useApi } from '../api/client-context';

/** Signing is a mutation: the core records the obj/sub pair it signed (DESIGN.md, bank endpoints). */
export function useSignJwt() {
  const api = useApi();
  return useMutation({
    mutationFn: (input: MethodInput<'jwt.sign'>) => api.jwt.sign(input),
  });
}
