/**
 * The import graph of the TypeScript sources under some folders, and the cycles in it (issue 25
 * item 3: zero import cycles in electron/ and renderer/). Every relative import counts: static,
 * type-only, `export … from` and dynamic `import()` (a lazily loaded page that imports its own
 * table back is still a loop a reader has to untangle), as madge counts them.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SOURCE = /\.(ts|tsx)$/;
const CANDIDATES = ['', '.ts', '.tsx', '/index.ts', '/index.tsx'];

function sourcesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourcesUnder(full));
    else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** The file a relative specifier names, or null (a package, a stylesheet, a missing file). */
function resolveRelative(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), specifier);
  for (const suffix of CANDIDATES) {
    const candidate = base + suffix;
    if (SOURCE.test(candidate) && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Each source file under `roots` (absolute paths) with the source files it imports. */
export function importGraph(roots: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of roots.flatMap(sourcesUnder)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((ref) => resolveRelative(file, ref.fileName))
      .filter((t): t is string => t !== null);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/**
 * Every import cycle, each as the files along it (first file repeated at the end), found by a
 * depth-first search that reports a cycle when it meets a file still on its path.
 *
 * @example
 * findCycles(new Map([['a', ['b']], ['b', ['a']]])); // [['a', 'b', 'a']]
 */
export function findCycles(graph: Map<string, string[]>): string[][] {
  const done = new Set<string>();
  const onPath = new Map<string, number>();
  const pathStack: string[] = [];
  const cycles: string[][] = [];
  // Iterative, so a deep chain of imports cannot overflow the stack.
  for (const start of [...graph.keys()].sort()) {
    if (done.has(start)) continue;
    const frames: Array<{ file: string; next: number }> = [{ file: start, next: 0 }];
    onPath.set(start, 0);
    pathStack.push(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const targets = graph.get(frame.file) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!;
        const at = onPath.get(target);
        if (at !== undefined) cycles.push([...pathStack.slice(at), target]);
        else if (!done.has(target)) {
          onPath.set(target, pathStack.length);
          pathStack.push(target);
          frames.push({ file: target, next: 0 });
        }
      } else {
        frames.pop();
        pathStack.pop();
        onPath.delete(frame.file);
        done.add(frame.file);
      }
    }
  }
  return cycles;
}
