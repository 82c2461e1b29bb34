/**
 * The `notify.*` conformance cases as people read them (issue 27 item 4; DESIGN.md "Conformance
 * of a bank's notification endpoints"): what each sends, when it passes and the fault it
 * catches. One source for the runner's titles (electron/core/conformance/notify-cases.ts), the
 * Conformance page's results and the table in docs/conformance.md (test/docs/notify-cases.test.ts
 * keeps the table true). Ids are what CI tracks: never renamed. Text between backticks is code.
 */

/** One case's words. */
export interface NotifyCaseText {
  id: string;
  /** One line, citing the spec sections it checks. */
  title: string;
  spec: string;
  /** What is sent. */
  sent: string;
  /** When the case passes. */
  passes: string;
  /** The receiver fault the case catches. */
  fault: string;
}

const VALID_FAULT =
  'a wrong path or prefix, a 201/202/204 where the spec says 200, a receiver that does its work before answering and takes over a second (the service then retries a notification the bank already took)';

/** The cases in run order. */
export const NOTIFY_CASE_TEXTS: readonly NotifyCaseText[] = [
  ...(['pay-in', 'pay-out', 'transfer'] as const).map((event) => ({
    id: `notify.${event}.valid`,
    title: `POST …/${event} with a valid {"transaction_id"} is answered 200 within 1 s (spec 4.3, 6)`,
    spec: '4.3, 6',
    sent: 'a fresh `{"transaction_id": "<uuid>"}`',
    passes: '200 within 1 s (the one answer judge: `reachable`, `budget`, `status`)',
    fault: VALID_FAULT,
  })),
  {
    id: 'notify.repeat',
    title: 'the same transaction_id delivered again is answered 200, and applied once (the service retries)',
    spec: '4.3',
    sent: 'the same transaction_id twice',
    passes: 'both 200; with the probe, applied once',
    fault:
      'a 409 Conflict (or 400) on a repeat: the service retries a non-2xx ten times, then escalates to manual processing; a second credit',
  },
  {
    id: 'notify.repeat.upper-case',
    title:
      'the same transaction_id again in upper case is answered 200, and applied once (a UUID is case-insensitive)',
    spec: '2.7, 4.3',
    sent: 'the id, then the same id in upper case',
    passes: 'both 200; applied once',
    fault:
      'a repeat check that compares UUIDs as typed: the upper-case copy looks new, then trips a unique index (500) or credits twice',
  },
  {
    id: 'notify.concurrent',
    title: 'five copies of one transaction_id at once are all answered 200, and applied once',
    spec: '4.3',
    sent: 'five copies at once',
    passes: 'all 200; applied once',
    fault:
      'a check-then-insert race: two copies both look new, one fails on the unique constraint (500) or both credit',
  },
  {
    id: 'notify.lost-ack',
    title:
      'after an answer lost in transit (connection closed as the status line arrives) the same transaction_id again is answered 200, and applied once',
    spec: '4.3',
    sent: 'the id, with the connection closed as the status line arrives; then the id again',
    passes: 'the second is 200; applied once',
    fault:
      'a receiver that commits, loses its answer in transit, and refuses or re-applies the delivery the service sends again',
  },
  {
    id: 'notify.not-json',
    title: 'a body that is not JSON is refused with a 4xx (spec 2.7)',
    spec: '2.7, 4.3',
    sent: '`transaction_id=<uuid>`',
    passes: 'a 4xx',
    fault:
      'a receiver that answers 200 to anything (the service would never retry a body the bank could not read, and nothing is recorded)',
  },
  {
    id: 'notify.no-transaction-id',
    title: 'a JSON body without transaction_id is refused with a 4xx (spec 2.7)',
    spec: '2.7, 4.3',
    sent: '`{"transactionId": "<uuid>"}`',
    passes: 'a 4xx',
    fault: 'the same, for a JSON body without the field',
  },
  {
    id: 'notify.bad-uuid',
    title: 'a transaction_id that is not a UUID is refused with a 4xx (spec 2.7)',
    spec: '2.7, 4.3',
    sent: '`{"transaction_id": "tx-…"}`',
    passes: 'a 4xx',
    fault: "a receiver that does not check spec 2.7's UUID format",
  },
];

/**
 * The words of a `notify.*` case by id; undefined for any other id.
 *
 * @example
 * notifyCaseText('notify.concurrent')?.fault; // 'a check-then-insert race: …'
 */
export function notifyCaseText(id: string): NotifyCaseText | undefined {
  return NOTIFY_CASE_TEXTS.find((c) => c.id === id);
}
