/**
 * Notifications judged by their body alone (issue 24 item 3; DESIGN.md "Bank endpoints":
 * "body must be JSON {"transaction_id": "<uuid>"} whatever the Content-Type (absent, text/plain
 * and application/json alike: spec 4.3 names none) … an invalid body gets 400 with a JSON reason
 * and is still recorded as rejected"). Raw node:http requests: fetch would add a Content-Type of
 * its own (text/plain for a string body), and the case without one is the point.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../../support/raw-http';
import { cleanup, lastEvent, startBank, type BankFixture } from './helpers';

let fx: BankFixture;
const prefix = '/api/svc/notify';

beforeAll(async () => {
  fx = await startBank();
});
afterAll(cleanup);

/** POSTs `body` with exactly the headers given (no Content-Type unless one is given). */
async function rawPost(path: string, body: string, contentType: string | null) {
  const r = await rawRequest(
    fx.url,
    'POST',
    path,
    contentType === null ? {} : { 'Content-Type': contentType },
    body,
  );
  return { status: r.status, text: r.text, type: r.headers['content-type'] };
}

const TYPES: Array<[string, string | null]> = [
  ['no Content-Type', null],
  ['text/plain', 'text/plain'],
  ['application/json', 'application/json'],
  ['application/json with a charset', 'application/json; charset=utf-8'],
  ['something else', 'application/x-www-form-urlencoded'],
];

describe('notifications are judged by their body, whatever the Content-Type', () => {
  it.each(TYPES)('%s: a valid body is accepted (200, no body) and stored', async (_n, type) => {
    const id = randomUUID();
    const r = await rawPost(`${prefix}/pay-in`, JSON.stringify({ transaction_id: id }), type);
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    const e = await lastEvent(fx.store, 'notification');
    expect(e).toMatchObject({ transaction_id: id, outcome: 'accepted', status: 200 });
    expect(e.request?.headers['content-type']).toBe(type ?? undefined);
  });

  const BAD: Array<[string, string, RegExp]> = [
    ['not JSON', '{nope', /not valid JSON/],
    ['not an object', '"a string"', /not an object/],
    ['no transaction_id', '{"id":1}', /no transaction_id/],
    ['a non-UUID transaction_id', '{"transaction_id":"abc"}', /not a UUID/],
    ['empty', '', /empty/],
  ];
  const cases = TYPES.flatMap(([tn, type]) =>
    BAD.map(([bn, body, why]) => [`${tn}, ${bn}`, type, body, why] as const),
  );

  it.each(cases)('%s: 400 with a JSON reason, recorded as rejected', async (_n, type, body, why) => {
    const r = await rawPost(`${prefix}/pay-out`, body, type);
    expect(r.status).toBe(400);
    expect(r.type).toMatch(/^application\/json/);
    const reason = JSON.parse(r.text) as { error: string; detail: string };
    expect(reason.error).toBe('bad_request');
    expect(reason.detail).toMatch(why);
    // The reason never blames the Content-Type: the body alone is judged.
    expect(reason.detail).not.toMatch(/Content-Type/i);
    expect(await lastEvent(fx.store, 'notification')).toMatchObject({
      outcome: 'rejected',
      status: 400,
      path: `${prefix}/pay-out`,
    });
  });

  it('a repeat sent with another Content-Type is still a repeat (compared case-insensitively)', async () => {
    const id = randomUUID();
    expect((await rawPost(`${prefix}/transfer`, JSON.stringify({ transaction_id: id }), null)).status).toBe(
      200,
    );
    const again = await rawPost(
      `${prefix}/transfer`,
      JSON.stringify({ transaction_id: id.toUpperCase() }),
      'text/plain',
    );
    expect(again.status).toBe(200);
    expect(await lastEvent(fx.store, 'notification')).toMatchObject({ outcome: 'repeat' });
  });
});
