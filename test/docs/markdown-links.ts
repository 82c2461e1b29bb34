/**
 * What the documentation tests read out of Markdown and source files: relative links and their
 * anchors (issue 25 item 6, "links that resolve in a clone"), and references to a `shared`
 * folder above a file, which name the project's design documents outside the repository (they
 * are mirrored in docs/design.md and docs/service-interface.md).
 *
 * Anchors follow GitHub's rendering (github-slugger): the heading's text without its inline
 * markup, lower-cased, every character that is not a letter, a mark, a digit, a connector, a
 * hyphen or a space dropped, spaces turned into hyphens, and `-1`, `-2`, … added to repeats.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

/** One link found in a Markdown file, as written. */
export interface MarkdownLink {
  /** The target as written, e.g. `docs/storage.md#retention`. */
  target: string;
  /** 1-based line of the link. */
  line: number;
}

/** A link that does not resolve, with why. */
export interface BrokenLink extends MarkdownLink {
  reason: string;
}

/** Fenced code blocks (``` or ~~~) blanked out, line count kept: nothing in them is a link or a heading. */
export function withoutFences(text: string): string {
  const lines = text.split('\n');
  let fence: string | null = null;
  return lines
    .map((line) => {
      const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
      if (fence === null && open) {
        fence = open[1]!;
        return '';
      }
      if (fence !== null) {
        if (new RegExp(`^\\s{0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`).test(line))
          fence = null;
        return '';
      }
      return line;
    })
    .join('\n');
}

/** Inline code spans blanked out (a `[x](y)` inside backticks is text, not a link). */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)[\s\S]*?\1/g, (m) => ' '.repeat(m.length));
}

/**
 * Every inline link, image and reference definition of a Markdown text, outside code.
 *
 * @example
 * markdownLinks('See [storage](docs/storage.md#retention).'); // [{ target: 'docs/storage.md#retention', line: 1 }]
 */
export function markdownLinks(text: string): MarkdownLink[] {
  const found: MarkdownLink[] = [];
  withoutFences(text)
    .split('\n')
    .forEach((raw, i) => {
      const line = withoutCodeSpans(raw);
      const inline = /!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
      for (const m of line.matchAll(inline)) found.push({ target: m[1]!, line: i + 1 });
      const definition = /^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/.exec(line);
      if (definition) found.push({ target: definition[1]!, line: i + 1 });
    });
  return found;
}

/** A heading's text as GitHub renders it: code ticks, emphasis and link syntax gone. */
function renderedText(heading: string): string {
  return heading
    .replace(/`+/g, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*+/g, '')
    .replace(/(^|[^\p{L}\p{N}])_+(?=\S)|(?<=\S)_+(?=[^\p{L}\p{N}]|$)/gu, '$1');
}

/**
 * GitHub's anchor for a heading text, without the repeat suffix.
 *
 * @example
 * slug('Bank endpoints (embedded, `--bank-port`)'); // 'bank-endpoints-embedded---bank-port'
 */
export function slug(heading: string): string {
  return renderedText(heading)
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown text offers: its headings' slugs (repeats numbered) and explicit `<a id|name>`. */
export function anchors(text: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  const body = withoutFences(text);
  for (const line of body.split('\n')) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of body.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  return out;
}

/** Whether a target names another scheme (`https:`, `mailto:`): not a file of the repository. */
function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

/** Whether `file` lies inside `root` (the clone), not above or beside it. */
export function isInside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The relative links of `file` (a Markdown file inside `root`) that do not resolve in the clone:
 * a target outside `root`, a file that does not exist, or an anchor its Markdown file lacks.
 * `read` gives a Markdown file's text (the anchors of a target are read through it).
 */
export function brokenLinks(root: string, file: string, read: (file: string) => string): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const link of markdownLinks(read(file))) {
    if (isExternal(link.target)) continue;
    const hash = link.target.indexOf('#');
    const pathPart = decodeURIComponent(hash === -1 ? link.target : link.target.slice(0, hash));
    const anchor = hash === -1 ? null : decodeURIComponent(link.target.slice(hash + 1));
    const target = pathPart === '' ? file : path.resolve(path.dirname(file), pathPart);
    if (!isInside(root, target)) {
      broken.push({ ...link, reason: `points outside the repository (${path.relative(root, target)})` });
      continue;
    }
    if (!existsSync(target)) {
      broken.push({ ...link, reason: `no such file: ${path.relative(root, target)}` });
      continue;
    }
    if (anchor === null || anchor === '' || !target.endsWith('.md') || statSync(target).isDirectory())
      continue;
    if (!anchors(read(target)).has(anchor))
      broken.push({ ...link, reason: `no heading #${anchor} in ${path.relative(root, target)}` });
  }
  return broken;
}

/** How a relative module path may be completed to a file (imports leave out the extension). */
const COMPLETIONS = ['', '.ts', '.tsx', '.js', '.mjs', '.css', '.md', '/index.ts', '/index.tsx'];

/**
 * The references in `text` (a file at `file`, inside `root`) to a `shared` folder reached by going
 * up one or more folders that do not resolve to a file of the clone: a sibling
 * folder of the repository, or a path that does not exist. An import of the renderer's own
 * `shared/` folder resolves, and passes.
 */
export function sharedPathsOutside(root: string, file: string, text: string): string[] {
  const bad: string[] = [];
  for (const m of text.matchAll(/(?:\.\.\/)+shared(?:\/[\w.@-]*[\w@-])*/g)) {
    const target = path.resolve(path.dirname(file), m[0]);
    const resolves = isInside(root, target) && COMPLETIONS.some((end) => existsSync(target + end));
    if (!resolves) bad.push(m[0]);
  }
  return bad;
}
