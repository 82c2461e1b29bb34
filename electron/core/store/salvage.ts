/**
 * Salvaging a profile database SQLite will not open or walk (issue 24 item 6): a damaged
 * 100-byte header (a flipped "SQLite format 3" string, an impossible page size), or a file cut
 * short, which SQLite 3.45 calls corrupt as soon as the header says more pages than the file has
 * (btree.c lockBtree). `store recover` reads such a file through a copy whose header is rebuilt,
 * and then reads page by page ({@link scanEventPages}) the events that no b-tree walk reaches
 * (a leaf whose parent page is lost). File format: https://sqlite.org/fileformat2.html.
 *
 * libsql ships `sqlite_dbpage`, but it reads through the pager, which refuses the same files;
 * reading the bytes ourselves depends on nothing that can be damaged but the page read.
 */
import fs from 'node:fs';
import { parseEventId, parseRecord } from './records';
import { SQLITE_EVENT_COLUMNS } from './event-columns';
import type { EventDetail } from '../../contract/schemas/events';

const MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const HEADER = 100;
const PAGE_SIZES = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536];
/** The page size this console creates databases with (SQLite's default). */
const DEFAULT_PAGE = 4096;

function pageSizeOf(h: Buffer): number | null {
  const v = h.readUInt16BE(16);
  const size = v === 1 ? 65536 : v;
  return PAGE_SIZES.includes(size) ? size : null;
}

/** The page size `file`'s header names (the default when it names none). */
export function pageSizeOfFile(file: string): number {
  const { header } = readHeader(file);
  return (header.length >= 18 ? pageSizeOf(header) : null) ?? DEFAULT_PAGE;
}

/**
 * What is wrong with `file`'s header in words ([] when nothing is): the checks SQLite makes
 * before it reads a page.
 */
export function headerProblems(file: string): string[] {
  const { header, size } = readHeader(file);
  if (size === 0) return [];
  const out: string[] = [];
  if (header.length < HEADER) return [`the file is ${size} bytes, shorter than a database header`];
  if (!header.subarray(0, 16).equals(MAGIC)) out.push('the header does not begin "SQLite format 3"');
  const page = pageSizeOf(header);
  if (page === null) out.push(`the header's page size (${header.readUInt16BE(16)}) is not a power of two`);
  if (![1, 2].includes(header[18]!) || ![1, 2].includes(header[19]!))
    out.push('the header names no known file format version');
  if (header[21] !== 64 || header[22] !== 32 || header[23] !== 32)
    out.push("the header's payload fractions are not 64/32/32");
  const pages = header.readUInt32BE(28);
  const valid = header.readUInt32BE(92) === header.readUInt32BE(24);
  if (page !== null && valid && pages * page > size)
    out.push(
      `the file is cut short: the header says ${pages} pages, the file holds ${Math.floor(size / page)}`,
    );
  return out;
}

function readHeader(file: string): { header: Buffer; size: number } {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const header = Buffer.alloc(Math.min(HEADER, size));
    fs.readSync(fd, header, 0, header.length, 0);
    return { header, size };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Copies `file` to `to` with its header rebuilt: the magic string, a page size found from the
 * pages themselves when the header's is impossible, the format bytes, the payload fractions, and
 * a page count the file really holds. The rest (schema cookie, encoding, freelist) is kept.
 * A WAL is not carried: its frames name the old header's salt.
 */
export function rebuiltCopy(file: string, to: string): { pageSize: number } {
  fs.copyFileSync(file, to);
  fs.chmodSync(to, 0o600);
  const fd = fs.openSync(to, 'r+');
  try {
    const size = fs.fstatSync(fd).size;
    const h = Buffer.alloc(HEADER);
    fs.readSync(fd, h, 0, HEADER, 0);
    const pageSize = pageSizeOf(h) ?? guessPageSize(fd, size);
    MAGIC.copy(h, 0);
    h.writeUInt16BE(pageSize === 65536 ? 1 : pageSize, 16);
    h[18] = 1; // rollback journal: the copy is read alone, with no WAL beside it
    h[19] = 1;
    h[21] = 64;
    h[22] = 32;
    h[23] = 32;
    const pages = Math.floor(size / pageSize);
    h.writeUInt32BE(pages, 28);
    h.writeUInt32BE(h.readUInt32BE(24), 92); // the page count is valid for this change counter
    if (h.readUInt32BE(32) > pages) {
      // A freelist beyond the end is no freelist (only writes use it).
      h.writeUInt32BE(0, 32);
      h.writeUInt32BE(0, 36);
    }
    const format = h.readUInt32BE(44);
    if (format < 1 || format > 4) h.writeUInt32BE(4, 44);
    const encoding = h.readUInt32BE(56);
    if (encoding < 1 || encoding > 3) h.writeUInt32BE(1, 56);
    fs.writeSync(fd, h, 0, HEADER, 0);
    if (pages * pageSize < size) fs.ftruncateSync(fd, pages * pageSize);
    return { pageSize };
  } finally {
    fs.closeSync(fd);
  }
}

/** The page size whose page starts hold the most b-tree page types (2, 5, 10, 13). */
function guessPageSize(fd: number, size: number): number {
  let best = DEFAULT_PAGE;
  let bestScore = -1;
  const b = Buffer.alloc(1);
  for (const ps of PAGE_SIZES) {
    let score = 0;
    for (let p = 1; p < Math.min(64, Math.floor(size / ps)); p++) {
      fs.readSync(fd, b, 0, 1, p * ps);
      if ([2, 5, 10, 13].includes(b[0]!)) score++;
    }
    if (score > bestScore) [best, bestScore] = [ps, score];
  }
  return best;
}

/** A varint at `at`: its value (as a number; ours fit) and its length. */
function varint(b: Buffer, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const byte = b[at + i];
    if (byte === undefined) throw new RangeError('varint past the end');
    v = v * 128 + (byte & 0x7f);
    if (byte < 0x80) return [v, i + 1];
  }
  const last = b[at + 8];
  if (last === undefined) throw new RangeError('varint past the end');
  return [v * 256 + last, 9];
}

/** Bytes a serial type's value takes in a record. */
function serialSize(t: number): number {
  if (t >= 12) return Math.floor((t - (t % 2 === 0 ? 12 : 13)) / 2);
  return [0, 1, 2, 3, 4, 6, 8, 8, 0, 0][t] ?? 0;
}

/**
 * Where an `events` row holds its record, and how many columns a row may have: a row written
 * before a column was added (ALTER TABLE … ADD COLUMN, event-columns.ts) keeps its fewer
 * columns in the file, so a page holds rows of every version's width.
 */
const RECORD_AT = SQLITE_EVENT_COLUMNS.findIndex((c) => c.name === 'record');
const ROW_WIDTHS = new Set(
  SQLITE_EVENT_COLUMNS.map(
    (c) => SQLITE_EVENT_COLUMNS.filter((d) => d.since.sqlite <= c.since.sqlite).length,
  ),
);

/**
 * Every event found on `file`'s table leaf pages, page by page, whatever their b-tree: a cell
 * of an `events` row's width (ROW_WIDTHS) whose record parseRecord accepts with the cell's rowid as its id.
 * Pages on the freelist are skipped (they hold deleted rows). Overflow chains are followed while
 * they stay inside the file.
 */
export function* scanEventPages(file: string, pageSize: number): Generator<EventDetail> {
  const fd = fs.openSync(file, 'r');
  try {
    const inFile = Math.floor(fs.fstatSync(fd).size / pageSize);
    // A page's newest committed version is in the WAL when the WAL has one: the main file's copy
    // is older (an event since deleted, a record since rewritten).
    const wal = walPages(`${file}-wal`, pageSize);
    let pages = inFile;
    for (const n of wal.keys()) pages = Math.max(pages, n);
    const read = (n: number): Buffer | null => {
      const newer = wal.get(n);
      if (newer) return newer;
      if (n < 1 || n > inFile) return null;
      const b = Buffer.alloc(pageSize);
      return fs.readSync(fd, b, 0, pageSize, (n - 1) * pageSize) === pageSize ? b : null;
    };
    const free = freelist(read);
    for (let n = 2; n <= pages; n++) {
      if (free.has(n)) continue;
      const page = read(n);
      if (!page || page[0] !== 0x0d) continue;
      const cells = page.readUInt16BE(3);
      for (let i = 0; i < cells && 8 + 2 * i + 1 < pageSize; i++) {
        const event = eventAt(page, page.readUInt16BE(8 + 2 * i), pageSize, read);
        if (event) yield event;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The newest committed version of each page in a WAL: frames of the current salt, up to the last
 * commit frame (a frame with a database size); a frame of another salt ends the log, as it does
 * for SQLite. Checksums are not verified (see the README: WAL damage cannot be told apart).
 */
function walPages(wal: string, pageSize: number): Map<number, Buffer> {
  const pages = new Map<number, Buffer>();
  let b: Buffer;
  try {
    b = fs.readFileSync(wal);
  } catch {
    return pages;
  }
  if (b.length < 32 || (b.readUInt32BE(0) & 0xfffffffe) !== 0x377f0682 || b.readUInt32BE(8) !== pageSize)
    return pages;
  const salt = b.subarray(16, 24);
  let pending = new Map<number, Buffer>();
  for (let at = 32; at + 24 + pageSize <= b.length; at += 24 + pageSize) {
    if (!b.subarray(at + 8, at + 16).equals(salt)) break;
    pending.set(b.readUInt32BE(at), b.subarray(at + 24, at + 24 + pageSize));
    if (b.readUInt32BE(at + 4) !== 0) {
      for (const [n, page] of pending) pages.set(n, page);
      pending = new Map();
    }
  }
  return pages;
}

/** The freelist's pages (trunks and leaves), as far as the chain can be followed. */
function freelist(read: (n: number) => Buffer | null): Set<number> {
  const free = new Set<number>();
  const first = read(1);
  let trunk = first ? first.readUInt32BE(32) : 0;
  while (trunk !== 0 && !free.has(trunk)) {
    const t = read(trunk);
    if (!t) break;
    free.add(trunk);
    const count = Math.min(t.readUInt32BE(4), (t.length - 8) / 4);
    for (let i = 0; i < count; i++) free.add(t.readUInt32BE(8 + 4 * i));
    trunk = t.readUInt32BE(0);
  }
  return free;
}

/** The event in the leaf cell at `offset`, or null when the cell is not a readable event. */
function eventAt(
  page: Buffer,
  offset: number,
  pageSize: number,
  read: (n: number) => Buffer | null,
): EventDetail | null {
  try {
    const [payload, a] = varint(page, offset);
    const [rowid, b] = varint(page, offset + a);
    const start = offset + a + b;
    const usable = pageSize; // this console's databases reserve no bytes per page
    const x = usable - 35;
    let bytes: Buffer;
    if (payload <= x) bytes = page.subarray(start, start + payload);
    else {
      const m = Math.floor(((usable - 12) * 32) / 255) - 23;
      const k = m + ((payload - m) % (usable - 4));
      const local = k <= x ? k : m;
      const parts = [page.subarray(start, start + local)];
      let got = local;
      let next = page.readUInt32BE(start + local);
      const seen = new Set<number>();
      while (got < payload && next !== 0 && !seen.has(next)) {
        seen.add(next);
        const o = read(next);
        if (!o) return null;
        const take = Math.min(usable - 4, payload - got);
        parts.push(o.subarray(4, 4 + take));
        got += take;
        next = o.readUInt32BE(0);
      }
      if (got < payload) return null;
      bytes = Buffer.concat(parts);
    }
    if (bytes.length < payload) return null;
    const [headerSize, h] = varint(bytes, 0);
    const types: number[] = [];
    for (let at = h; at < headerSize;) {
      const [t, n] = varint(bytes, at);
      types.push(t);
      at += n;
    }
    if (!ROW_WIDTHS.has(types.length)) return null;
    const recordType = types[RECORD_AT]!;
    if (recordType < 13 || recordType % 2 === 0) return null;
    let at = headerSize;
    for (const t of types.slice(0, RECORD_AT)) at += serialSize(t);
    const text = bytes.subarray(at, at + serialSize(recordType)).toString('utf8');
    const event = parseRecord(text);
    return event && parseEventId(event.id) === rowid ? event : null;
  } catch {
    return null;
  }
}
