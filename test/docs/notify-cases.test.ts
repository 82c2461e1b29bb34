/**
 * One source for the `notify.*` cases' words (issue 27 item 4): docs/conformance.md's table says,
 * for every case, what the contract's NOTIFY_CASE_TEXTS say (what is sent, when it passes, the
 * fault it catches), which are also what the Conformance page shows. A case added, renamed or
 * reworded on one side only fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOTIFY_CASE_TEXTS } from '../../electron/contract/notify-cases';

const doc = readFileSync(path.join(__dirname, '../../docs/conformance.md'), 'utf8');

/** The table row naming `id` (a row may list several ids), split into its cells. */
function rowOf(id: string): string[] {
  const rows = doc.split('\n').filter((l) => l.startsWith('|') && l.includes(`\`${id}\``));
  expect(rows, `one row of docs/conformance.md names ${id}`).toHaveLength(1);
  return rows[0]!
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());
}

describe('docs/conformance.md: the notify.* table', () => {
  it.each(NOTIFY_CASE_TEXTS.map((c) => [c.id, c] as const))('%s says what the contract says', (id, c) => {
    const [, sent, passes, fault] = rowOf(id);
    expect({ sent, passes, fault }).toEqual({ sent: c.sent, passes: c.passes, fault: c.fault });
  });

  it('lists no case the runner does not play', () => {
    const ids = new Set(NOTIFY_CASE_TEXTS.map((c) => c.id));
    const named = [...doc.matchAll(/`(notify\.[a-z.-]+)`/g)].map((m) => m[1]!);
    expect(named.filter((id) => !ids.has(id) && id !== 'notify.')).toEqual([]);
  });
});
