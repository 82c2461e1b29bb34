/**
 * Rotation end to end over real HTTP: against the core's sandbox, and against a fake service in
 * front of it that refuses a step, then lets the retry through.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { methods } from '../../../electron/contract';
import { DEFAULT_KEY_DAYS } from '../../../electron/contract/schemas/keys';
import type { Rotation } from '../../../electron/contract/schemas/service';
import {
  activateReal,
  cleanup,
  eventsOf,
  fakeService,
  forward,
  refuse,
  startCore,
  statusOf,
} from './helpers';

afterEach(cleanup);

const stepStatuses = (r: Rotation) => Object.fromEntries(r.steps.map((s) => [s.id, s.status]));

describe('rotate', () => {
  it('generates, registers with PUT signed by the current key, proves, activates and retires, against the sandbox', async () => {
    const running = await startCore();
    const oldKid = running.key.kid;
    const rotation = methods['service.rotate'].output.parse(
      await running.service.rotate({ expires: '2099-12-31' }),
    );

    expect(rotation).toMatchObject({ environment_id: 'sandbox', from_kid: oldKid, state: 'done' });
    expect(stepStatuses(rotation)).toEqual({
      generate: 'passed',
      register: 'passed',
      prove: 'passed',
      activate: 'passed',
      retire: 'passed',
    });
    const newKid = rotation.to_kid as string;
    expect(newKid).not.toBe(oldKid);

    // register: a PUT signed by the old key; prove: authenticate signed by the new one.
    const history = await running.service.exchanges();
    const put = history.find((e) => e.id === rotation.steps[1]?.exchange_id);
    expect(put).toMatchObject({ operation: 'update-jwk', signing_kid: oldKid, jwk_kid: newKid, ok: true });
    expect(put?.request.method).toBe('PUT');
    const proof = history.find((e) => e.id === rotation.steps[2]?.exchange_id);
    expect(proof).toMatchObject({ operation: 'authenticate', signing_kid: newKid, ok: true });

    // After: the environment signs with the new key, the old one is retired but kept.
    expect((await running.environments.get()).active_kid).toBe(newKid);
    expect(await running.keys.get(newKid)).toMatchObject({ status: 'active', expires: '2099-12-31' });
    expect(await running.keys.get(oldKid)).toMatchObject({ status: 'retired' });
    const auth = await running.service.authenticate({});
    expect(auth.exchange).toMatchObject({ ok: true, signing_kid: newKid });
    expect(auth.session_report?.ok).toBe(true);
    // Both keys stay registered with the service.
    const listed = JSON.parse((await running.service.listJwks()).response!.body) as Array<{
      data: { kid: string };
    }>;
    expect(listed.map((r) => r.data.kid).sort()).toEqual([oldKid, newKid].sort());

    expect(eventsOf(running, 'service.rotated')).toEqual([rotation]);
  });

  it('gives the new key the default validity when no date is given (365 days, as the walkthrough’s keys; issue 26)', async () => {
    const running = await startCore();
    const rotation = await running.service.rotate({});
    expect(rotation.state).toBe('done');
    const expected = new Date(Date.now() + DEFAULT_KEY_DAYS * 86_400_000).toISOString().slice(0, 10);
    const key = await running.keys.get(rotation.to_kid as string);
    // The day may turn between the rotation and this line: either day is the default.
    const tomorrow = new Date(Date.parse(`${expected}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect([expected, tomorrow]).toContain(key.expires);
    expect(key.expires).not.toBeNull();
  });

  it('stops where the sandbox refuses (the signing key is not registered), changes nothing, and resumes with next_kid', async () => {
    const running = await startCore();
    const onboarded = running.key.kid;
    // The environment's active key was never registered with the sandbox: the PUT it signs is refused.
    const unregistered = await running.keys.generate({ status: 'active' });
    await running.environments.save({ id: 'sandbox', active_kid: unregistered.kid });
    const before = await running.environments.get();

    const failed = await running.service.rotate({});
    expect(failed).toMatchObject({ state: 'failed', from_kid: unregistered.kid });
    expect(stepStatuses(failed)).toEqual({
      generate: 'passed',
      register: 'failed',
      prove: 'pending',
      activate: 'pending',
      retire: 'pending',
    });
    const register = failed.steps[1]!;
    expect(register.detail).toMatch(/answered 401/);
    expect(register.detail).toMatch(
      new RegExp(`kid "${unregistered.kid}", the environment's active key, is not registered`),
    );
    expect(register.detail).toMatch(new RegExp(`retry with rotate\\(\\{next_kid: "${failed.to_kid}"\\}\\)`));
    const exchange = (await running.service.exchanges()).find((e) => e.id === register.exchange_id);
    expect(statusOf(exchange!)).toBe(401);

    // Nothing moved: the old key still active, the environment unchanged, the next key kept as next.
    expect(await running.environments.get()).toEqual(before);
    expect((await running.keys.get(unregistered.kid)).status).toBe('active');
    const nextKid = failed.to_kid as string;
    expect((await running.keys.get(nextKid)).status).toBe('next');

    // Fix the cause: register the active key, signed by the onboarded one. Then resume.
    const fixed = await running.service.updateJwk({ kid: unregistered.kid, signing_kid: onboarded });
    expect(fixed.ok).toBe(true);
    const keysBefore = (await running.keys.list()).length;
    const resumed = await running.service.rotate({ next_kid: nextKid });
    expect(resumed).toMatchObject({ state: 'done', from_kid: unregistered.kid, to_kid: nextKid });
    expect(resumed.steps[0]?.detail).toMatch(/reusing kid .* nothing generated/);
    expect((await running.keys.list()).length).toBe(keysBefore);
    expect((await running.environments.get()).active_kid).toBe(nextKid);
    expect((await running.keys.get(unregistered.kid)).status).toBe('retired');
    expect(eventsOf<Rotation>(running, 'service.rotated').map((r) => r.state)).toEqual(['failed', 'done']);
  });

  it('in a real environment: a service that refuses the PUT, then one that refuses the proof, then lets it through', async () => {
    const running = await startCore();
    let refusePut = true;
    let refuseProofs = false;
    const service = await fakeService(async (req, res) => {
      if (req.method === 'PUT' && refusePut) return refuse(res);
      if (req.url.endsWith('/jwk/authenticate') && refuseProofs) return refuse(res);
      await forward(running.listener.url, req, res);
    });
    const envId = await activateReal(running, service.url, 'Staging');
    const oldKid = running.key.kid;
    const before = await running.environments.get();

    const first = await running.service.rotate({});
    expect(first).toMatchObject({ environment_id: envId, state: 'failed' });
    expect(first.steps[1]).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/"Access credentials are invalid", the guide's wording/),
    });
    expect(await running.environments.get()).toEqual(before);
    expect((await running.keys.get(oldKid)).status).toBe('active');
    const nextKid = first.to_kid as string;

    // The PUT goes through now, but the service still refuses JWTs signed by the new key.
    refusePut = false;
    refuseProofs = true;
    const second = await running.service.rotate({ next_kid: nextKid });
    expect(stepStatuses(second)).toMatchObject({ register: 'passed', prove: 'failed', activate: 'pending' });
    expect(await running.environments.get()).toEqual(before);
    expect((await running.keys.get(oldKid)).status).toBe('active');
    expect((await running.keys.get(nextKid)).status).toBe('next');

    // The retry registers again under the SAME jwk_guid (a kid names one key), proves and activates.
    refuseProofs = false;
    const third = await running.service.rotate({ next_kid: nextKid });
    expect(third.state).toBe('done');
    const puts = service.received.filter((r) => r.method === 'PUT').map((r) => r.url);
    expect(puts).toHaveLength(3);
    expect(puts[2]).toBe(puts[1]);
    expect((await running.environments.get()).active_kid).toBe(nextKid);
    expect((await running.keys.get(oldKid)).status).toBe('retired');
    expect((await running.service.authenticate({})).exchange.ok).toBe(true);
  });

  it('refuses to start without what it needs, before any step', async () => {
    const running = await startCore();
    await expect(running.service.rotate({ next_kid: running.key.kid })).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/is the active key itself/),
    });
    await running.environments.save({ id: 'sandbox', active_kid: null });
    await expect(running.service.rotate({})).rejects.toMatchObject({
      code: 'BAD_ARGUMENT',
      message: expect.stringMatching(/has no active_kid, so there is no current key to rotate from/),
    });
    await running.environments.save({ id: 'sandbox', active_kid: running.key.kid });
    const missing = await running.service.rotate({ next_kid: 'no-such-key' });
    expect(missing).toMatchObject({ state: 'failed', to_kid: null });
    expect(missing.steps[0]?.detail).toMatch(/next_kid "no-such-key"/);
    expect(await running.service.exchanges()).toEqual([]);
  });
});
