// @vitest-environment jsdom
/**
 * The Sandbox page's deliveries (issue 27 items 1–3): each notification's timeline of attempts,
 * followed live through `sandbox.attempted`; the ladder and faults chosen in the notify form,
 * refused as the API refuses them; the ladder as settings; the header's escalation indicator.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { ConsoleError } from '../../../../electron/contract';
import { SandboxPage } from '../../../../renderer/features/sandbox/sandbox-page';
import { resetSandboxStore, useSandboxStore } from '../../../../renderer/features/sandbox/sandbox-store';
import { EscalationPill, useEscalationsSeen } from '../../../../renderer/features/sandbox/escalation-pill';
import { useEscalationLiveUpdates } from '../../../../renderer/data/deliveries';
import { progressOf, progressWords, timelineOf } from '../../../../renderer/shared/delivery-model';
import { renderWithClient } from '../../support/render';
import { SCENARIO_COUNTERPARTY_GUID } from '../../../../electron/contract/schemas/delivery';
import {
  DELIVERY_ID,
  GUID,
  TX,
  attempt,
  counterparty,
  delivery,
  fakeSandboxApi,
  status,
} from './fake-sandbox';

beforeEach(() => {
  resetSandboxStore();
  useEscalationsSeen.setState({ seenAt: '' });
  window.location.hash = '';
});
afterEach(() => cleanup());

const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 12, 0, s)).toISOString();

async function renderPage(fake = fakeSandboxApi()) {
  renderWithClient(<SandboxPage />, fake.api);
  await waitFor(() => expect(screen.getByTestId('sandbox-page').getAttribute('data-state')).toBe('ready'));
  return fake;
}

describe('a delivery read as a timeline', () => {
  it('gives each attempt the time of the next one, and the last its next_at while delivering', () => {
    const d = delivery({
      attempts: [
        attempt(1, 0, 500, { planned_at: at(0) }),
        attempt(1, 0.2, 200, { copy: true }),
        attempt(2, 1, null, { planned_at: at(1) }),
      ],
      next_at: at(3),
    });
    const rows = timelineOf(d);
    expect(rows.map((r) => [r.n, r.copy, r.status, r.accepted, r.next_at])).toEqual([
      [1, false, 500, false, at(1)],
      [1, true, 200, true, null],
      [2, false, null, false, at(3)],
    ]);
    expect(rows[2]!.error).toBe('connection refused');
    const words = progressWords(progressOf(d, 10), (iso) => iso);
    expect(words).toBe(`attempt 2 of 10 · next at ${at(3)} (+ 1 copy)`);
  });

  it('says delivered or escalated with the attempt count, and once allows one attempt', () => {
    const delivered = delivery({ state: 'delivered', attempts: [attempt(1, 0, 500), attempt(2, 1, 200)] });
    expect(progressWords(progressOf(delivered, 10), String)).toBe('delivered after 2 attempts');
    expect(timelineOf(delivered).at(-1)!.next_at).toBeNull();
    const once = delivery({ state: 'escalated', ladder: 'once', attempts: [attempt(1, 0, 503)] });
    expect(progressOf(once, 10).allowed).toBe(1);
    expect(progressWords(progressOf(once, 10), String)).toBe(
      'escalated to manual processing after 1 attempt',
    );
  });
});

describe('SandboxPage: deliveries', () => {
  it('lists each delivery and follows it live, attempt by attempt, until delivered', async () => {
    const fake = fakeSandboxApi();
    const first = delivery({ attempts: [attempt(1, 0, 500, { planned_at: at(0) })], next_at: at(1) });
    fake.setDeliveries([first]);
    await renderPage(fake);
    const item = await screen.findByTestId('delivery');
    expect(item.getAttribute('data-state')).toBe('delivering');
    expect(within(item).getByTestId('delivery-progress').textContent).toContain('attempt 1 of 10');
    fireEvent.click(within(item).getByTestId('delivery-toggle'));
    expect(
      within(item)
        .getAllByTestId('delivery-attempt')
        .map((a) => a.getAttribute('data-status')),
    ).toEqual(['500']);
    expect(within(item).getByTestId('delivery-attempt-next').textContent).toMatch(/^next /);

    // The core records the second attempt (a 500 again), then the third (200): no refetch, no poll.
    const second = {
      ...first,
      attempts: [...first.attempts, attempt(2, 1, 500, { planned_at: at(1) })],
      next_at: at(3),
    };
    act(() => fake.emit('sandbox.attempted', second));
    await waitFor(() => expect(within(item).getAllByTestId('delivery-attempt')).toHaveLength(2));
    const third = {
      ...second,
      state: 'delivered' as const,
      next_at: null,
      attempts: [...second.attempts, attempt(3, 3, 200, { planned_at: at(3) })],
    };
    act(() => fake.emit('sandbox.attempted', third));
    await waitFor(() => expect(item.getAttribute('data-state')).toBe('delivered'));
    expect(
      within(item)
        .getAllByTestId('delivery-attempt')
        .map((a) => a.getAttribute('data-status')),
    ).toEqual(['500', '500', '200']);
    expect(within(item).getByTestId('delivery-progress').textContent).toBe('delivered after 3 attempts');
    // An older state arriving late (a crossed refetch) does not take the delivery back.
    act(() => fake.emit('sandbox.attempted', second));
    expect(item.getAttribute('data-state')).toBe('delivered');
    expect(fake.sandbox.deliveries).toHaveBeenCalledTimes(1);
  });

  it('leaves a scenario run’s deliveries to the Scenarios page', async () => {
    const fake = fakeSandboxApi();
    fake.setDeliveries([]);
    await renderPage(fake);
    await screen.findByTestId('deliveries-empty');
    act(() =>
      fake.emit(
        'sandbox.attempted',
        delivery({ counterparty_guid: SCENARIO_COUNTERPARTY_GUID, attempts: [attempt(1, 0, 500)] }),
      ),
    );
    act(() =>
      fake.emit('sandbox.attempted', delivery({ delivery_id: GUID, attempts: [attempt(1, 0, 500)] })),
    );
    await waitFor(() =>
      expect(screen.getAllByTestId('delivery').map((d) => d.getAttribute('data-delivery-id'))).toEqual([
        GUID,
      ]),
    );
  });

  it('filters by state and says when none match', async () => {
    const fake = fakeSandboxApi();
    fake.setDeliveries([delivery({ state: 'delivered', attempts: [attempt(1, 0, 200)] })]);
    await renderPage(fake);
    await screen.findByTestId('delivery');
    fireEvent.click(screen.getByTestId('deliveries-filter-escalated'));
    expect(screen.queryByTestId('delivery')).toBeNull();
    expect(screen.getByTestId('deliveries-empty').textContent).toBe('No escalated delivery.');
  });
});

describe('SandboxPage: the notify form’s ladder and faults', () => {
  const withReceiver = () =>
    fakeSandboxApi(
      status({ counterparties: [counterparty({ bank_receiver_url: 'http://127.0.0.1:9/bank' })] }),
    );

  async function openForm() {
    const fake = withReceiver();
    fake.setDeliveries([]);
    await renderPage(fake);
    fireEvent.click(screen.getByTestId('counterparty-toggle'));
    return { fake, form: screen.getByTestId('notify-faults') };
  }

  it('refuses duplicates over 10 and a timeout under 100 ms in the API’s words, and sends nothing', async () => {
    const { fake, form } = await openForm();
    fireEvent.change(within(form).getByTestId('notify-duplicates'), { target: { value: '11' } });
    fireEvent.change(within(form).getByTestId('notify-timeout'), { target: { value: '50' } });
    expect(screen.getByTestId(`notify-${GUID}-duplicates-error`).textContent).toBe(
      'must be a whole number of copies from 0 to 10',
    );
    expect(screen.getByTestId(`notify-${GUID}-timeout-error`).textContent).toBe(
      'must be a whole number of milliseconds from 100 to 30000',
    );
    const send = screen.getByTestId('send-notification') as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    fireEvent.change(within(form).getByTestId('notify-duplicates'), { target: { value: 'two' } });
    expect(screen.getByTestId(`notify-${GUID}-duplicates-error`).textContent).toBe(
      'must be a whole number of copies from 0 to 10',
    );
    fireEvent.click(send);
    expect(fake.sandbox.notify).not.toHaveBeenCalled();
  });

  it('sends the ladder, the faults and a pay-in after the pay-out, then opens the delivery', async () => {
    const { fake, form } = await openForm();
    fireEvent.change(screen.getByTestId('notify-event'), { target: { value: 'pay-out' } });
    fireEvent.click(within(form).getByTestId('notify-ladder-once'));
    fireEvent.change(within(form).getByTestId('notify-duplicates'), { target: { value: '3' } });
    fireEvent.click(within(form).getByTestId('notify-concurrent'));
    fireEvent.click(within(form).getByTestId('notify-lost-ack'));
    fireEvent.change(within(form).getByTestId('notify-timeout'), { target: { value: '2000' } });
    fireEvent.change(within(form).getByTestId('notify-then'), { target: { value: 'pay-in' } });
    // The pay-out goes to the sender URL, which this counterparty has not set: the core says so.
    fake.sandbox.notify.mockRejectedValueOnce(
      new ConsoleError('BAD_ARGUMENT', 'sandbox.notify: the counterparty has no bank_sender_url', {
        field: 'bank_sender_url',
      }),
    );
    fireEvent.click(screen.getByTestId('send-notification'));
    await screen.findByTestId('notify-error');
    expect(fake.sandbox.notify).toHaveBeenCalledWith({
      counterparty_guid: GUID,
      event: 'pay-out',
      ladder: 'once',
      faults: { duplicates: 3, concurrent: true, lost_ack: true, timeout_ms: 2000 },
      sequence: [{ event: 'pay-in' }],
    });

    fireEvent.change(screen.getByTestId('notify-event'), { target: { value: 'pay-in' } });
    fireEvent.change(within(form).getByTestId('notify-then'), { target: { value: '' } });
    fireEvent.change(within(form).getByTestId('notify-duplicates'), { target: { value: '0' } });
    fireEvent.click(screen.getByTestId('send-notification'));
    await screen.findByTestId('notify-result');
    expect(fake.sandbox.notify).toHaveBeenLastCalledWith({
      counterparty_guid: GUID,
      event: 'pay-in',
      ladder: 'once',
      faults: { lost_ack: true, timeout_ms: 2000 },
    });
    expect(useSandboxStore.getState().openDeliveries[DELIVERY_ID]).toBe(true);
  });
});

describe('SandboxPage: the ladder as settings', () => {
  it('shows the guide’s values, refuses bad ones naming the field, and saves good ones', async () => {
    const fake = await renderPage();
    const panel = screen.getByTestId('delivery-settings');
    expect((within(panel).getByTestId('delivery-waits') as HTMLInputElement).value).toBe(
      '1, 2, 4, 8, 16, 32, 60, 60, 60',
    );
    const save = within(panel).getByTestId('delivery-settings-save') as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.change(within(panel).getByTestId('delivery-waits'), { target: { value: '1, soon' } });
    fireEvent.change(within(panel).getByTestId('delivery-max-attempts'), { target: { value: '0' } });
    fireEvent.change(within(panel).getByTestId('delivery-timeout'), { target: { value: '99' } });
    expect(within(panel).getByTestId('delivery-waits-error').textContent).toBe(
      'each wait must be a number of seconds from 0 to 86400',
    );
    expect(within(panel).getByTestId('delivery-max-attempts-error').textContent).toBe(
      'must be a whole number of attempts from 1 to 100',
    );
    expect(within(panel).getByTestId('delivery-timeout-error').textContent).toBe(
      'must be a whole number of milliseconds from 100 to 30000',
    );
    expect(save.disabled).toBe(true);

    fireEvent.change(within(panel).getByTestId('delivery-waits'), { target: { value: '0.5, 1' } });
    fireEvent.change(within(panel).getByTestId('delivery-max-attempts'), { target: { value: '3' } });
    fireEvent.change(within(panel).getByTestId('delivery-timeout'), { target: { value: '800' } });
    fireEvent.click(save);
    await waitFor(() =>
      expect(fake.sandbox.updateSettings).toHaveBeenCalledWith({
        delivery_waits_seconds: [0.5, 1],
        delivery_max_attempts: 3,
        delivery_timeout_ms: 800,
      }),
    );
    await waitFor(() => expect(save.disabled).toBe(true));

    // The core's refusal lands under the field it names.
    fake.sandbox.updateSettings.mockRejectedValueOnce(
      new ConsoleError(
        'BAD_ARGUMENT',
        'sandbox.updateSettings: delivery_timeout_ms: too long for this host',
        {
          field: 'delivery_timeout_ms',
        },
      ),
    );
    fireEvent.change(within(panel).getByTestId('delivery-timeout'), { target: { value: '900' } });
    fireEvent.click(save);
    expect((await within(panel).findByTestId('delivery-timeout-error')).textContent).toBe(
      'too long for this host',
    );
    // The guide's values come back with one press.
    fireEvent.click(within(panel).getByTestId('delivery-settings-guide'));
    expect((within(panel).getByTestId('delivery-max-attempts') as HTMLInputElement).value).toBe('10');
  });
});

function Header() {
  useEscalationLiveUpdates();
  return <EscalationPill />;
}

describe('the header’s escalation indicator', () => {
  it('appears on sandbox.escalated, leads to the escalated delivery, and goes once seen', async () => {
    const fake = fakeSandboxApi();
    fake.setDeliveries([]);
    renderWithClient(<Header />, fake.api);
    await waitFor(() => expect(fake.sandbox.deliveries).toHaveBeenCalledWith({ state: 'escalated' }));
    expect(screen.queryByTestId('escalation-pill')).toBeNull();
    const escalated = delivery({
      state: 'escalated',
      attempts: Array.from({ length: 10 }, (_, i) => attempt(i + 1, i, 503)),
    });
    act(() => fake.emit('sandbox.escalated', escalated));
    const pill = await screen.findByTestId('escalation-pill');
    expect(pill.textContent).toContain('1 notification escalated');
    expect(pill.getAttribute('title')).toContain(TX);
    fireEvent.click(pill);
    expect(window.location.hash).toBe('#/sandbox');
    expect(useSandboxStore.getState().deliveryFilter).toBe('escalated');
    expect(useSandboxStore.getState().openDeliveries[DELIVERY_ID]).toBe(true);
    await waitFor(() => expect(screen.queryByTestId('escalation-pill')).toBeNull());
  });

  it('shows nothing when the deliveries cannot be read (no sandbox, or a role without it)', async () => {
    const fake = fakeSandboxApi();
    fake.sandbox.deliveries.mockRejectedValue(
      new ConsoleError('FORBIDDEN', 'a viewer of another hub cannot read deliveries'),
    );
    renderWithClient(<Header />, fake.api);
    await waitFor(() => expect(fake.sandbox.deliveries).toHaveBeenCalled());
    expect(screen.queryByTestId('escalation-pill')).toBeNull();
  });
});
