/**
 * Splits a command line the way a POSIX shell splits words, without running anything:
 * whitespace separates words; '…' keeps everything literally; "…" keeps everything but lets
 * `\"`, `\\`, `\$` and `` \` `` escape; a backslash outside quotes escapes the next character.
 * No expansion ($VAR, ~, globs) happens: DETS_SSH_COMMAND is read as git reads GIT_SSH_COMMAND
 * for the common case (`ssh -i KEY -o Option=value`), and nothing in it reaches a shell.
 *
 * @example
 * splitShellWords(`ssh -i "/home/me/my key" -o StrictHostKeyChecking=accept-new`);
 * // ['ssh', '-i', '/home/me/my key', '-o', 'StrictHostKeyChecking=accept-new']
 */
export function splitShellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line.charAt(i + 1)))
        word += line.charAt(++i);
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 < line.length) word += line.charAt(++i);
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated ${quote === "'" ? 'single' : 'double'} quote`);
  if (inWord) words.push(word);
  return words;
}
