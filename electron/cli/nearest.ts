/**
 * "Did you mean …?" for the CLI's unknown flags, subcommands and commands (DESIGN.md "Command
 * line": an unknown flag names the nearest known one when one is close).
 */

/**
 * The optimal string alignment distance: insertions, deletions, substitutions and swaps of two
 * neighbours each cost 1, so the typo `bank-prot` is 1 away from `bank-port`.
 *
 * @example
 * editDistance('bank-prot', 'bank-port'); // 1
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `word`, when it is close enough to be what was meant (1 edit away
 * for a word of up to 3 letters, 2 up to 8, 3 beyond), or else the one candidate that `word`
 * begins (`bank` for `bank-port`). Undefined when nothing is close or two candidates tie.
 *
 * @example
 * nearest('bank-prot', ['ui-port', 'bank-port']); // 'bank-port'
 * nearest('zzz', ['ui-port', 'bank-port']); // undefined
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const limit = word.length <= 3 ? 1 : word.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Infinity;
  let tie = false;
  for (const c of candidates) {
    const distance = editDistance(word.toLowerCase(), c.toLowerCase());
    if (distance < bestDistance) {
      best = c;
      bestDistance = distance;
      tie = false;
    } else if (distance === bestDistance && c !== best) tie = true;
  }
  if (best !== undefined && bestDistance <= limit && !tie) return best;
  const prefixed = word.length >= 3 ? candidates.filter((c) => c.startsWith(word)) : [];
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
