/** Turning schema failures into one BAD_ARGUMENT that names the field. */
import type { z } from 'zod';
import type { ConsoleError } from '../../contract/errors';
import { badRequest } from './errors';

/**
 * A BAD_ARGUMENT ConsoleError from a zod error: "bank_auth_url: must be an http(s) URL;
 * jwk: required".
 */
export function describeZodError(error: z.ZodError, what: string): ConsoleError {
  const parts = error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  const first = error.issues[0]?.path.map(String).join('.');
  return badRequest(`invalid ${what}: ${parts.join('; ')}`, first || undefined);
}
