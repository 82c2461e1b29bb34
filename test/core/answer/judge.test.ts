/**
 * The answer judge's own rules and words (electron/core/answer), beside the corpus that runs
 * answers through every consumer (answer-corpus.test.ts): the order of the checks, what a failure
 * says, what a token failure does to the verdict, lean mode giving the same verdict, hostile
 * bodies, and the user secret never quoted.
 */
import { describe, expect, it } from 'vitest';
import {
  answerOfExchange,
  codePoints,
  judgeAnswer,
  judgeNotificationAnswer,
  type Answer,
  type AnswerRoute,
  type JudgeRequest,
} from '../../../electron/core/answer';

const SECRET = 'very-secret-user-key-0042';
const USER = { external_id: 'ext-1', phone: '+49 30 1', key: SECRET };

function ok(body: unknown, over: Partial<Extract<Answer, { arrived: true }>> = {}): Answer {
  return {
    arrived: true,
    status: 200,
    durationMs: 12,
    contentType: 'application/json',
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    ...over,
  };
}

const judge = (answer: Answer, route: AnswerRoute = '/user_auth', over: Partial<JudgeRequest> = {}) =>
  judgeAnswer({ route, answer, token: { passed: true }, ...over });
const ids = (route: AnswerRoute) =>
  judge(ok(USER), route)
    .checks.map((c) => c.id)
    .join(' ');
const detailOf = (answer: Answer, id: string, route: AnswerRoute = '/user_auth') =>
  judge(answer, route).checks.find((c) => c.id === id)?.detail;

describe('the checks, in DESIGN.md order', () => {
  it('per route', () => {
    expect(ids('/user_auth')).toBe(
      'reachable budget status json external_id external_id_length key phone fields',
    );
    expect(ids('/key')).toBe('reachable budget status json key');
    expect(ids('/external_id')).toBe('reachable budget status json external_id external_id_length');
  });

  it('a passing answer: every check passed, no warning, the body handed back', () => {
    const v = judge(ok(USER));
    expect(v).toMatchObject({ ok: true, failed: null, detail: null, warnings: [], body: USER });
    expect(v.checks.every((c) => c.status === 'passed')).toBe(true);
  });

  it('the first failure decides, and the rest is still judged', () => {
    const v = judge(ok({ key: 'k' }, { durationMs: 1501 }));
    expect(v.failed).toBe('budget');
    expect(v.detail).toMatch(/^answered in 1,501 ms: over the 1 s budget/);
    expect(v.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual([
      'budget',
      'external_id',
      'phone',
    ]);
  });
});

describe('a failure says what failed, never the check’s title', () => {
  it.each([
    [{ ...USER, phone: undefined }, 'phone', 'phone missing'],
    [{ ...USER, phone: null }, 'phone', 'phone is null, not a string'],
    [{ ...USER, phone: '' }, 'phone', 'phone is an empty string'],
    [{ ...USER, external_id: '   ' }, 'external_id', 'external_id is only whitespace (3 characters)'],
    [{ ...USER, external_id: 7 }, 'external_id', 'external_id is a number (7), not a string'],
    [
      { ...USER, external_id: 'x'.repeat(501) },
      'external_id_length',
      'external_id is 501 code points long: over the 500 spec 2.5 and 8 allow',
    ],
    [{ ...USER, first_name: 7 }, 'fields', 'first_name is a number (7), not a string'],
    [
      { ...USER, first_name: 7, email: [] },
      'fields',
      'first_name is a number (7), not a string; email is an array, not a string',
    ],
  ])('%j fails %s: %s', (body, id, words) => {
    const v = judge(ok(body));
    expect(v.failed).toBe(id);
    expect(v.detail).toBe(words);
  });

  it('json: empty, not JSON, not an object, not UTF-8, cut short', () => {
    expect(detailOf(ok(''), 'json')).toBe('the body is empty');
    expect(detailOf(ok('hello'), 'json')).toMatch(/^the body is not JSON \(/);
    expect(detailOf(ok('[1]'), 'json')).toBe('the body is JSON but an array, not an object');
    expect(detailOf(ok('"s"'), 'json')).toBe('the body is JSON but a string (s), not an object');
    expect(detailOf(ok(Buffer.from([0x7b, 0xff, 0x7d])), 'json')).toBe('the body is not valid UTF-8');
    expect(detailOf(ok(USER, { truncated: true }), 'json')).toBe(
      'the body is too large to judge (cut short)',
    );
    // What follows a failed json is skipped with why, not failed.
    expect(judge(ok('[1]')).checks.find((c) => c.id === 'phone')).toMatchObject({
      status: 'skipped',
      detail: 'not judged: the body is not a JSON object',
    });
  });

  it('status: a valid token refused, another status; the body is then not judged', () => {
    expect(detailOf(ok(USER, { status: 401 }), 'status')).toMatch(
      /^answered 401 to a token that passes every check: the bank refused a valid service token/,
    );
    expect(detailOf(ok(USER, { status: 204 }), 'status', '/key')).toBe(
      'answered 204, not 200: spec 4.2 expects 200 with {key} (spec 2.6) when every check passes',
    );
    expect(judge(ok(USER, { status: 500 })).checks.find((c) => c.id === 'json')?.detail).toBe(
      'not judged: the answer is 500, not 200',
    );
  });

  it('reachable: no answer, and nothing after it judged', () => {
    const v = judge({ arrived: false, durationMs: 3, why: 'connection refused' });
    expect(v).toMatchObject({ ok: false, failed: 'reachable', detail: 'no answer: connection refused' });
    expect(v.checks.slice(1).every((c) => c.status === 'skipped')).toBe(true);
  });

  it('the user secret key is never quoted, whatever it is', () => {
    const texts = [
      { ...USER },
      { ...USER, key: 12345 },
      { ...USER, key: `   ${SECRET}`.replace(/\S/g, ' ') },
      { ...USER, key: { value: SECRET } },
    ].flatMap((body) => {
      const v = judge(ok(body));
      return [...v.checks.map((c) => c.detail), ...v.warnings, v.detail ?? ''];
    });
    expect(texts.join('\n')).not.toContain(SECRET);
    expect(texts.join('\n')).not.toContain('12345');
  });
});

describe('passing variants: warnings, not failures', () => {
  it('JSON sent as text/plain or without a Content-Type', () => {
    for (const type of ['text/plain', null, 'application/octet-stream']) {
      const v = judge(ok(USER, { contentType: type }));
      expect(v.ok).toBe(true);
      expect(v.warnings).toHaveLength(1);
      expect(v.warnings[0]).toMatch(
        type ? /^Content-Type is ".+", not application\/json/ : /^no Content-Type/,
      );
    }
  });

  it('null optional members count as absent, with a warning; extra members pass', () => {
    const v = judge(ok({ ...USER, first_name: null, email: null, extra: { deep: [1, 2] } }));
    expect(v.ok).toBe(true);
    expect(v.warnings).toEqual([
      'first_name, email are null: counted as absent (spec 2.5: an optional string; leave it out rather than send null)',
    ]);
  });

  it('external_id counted in code points: 500 astral symbols pass, lone surrogates count one each', () => {
    expect(judge(ok({ ...USER, external_id: '😀'.repeat(500) })).ok).toBe(true);
    expect(judge(ok({ ...USER, external_id: '😀'.repeat(501) })).failed).toBe('external_id_length');
    expect(codePoints('😀a\ud800b\udc00')).toBe([...'😀a\ud800b\udc00'].length);
    expect(codePoints('')).toBe(0);
  });

  it('a deeply nested extra member is judged without trouble', () => {
    const deep = `{"external_id":"e","phone":"p","key":"k","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(judge(ok(deep)).ok).toBe(true);
  });
});

describe('a token check that failed decides', () => {
  const token = { passed: false as const, failed: 'sub', detail: 'sub is "x", but "y" was expected' };

  it('401 in time: status passed, the body not judged, the token’s words', () => {
    const v = judge(ok({ error: 'unauthorized' }, { status: 401 }), '/user_auth', { token });
    expect(v).toMatchObject({ ok: false, failed: 'sub', detail: token.detail, warnings: [] });
    expect(v.checks.find((c) => c.id === 'status')).toMatchObject({
      status: 'passed',
      detail: 'answered 401 to a token that fails sub',
    });
    expect(v.checks.find((c) => c.id === 'json')?.status).toBe('skipped');
  });

  it('late, or a 200 to the bad token: failures beside it, as warnings', () => {
    const v = judge(ok(USER, { durationMs: 1200 }), '/user_auth', { token });
    expect(v.failed).toBe('sub');
    expect(v.warnings).toEqual([
      expect.stringMatching(/^answered in 1,200 ms: over the 1 s budget/),
      'answered 200 to a token that fails sub: the bank accepts a token it must refuse (spec 5.6, 7: 401)',
    ]);
  });
});

describe('lean mode (the console’s own bank) gives the same verdict', () => {
  const answers: Answer[] = [
    ok(USER),
    ok({ ...USER, phone: undefined }),
    ok({ ...USER, first_name: null }, { contentType: 'text/plain' }),
    ok(USER, { durationMs: 1001 }),
    ok('[]'),
    ok(USER, { status: 503 }),
    { arrived: false, durationMs: 1, why: 'x' },
  ];
  it.each(answers.map((a, i) => [i, a] as const))('answer %i', (_i, answer) => {
    const full = judge(answer);
    const lean = judge(answer, '/user_auth', { lean: true });
    expect({ ok: lean.ok, failed: lean.failed, detail: lean.detail, warnings: lean.warnings }).toEqual({
      ok: full.ok,
      failed: full.failed,
      detail: full.detail,
      warnings: full.warnings,
    });
    expect(lean.checks.map((c) => [c.id, c.status])).toEqual(full.checks.map((c) => [c.id, c.status]));
  });

  it('judges the value the bank built, not its text again', () => {
    const v = judge(ok('not parsed', { value: USER }), '/user_auth', { lean: true });
    expect(v.ok).toBe(true);
    expect(v.checks.filter((c) => c.status === 'passed').every((c) => c.detail === '')).toBe(true);
  });
});

describe('answers from an exchange, and notifications', () => {
  it('an exchange that connected and got no answer did not arrive', () => {
    const a = answerOfExchange({
      ok: false,
      phase: 'response',
      connected: true,
      connectMs: 2,
      message: 'socket hang up',
      durationMs: 5,
    });
    expect(a).toEqual({
      arrived: false,
      durationMs: 5,
      why: 'socket hang up (connected in 2 ms, then no complete answer)',
    });
  });

  it('a notification answer: reachable, budget, status 200', () => {
    const passed = judgeNotificationAnswer(ok('', { status: 200 }));
    expect(passed.map((c) => `${c.id}:${c.status}`)).toEqual([
      'reachable:passed',
      'budget:passed',
      'status:passed',
    ]);
    const refused = judgeNotificationAnswer(ok('', { status: 500, durationMs: 2000 }));
    expect(refused.map((c) => c.status)).toEqual(['passed', 'failed', 'failed']);
    expect(refused[2]?.detail).toBe('answered 500, not 200 (spec 4.3)');
    expect(judgeNotificationAnswer({ arrived: false, durationMs: 1, why: 'refused' })[0]).toMatchObject({
      id: 'reachable',
      status: 'failed',
      detail: 'no answer: refused',
    });
  });
});
