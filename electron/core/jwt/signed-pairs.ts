/**
 * The obj/sub pairs the console signed, so the bank endpoints can check a callback's sub
 * (DESIGN.md "Bank endpoints": when the console itself signed JWTs for this obj within the last
 * hour, the callback's sub must equal one of theirs).
 *
 * `<dataDir>/signed-pairs.json` holds JSON Lines, one `{"obj","sub","at"}` object per line (at
 * in Unix milliseconds). Several processes share it without locks: `jwt sign` in the CLI
 * appends while a running `serve` reads. Appends use O_APPEND, so lines written by different
 * processes never interleave; a reader re-reads only when the file changed (inode, size or
 * mtime). Pairs older than 24 hours are ignored, and once enough of them pile up the file is
 * rewritten without them (atomically: temp file, fsync, rename). A line appended by another
 * process during that rewrite's few milliseconds can be lost; pairs are hints (the bank check
 * falls back to "any non-empty sub, with a warning"), so that is accepted.
 *
 * Failure model: a last line cut short by a crash is ignored, and the next record rewrites the
 * file without it (so it never ends up glued to, or above, a good line); any other line that is not a pair makes the file STATE_DAMAGED, named and left untouched.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ConsoleError } from '../../contract/errors';
import { serializer, writeFileAtomic } from '../keys/atomic-file';
import type { SignedPairs } from '../service/types';

export const SIGNED_PAIRS_FILE = 'signed-pairs.json';

/** How long a pair is kept at all. */
export const RETENTION_MS = 24 * 3600 * 1000;
/** The default look-back of subsFor (DESIGN.md: "within the last hour"). */
export const DEFAULT_WITHIN_SECONDS = 3600;
/** Compact once at least this many stale lines make up at least half the file. */
const COMPACT_AFTER = 200;

interface Pair {
  obj: string;
  sub: string;
  at: number;
}

interface Snapshot {
  ino: number;
  size: number;
  mtimeMs: number;
  pairs: Pair[];
  /** Lines older than the retention, or a torn last line: what compaction would drop. */
  stale: number;
  /** The last line was cut short (no newline): the next record rewrites the file first. */
  torn: boolean;
}

export interface SignedPairsOptions {
  dataDir: string;
  now?: () => number;
}

function isPair(value: unknown): value is Pair {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.obj === 'string' &&
    typeof v.sub === 'string' &&
    typeof v.at === 'number' &&
    Number.isFinite(v.at)
  );
}

/**
 * Opens the signed pairs of a profile. Nothing is read until first use.
 *
 * @example
 * const pairs = createSignedPairs({ dataDir });
 * await pairs.record('DE89370400440532013000', 'ops@bank.example');
 * await pairs.subsFor('DE89370400440532013000'); // ['ops@bank.example']
 */
export function createSignedPairs(options: SignedPairsOptions): SignedPairs {
  const now = options.now ?? Date.now;
  const file = path.join(options.dataDir, SIGNED_PAIRS_FILE);
  const exclusive = serializer();
  let cache: Snapshot | null = null;

  const damaged = (problem: string) =>
    new ConsoleError(
      'STATE_DAMAGED',
      `the signed-pairs file ${file} ${problem}. It was left untouched: repair it, or delete it (it only ` +
        'remembers which obj/sub pairs the console signed in the last 24 hours)',
      { file },
    );

  /** The file as it is now, re-read only when it changed since the last read. */
  async function load(): Promise<Snapshot | null> {
    let stat;
    try {
      stat = await fs.stat(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return (cache = null);
      throw damaged(`could not be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    if (cache && cache.ino === stat.ino && cache.size === stat.size && cache.mtimeMs === stat.mtimeMs) {
      return cache;
    }
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      throw damaged(`could not be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
    const lines = text.split('\n');
    const torn = lines.pop() ?? ''; // '' when the file ends with a newline, as it should
    const cutoff = now() - RETENTION_MS;
    const pairs: Pair[] = [];
    const isTorn = torn.trim() !== '';
    let stale = isTorn ? 1 : 0;
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw damaged(`has a line that is not JSON (line ${i + 1})`);
      }
      if (!isPair(value)) throw damaged(`has a line that is not an {obj, sub, at} pair (line ${i + 1})`);
      if (value.at >= cutoff) pairs.push({ obj: value.obj, sub: value.sub, at: value.at });
      else stale += 1;
    });
    cache = { ino: stat.ino, size: stat.size, mtimeMs: stat.mtimeMs, pairs, stale, torn: isTorn };
    return cache;
  }

  async function append(pair: Pair): Promise<void> {
    await fs.mkdir(options.dataDir, { recursive: true, mode: 0o700 });
    const handle = await fs.open(file, 'a+', 0o600);
    try {
      const { size } = await handle.stat();
      let lead = '';
      if (size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        // Torn since load() looked (another process crashed mid-append): keep our line whole.
        if (last[0] !== 0x0a) lead = '\n';
      }
      await handle.appendFile(`${lead}${JSON.stringify(pair)}\n`, 'utf8');
    } finally {
      await handle.close();
    }
  }

  async function compact(snapshot: Snapshot): Promise<void> {
    const text = snapshot.pairs.map((p) => `${JSON.stringify(p)}\n`).join('');
    await writeFileAtomic(file, text);
    cache = null;
  }

  return {
    record(obj, sub, atMs) {
      return exclusive(async () => {
        const snapshot = await load(); // refuses to add to a damaged file
        const pileUp =
          snapshot !== null && snapshot.stale >= COMPACT_AFTER && snapshot.stale >= snapshot.pairs.length;
        if (snapshot && (snapshot.torn || pileUp)) {
          await compact(snapshot);
        }
        try {
          await append({ obj, sub, at: atMs ?? now() });
        } catch (err) {
          throw new ConsoleError(
            'INTERNAL',
            `could not remember the signed obj/sub pair in ${file}: ${err instanceof Error ? err.message : String(err)}`,
          );
        }
      });
    },

    async subsFor(obj, withinSeconds = DEFAULT_WITHIN_SECONDS) {
      const snapshot = await load();
      if (!snapshot) return [];
      const since = now() - withinSeconds * 1000;
      const subs: string[] = [];
      const recent = snapshot.pairs.filter((p) => p.obj === obj && p.at >= since).sort((a, b) => b.at - a.at);
      for (const p of recent) if (!subs.includes(p.sub)) subs.push(p.sub);
      return subs;
    },
  };
}
