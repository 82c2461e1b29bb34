/** The words of a thrown value, for a step's reason (an Error's message, else its text). */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
