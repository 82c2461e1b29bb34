/**
 * readJsonFileOrNull (electron/core/common/files.ts) is the one reader of the console's own JSON
 * files (customers, the vault file, the sandbox's legacy state): absent is null, a parse is
 * `{ value }` (so a file holding `null` is not taken for a missing one), and a file that cannot
 * be read or is not JSON becomes the caller's error, with the file left as it was.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJsonFileOrNull, type JsonFileFaults } from '../../../electron/core/common';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dets-json-file-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const faults: JsonFileFaults = {
  unreadable: (err) => new Error(`unreadable ${err.code ?? '?'}`),
  notJson: () => new Error('not json'),
};

describe('readJsonFileOrNull', () => {
  it('answers null for a file that does not exist', async () => {
    expect(await readJsonFileOrNull(path.join(dir, 'missing.json'), faults)).toBeNull();
  });

  it('answers the parsed value, a JSON null included', async () => {
    const file = path.join(dir, 'ok.json');
    fs.writeFileSync(file, '{"a":[1,2]}');
    expect(await readJsonFileOrNull(file, faults)).toEqual({ value: { a: [1, 2] } });
    const nul = path.join(dir, 'null.json');
    fs.writeFileSync(nul, 'null');
    expect(await readJsonFileOrNull(nul, faults)).toEqual({ value: null });
  });

  it("throws the caller's notJson error for a damaged file and leaves it untouched", async () => {
    const file = path.join(dir, 'cut.json');
    fs.writeFileSync(file, '{"customers": [');
    await expect(readJsonFileOrNull(file, faults)).rejects.toThrow('not json');
    expect(fs.readFileSync(file, 'utf8')).toBe('{"customers": [');
  });

  it("throws the caller's unreadable error, with the errno code, for what cannot be read", async () => {
    const sub = path.join(dir, 'a-directory.json');
    fs.mkdirSync(sub);
    await expect(readJsonFileOrNull(sub, faults)).rejects.toThrow('unreadable EISDIR');
  });
});
