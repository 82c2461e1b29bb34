/**
 * `serve --users FILE` with a customer whose obj or sub is only white space (issue 24 item 11):
 * the built CLI exits 2 before any listener answers, with one stderr line naming --users, the
 * file, the entry and the field. No token could ever match such a customer.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliTestFile, failedRun } from './support/spawn-cli';

const cli = cliTestFile('dets-serve-users-blank-');
const NO_SANDBOX = ['--json', '--ui-port', '0', '--bank-port', '0', '--no-sandbox'];
const good = { obj: 'DE89370400440532013000', external_id: 'cust-1', phone: '+4915112345678', key: 'k1' };

describe('serve --users refuses a blank obj or sub', () => {
  it.each([
    ['obj', { obj: '   ', external_id: 'cust-2', phone: '+4915100000002', key: 'k2' }],
    ['sub', { obj: 'DE02', sub: '\t ', external_id: 'cust-2', phone: '+4915100000002', key: 'k2' }],
  ] as const)(
    '%s only white space: exit 2, one line naming the entry and the field',
    async (field, blank) => {
      const file = path.join(cli.tmp, `users-blank-${field}.json`);
      await writeFile(file, JSON.stringify([good, blank]));
      const s = cli.spawn([
        'serve',
        ...NO_SANDBOX,
        '--users',
        file,
        '--data-dir',
        cli.dataDir(`blank-${field}`),
      ]);
      const lines = await failedRun(s, 2);
      expect(lines).toEqual([
        expect.stringMatching(
          new RegExp(
            `^dets-console serve: --users: "${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}": customers\\[1\\]\\.${field} is only white space \\(.*\\): no token can match it`,
          ),
        ),
      ]);
    },
  );
});
