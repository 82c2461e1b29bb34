/**
 * The exchange history: `<dataDir>/service/exchanges.jsonl`, one recorded exchange per line,
 * oldest first, appended as they happen and compacted to the most recent `cap` (1000 by
 * default) once it has grown a fifth past that.
 *
 * Failure model: the history is a log, not state. A line that is not a valid exchange (a write
 * cut short by a crash, a hand edit) is skipped when reading rather than failing the whole
 * history. The file holds CX-Authorization tokens and session tokens (short-lived credentials
 * the user has already seen), never private key material; it is created 0600 in a 0700 folder.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Exchange } from '../../contract/schemas/service';
import { readFileOrNull, SerialQueue, writeFileAtomic } from './files';

export const HISTORY_CAP = 1000;

export class ExchangeHistory {
  readonly file: string;
  private readonly queue = new SerialQueue();
  /** Lines in the file as far as this process knows; null until first counted. */
  private lines: number | null = null;

  constructor(
    dataDir: string,
    private readonly cap = HISTORY_CAP,
  ) {
    this.file = path.join(dataDir, 'service', 'exchanges.jsonl');
  }

  /** Appends one exchange; compacts the file when it has grown past the cap. */
  append(exchange: Exchange): Promise<void> {
    return this.queue.run(async () => {
      await fs.mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      if (this.lines === null) this.lines = (await this.readAll()).length;
      await fs.appendFile(this.file, `${JSON.stringify(exchange)}\n`, { encoding: 'utf8', mode: 0o600 });
      this.lines += 1;
      if (this.lines > this.cap + Math.ceil(this.cap / 5)) {
        const kept = (await this.readAll()).slice(-this.cap);
        await writeFileAtomic(this.file, kept.map((e) => `${JSON.stringify(e)}\n`).join(''));
        this.lines = kept.length;
      }
    });
  }

  /** The most recent exchanges, newest first. */
  async list(limit = 100): Promise<Exchange[]> {
    await this.queue.run(async () => undefined); // let pending appends land first
    return (await this.readAll()).slice(-limit).reverse();
  }

  private async readAll(): Promise<Exchange[]> {
    const text = await readFileOrNull(this.file);
    if (text === null) return [];
    const out: Exchange[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        const parsed = Exchange.safeParse(JSON.parse(line));
        if (parsed.success) out.push(parsed.data);
      } catch {
        // a torn or edited line: skipped (see the failure model above)
      }
    }
    return out;
  }
}
