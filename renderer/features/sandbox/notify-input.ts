/**
 * The notify form's draft as the `sandbox.notify` input (issue 27 item 2: the ladder and the
 * faults chosen per notification), with its problems found by the contract's own schemas, so the
 * form refuses exactly what the API refuses, in the same words (one rule, one place).
 */
import { schemas, type MethodInput } from '../../../electron/contract';
import { problemOf } from '../../shared/field-errors';
import type { NotifyDraft } from './sandbox-store';

export type NotifyInput = MethodInput<'sandbox.notify'>;
/** The draft's fields that can carry a problem. */
export type NotifyField = 'transaction_id' | 'duplicates' | 'timeout_ms';

/**
 * A typed number: '' is "not given", digits are the number, anything else stays the text so the
 * schema names it ("must be a whole number …") rather than the form guessing.
 */
export function typedNumber(text: string): number | string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
}

/**
 * The input the draft sends and the problems it has, by field (empty when it may be sent).
 *
 * @example
 * notifyInputOf(guid, { ...DEFAULT_NOTIFY, duplicates: '2', concurrent: true }).input.faults;
 * // { duplicates: 2, concurrent: true }
 */
export function notifyInputOf(
  guid: string,
  draft: NotifyDraft,
): { input: NotifyInput; problems: Partial<Record<NotifyField, string>> } {
  const input: NotifyInput = { counterparty_guid: guid, event: draft.event };
  const problems: Partial<Record<NotifyField, string>> = {};
  if (draft.event === 'transfer') input.to = draft.to;
  if (draft.malformed !== '') input.malformed = draft.malformed;
  else if (draft.transaction_id.trim() !== '') {
    input.transaction_id = draft.transaction_id.trim();
    const p = problemOf(schemas.NotifyInput.shape.transaction_id.unwrap(), draft.transaction_id);
    if (p) problems.transaction_id = p;
  }
  if (draft.ladder === 'once') input.ladder = 'once';

  const faults: Record<string, unknown> = {};
  const duplicates = typedNumber(draft.duplicates);
  if (duplicates !== undefined && duplicates !== 0) faults.duplicates = duplicates;
  // Concurrent says how the copies go: without copies there is nothing to send at once.
  if (draft.concurrent && faults.duplicates !== undefined) faults.concurrent = true;
  if (draft.lost_ack) faults.lost_ack = true;
  const timeout = typedNumber(draft.timeout_ms);
  if (timeout !== undefined) faults.timeout_ms = timeout;
  const checked = schemas.DeliveryFaults.safeParse(faults);
  if (!checked.success) {
    for (const issue of checked.error.issues) {
      const field = issue.path[0];
      if ((field === 'duplicates' || field === 'timeout_ms') && !(field in problems)) {
        problems[field] = issue.message;
      }
    }
  }
  if (Object.keys(faults).length > 0) input.faults = faults as NotifyInput['faults'];

  if (draft.then !== '') {
    input.sequence = [{ event: draft.then }];
  }
  return { input, problems };
}
