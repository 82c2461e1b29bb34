/**
 * What one hub announces to the others on the events channel (pg-commit.ts notifyPayloads):
 * every payload under PostgreSQL's 8000-byte NOTIFY limit, the summaries whole and in order, a
 * summary too large for a payload announced by its id alone, and each payload beginning with its
 * hub's prefix (pg-live.ts skips its own by it, unparsed).
 */
import { describe, expect, it } from 'vitest';
import type { EventSummary } from '../../../electron/contract/schemas/events';
import { type LiveBatch, notifyPayloads, payloadPrefix } from '../../../electron/core/store/pg-commit';
import { PG_NOTIFY_MAX_BYTES } from '../../../electron/core/store/pg-schema';
import { summarize } from '../../../electron/core/store/records';
import { notification } from './helpers';

function summaries(n: number, body = '{}'): EventSummary[] {
  return Array.from({ length: n }, (_, i) => {
    const id = `e${String(i + 1).padStart(12, '0')}`;
    const event = notification({ transaction_id: `tx-${i}`, warning: body });
    return summarize({ id, ...event });
  });
}

describe('the events channel payloads', () => {
  it('split a large batch under the NOTIFY limit, keeping every summary whole and in order', () => {
    const batch = summaries(300);
    const payloads = notifyPayloads('hub-"1"', batch);
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) {
      expect(Buffer.byteLength(p)).toBeLessThan(8000);
      expect(Buffer.byteLength(p)).toBeLessThanOrEqual(PG_NOTIFY_MAX_BYTES);
      expect(p.startsWith(payloadPrefix('hub-"1"'))).toBe(true);
    }
    const back = payloads.flatMap((p) => (JSON.parse(p) as LiveBatch).events);
    expect(back).toEqual(batch);
    expect((JSON.parse(payloads[0]!) as LiveBatch).hub).toBe('hub-"1"');
    // Packed, not merely split: each payload but the last had no room for the next summary.
    for (const [i, p] of payloads.slice(0, -1).entries()) {
      const next = (JSON.parse(payloads[i + 1]!) as LiveBatch).events[0];
      expect(Buffer.byteLength(p) + 1 + Buffer.byteLength(JSON.stringify(next))).toBeGreaterThan(
        PG_NOTIFY_MAX_BYTES,
      );
    }
  });

  it('announce a summary too large for a payload by its id, between whole ones', () => {
    const [small1] = summaries(1);
    const [big] = summaries(1, 'w'.repeat(9000)).map((s) => ({ ...s, id: 'e000000000002' }));
    const payloads = notifyPayloads('h', [small1!, big!, small1!]);
    const back = payloads.flatMap((p) => (JSON.parse(p) as LiveBatch).events);
    expect(back).toEqual([small1, { id: 'e000000000002' }, small1]);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThan(8000);
  });

  it('send nothing for an empty batch, and a prefix no other hub shares', () => {
    expect(notifyPayloads('h', [])).toEqual([]);
    const [p] = notifyPayloads('hub-1', summaries(1));
    expect(p!.startsWith(payloadPrefix('hub-10'))).toBe(false);
    expect(p!.startsWith(payloadPrefix('hub-1'))).toBe(true);
  });
});
