/**
 * A callback's event, small when written and whole when read (issue 11, "Callbacks at the speed
 * of the crypto"). On the request path the bank endpoints record only what cannot be rebuilt:
 * the raw X-Session-ID (in the request's headers, as received), the status, the failed check's
 * id and detail, obj/sub, the warning, timing, remote, route, the JWKS state the check saw and
 * the response as recorded. The decoded token and the list of checks are rebuilt here when an
 * event is read (events.get and export, recheck, replay), in the engine's order
 * (ENGINE_CHECK_IDS): the checks before the failed one passed (their details re-derived from the
 * token and the time of the callback where the check is pure, else "passed when the callback
 * was judged"), the failed one with the detail recorded, the rest "not checked: X failed first".
 * Then the answer checks (issue 24: the one answer judge, core/answer): judged again from the
 * recorded answer (status, body with the user secret masked, Content-Type, duration), the check
 * that decided keeping the words recorded when it was judged; events recorded before the judge
 * (no `answer` mark) get only the budget, as they were judged then.
 *
 * Threat model: a stored event is the console's own record, but the token in it came from the
 * network; it is only decoded here (decodeCompact never throws), never verified or trusted.
 */
import type { EventDetail } from '../../contract/schemas/events';
import type { EventReader, EventStore } from '../store';
import { ANSWER_CHECK_IDS, type Check, type TokenCheckId } from '../../contract/schemas/inspector';
import { ANSWER_ROUTES, answerCheck, judgeAnswer, type AnswerCheckId, type AnswerRoute } from '../answer';
import { trimHttpWhitespace } from '../../contract/schemas/token-whitespace';
import {
  ENGINE_CHECK_IDS,
  PURE_CHECKS,
  decodeCompact,
  makeCheck,
  notChecked,
  notCheckedWithout,
} from '../jwt';
import { BANK_CHECK_IDS, SESSION_HEADER } from './verify';
import { BUDGET_CHECK_ID, budgetDetail } from '../http';

/** What a callback event stores of its verdict in `data`, beside the summary's failed_check. */
export interface RecordedVerdict {
  /** The failed check's detail (null when every check passed). */
  detail: string | null;
  /** The answer was judged too (issue 24); absent in events recorded before the answer judge. */
  answer?: 1;
}

/** The bank's checks as a verdict lists them (present has no entry: see verify.ts). */
const LISTED: readonly TokenCheckId[] = ENGINE_CHECK_IDS.filter(
  (id) => id !== 'present' && (BANK_CHECK_IDS as readonly string[]).includes(id),
);

/** The `data` a callback event carries for its verdict to be rebuilt on read (token and answer judged). */
export function recordVerdict(failedDetail: string | null): { verdict: RecordedVerdict } {
  return { verdict: { detail: failedDetail, answer: 1 } };
}

function recordedOf(event: EventDetail): RecordedVerdict | null {
  const data = event.data as { verdict?: { detail?: unknown; answer?: unknown } } | undefined;
  const v = data?.verdict;
  if (!v || typeof v !== 'object') return null;
  return {
    detail: typeof v.detail === 'string' ? v.detail : null,
    ...(v.answer === 1 ? { answer: 1 as const } : {}),
  };
}

const isAnswerId = (id: string | null): boolean =>
  id !== null && (ANSWER_CHECK_IDS as readonly string[]).includes(id);

/**
 * Events recorded before the answer judge: the budget as a check after the token's (issue 13
 * item 2), failed when it is the callback's failed_check, passed when every check passed in time,
 * skipped when a token check failed first.
 */
function legacyBudgetCheck(
  failed: string | null,
  durationMs: number | null,
  detail: string | null,
): Check | null {
  if (failed === BUDGET_CHECK_ID)
    return answerCheck(BUDGET_CHECK_ID, 'failed', detail ?? 'answered over the 1 s budget');
  if (failed !== null) return answerCheck(BUDGET_CHECK_ID, 'skipped', notChecked(failed));
  return durationMs === null ? null : answerCheck(BUDGET_CHECK_ID, 'passed', budgetDetail(durationMs));
}

/**
 * The answer checks of a judged callback, from the record: forward mode's verdicts as they were
 * kept; else the recorded answer judged again, the recorded failure in its recorded words, and a
 * check before it that judges differently now (a body cut in the record) as it was then: passed.
 */
function answerChecks(event: EventDetail, failed: string | null, detail: string | null): Check[] {
  if (event.forward && event.forward.verdicts.length > 0) return event.forward.verdicts;
  const route = event.path as AnswerRoute;
  const status = event.response?.status ?? event.status;
  if (!ANSWER_ROUTES.includes(route) || status === null) return [];
  const headers = event.response?.headers ?? {};
  const type = Object.keys(headers).find((h) => h.toLowerCase() === 'content-type');
  const judged = judgeAnswer({
    route,
    answer: {
      arrived: true,
      status,
      durationMs: event.duration_ms ?? 0,
      contentType: type ? headers[type] : null,
      body: event.response?.body ?? null,
    },
    token: failed !== null && !isAnswerId(failed) ? { passed: false, failed } : { passed: true },
  });
  const decided = isAnswerId(failed) ? failed : null;
  let before = decided !== null;
  return judged.checks.map((c) => {
    const id = c.id as AnswerCheckId;
    if (id === decided) {
      before = false;
      return answerCheck(id, 'failed', detail ?? c.detail);
    }
    // What could not have failed then: everything when the answer passed, what came before the failure.
    const passedThen = decided === null ? failed === null : before;
    return passedThen && c.status === 'failed'
      ? answerCheck(id, 'passed', 'passed when the callback was judged')
      : c;
  });
}

/**
 * The checks of a compact record (store/records.ts: a token that was not proven keeps only its
 * failed check and reason, DESIGN.md "Storage"): the checks before the failed one passed (the
 * engine runs them in order), the failed one with the reason kept, the rest not checked. Null
 * when the event is not a compact record of a failed token check.
 */
function compactChecks(event: EventDetail): Check[] | null {
  const data = event.data as { compact?: unknown; reason?: unknown } | undefined;
  const failed = event.failed_check;
  if (data?.compact !== true || failed === null || !(LISTED as readonly string[]).includes(failed)) {
    return failed === 'present' && data?.compact === true
      ? LISTED.map((id) => makeCheck(id, 'skipped', notCheckedWithout(SESSION_HEADER)))
      : null;
  }
  const reason = typeof data.reason === 'string' ? data.reason.replace(`${failed}: `, '') : '';
  let after = false;
  return LISTED.map((id) => {
    if (after) return makeCheck(id, 'skipped', notChecked(failed));
    if (id !== failed) return makeCheck(id, 'passed', 'passed when the callback was judged');
    after = true;
    return makeCheck(id, 'failed', reason || 'failed when the callback was judged');
  });
}

/**
 * The event as readers see it: a small callback record (written by the bank endpoints since
 * issue 11) gets its `token` and `checks` back; any other event is returned as it is.
 *
 * @example
 * const detail = rebuildCallbackDetail(await store.get(id));
 */
export function rebuildCallbackDetail(event: EventDetail): EventDetail {
  if (event.kind !== 'callback' || event.checks !== null) return event;
  const compact = compactChecks(event);
  if (compact) return { ...event, checks: compact };
  const recorded = recordedOf(event);
  if (!recorded) return event;
  const { data: _data, ...rest } = event;
  const raw = event.request?.headers['x-session-id'];
  const failed = event.failed_check;
  if (failed === 'present' || raw === undefined) {
    // No header: nothing had an input (the engine skips every check the same way).
    const skip = notCheckedWithout(SESSION_HEADER);
    const answer = recorded.answer ? answerChecks(event, failed ?? 'present', recorded.detail) : [];
    return {
      ...rest,
      token: null,
      checks: [...LISTED.map((id) => makeCheck(id, 'skipped', skip)), ...answer],
    };
  }
  // Trimmed as the engine trims a header value (RFC 9110 §5.5: SP and HTAB only).
  const decoded = decodeCompact(trimHttpWhitespace(raw));
  const nowSeconds = Math.floor(Date.parse(event.at) / 1000);
  const checks: Check[] = [];
  let after = false;
  for (const id of LISTED) {
    if (after) checks.push(makeCheck(id, 'skipped', notChecked(failed as string)));
    else if (id === failed) {
      checks.push(makeCheck(id, 'failed', recorded.detail ?? 'failed when the callback was judged'));
      after = true;
    } else {
      // Before the failure (or every check, when none failed): it did not fail then.
      const again = PURE_CHECKS[id]?.(decoded, nowSeconds) ?? null;
      checks.push(
        again && again.status !== 'failed'
          ? again
          : makeCheck(id, 'passed', 'passed when the callback was judged'),
      );
    }
  }
  if (recorded.answer) checks.push(...answerChecks(event, failed, recorded.detail));
  else {
    const budget = legacyBudgetCheck(failed, event.duration_ms, recorded.detail);
    if (budget) checks.push(budget);
  }
  return {
    ...rest,
    token: { header: decoded.header, payload: decoded.payload },
    checks,
  };
}

/**
 * `store` with `get` and `scan` answering whole events (rebuildCallbackDetail), for readers
 * that take a store, e.g. the events export.
 */
export function rebuildingReader(store: EventStore): EventReader {
  return {
    query: (query) => store.query(query),
    get: async (id) => rebuildCallbackDetail(await store.get(id)),
    async *scan(filter) {
      for await (const event of store.scan(filter)) yield rebuildCallbackDetail(event);
    },
  };
}
