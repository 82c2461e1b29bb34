import { badArgument } from './errors';

/**
 * Parses JSON text a user supplied (a pasted file, an uploaded file), failing with BAD_ARGUMENT
 * that names the field and the parser's position, never the content itself.
 *
 * @example
 * const customers = parseJsonText(args.text, 'text');
 */
export function parseJsonText(text: string, field: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const why = err instanceof Error ? err.message.replace(/"[^"]*"/g, '…') : 'invalid';
    throw badArgument(`${field}: not valid JSON (${why})`, field);
  }
}
