// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { EventSummary } from '../../../../electron/contract/schemas/events';
import { NotificationsPage } from '../../../../renderer/features/notifications/notifications-page';
import { resetNotificationsStore } from '../../../../renderer/features/notifications/notifications-store';
import { groupRepeats } from '../../../../renderer/features/notifications/notifications-model';
import { niceCeiling, rateSummary } from '../../../../renderer/features/notifications/rate-chart';
import { useFakeViewport } from '../../support/layout';
import { renderWithClient } from '../../support/render';
import { fakeEventsConsole, summary } from '../../support/fake-events';

useFakeViewport();
beforeEach(() => {
  resetNotificationsStore();
  URL.createObjectURL = vi.fn(() => 'blob:x');
  URL.revokeObjectURL = vi.fn();
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function notification(i: number, extra: Partial<EventSummary> = {}): EventSummary {
  const route = ['pay-in', 'pay-out', 'transfer'][i % 3]!;
  return summary({
    id: `n${i}`,
    kind: 'notification',
    path: `/api/svc/notify/${route}`,
    method: 'POST',
    obj: null,
    outcome: 'accepted',
    transaction_id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    duration_ms: 2,
    at: new Date(Date.UTC(2025, 0, 1) + i).toISOString(),
    ...extra,
  });
}

async function renderPage(fake: ReturnType<typeof fakeEventsConsole>) {
  renderWithClient(<NotificationsPage />, fake.api);
  await waitFor(() =>
    expect(screen.getByTestId('notifications-page').getAttribute('data-state')).toBe('ready'),
  );
  return fake;
}

const rowIds = () => screen.queryAllByTestId('notifications-row').map((r) => r.getAttribute('data-event-id'));

describe('NotificationsPage', () => {
  it('renders only a window of rows for 100,000 notifications, loading pages as the reader scrolls', async () => {
    const events = Array.from({ length: 100_000 }, (_, i) => notification(100_000 - i));
    const fake = await renderPage(fakeEventsConsole({ events }));
    // One page of PAGE_SIZE (1,000) first; the total is the store's.
    expect(fake.events.query).toHaveBeenCalledWith({ kind: 'notification', limit: 1_000 });
    expect(screen.getByTestId('notifications-count').getAttribute('data-total')).toBe('100000');
    expect(screen.getByTestId('notifications-count').getAttribute('data-loaded')).toBe('1000');
    // Near the end of what is loaded, the next page, `before` the last id.
    const scroller = screen.getByTestId('notifications-scroller');
    scroller.scrollTop = 900 * 26;
    fireEvent.scroll(scroller);
    await waitFor(() =>
      expect(fake.events.query).toHaveBeenCalledWith({
        kind: 'notification',
        limit: 1_000,
        before: 'n99001',
      }),
    );
    await waitFor(() =>
      expect(screen.getByTestId('notifications-count').getAttribute('data-loaded')).toBe('2000'),
    );
    const rows = screen.getAllByTestId('notifications-row');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(100);
    expect(rows[0]!.getAttribute('data-event-id')).toBeTruthy();
  }, 30_000);

  it('prepends live notifications (batched) and ignores callbacks', async () => {
    const fake = await renderPage(fakeEventsConsole({ events: [notification(2), notification(1)] }));
    act(() => {
      fake.emit('events.appended', notification(3));
      fake.emit('events.appended', summary({ id: 'cb', kind: 'callback' }));
      fake.emit('events.appended', notification(4));
    });
    await waitFor(() => expect(rowIds()).toEqual(['n4', 'n3', 'n2', 'n1']));
  });

  it('filters by route, outcome and transaction_id text', async () => {
    const events = [
      notification(6, { outcome: 'rejected', transaction_id: null, warning: 'body is not JSON' }),
      notification(5),
      notification(4, { outcome: 'repeat' }),
      notification(3),
    ];
    const fake = await renderPage(fakeEventsConsole({ events }));
    fireEvent.change(screen.getByTestId('notifications-outcome'), { target: { value: 'repeat' } });
    await waitFor(() => expect(rowIds()).toEqual(['n4']));
    expect(fake.events.query).toHaveBeenCalledWith({ kind: 'notification', outcome: 'repeat', limit: 1_000 });
    fireEvent.change(screen.getByTestId('notifications-outcome'), { target: { value: '' } });
    fireEvent.change(screen.getByTestId('notifications-route'), { target: { value: 'pay-in' } });
    await waitFor(() => expect(rowIds()).toEqual(['n6', 'n3']));
    expect(fake.events.query).toHaveBeenCalledWith({
      kind: 'notification',
      path: '/api/svc/notify/pay-in',
      limit: 1_000,
    });
    fireEvent.change(screen.getByTestId('notifications-route'), { target: { value: '' } });
    // The search is the store's: any summary column (here the rejection's warning), any case.
    fireEvent.change(screen.getByTestId('notifications-search'), { target: { value: 'NOT JSON' } });
    await waitFor(() => expect(rowIds()).toEqual(['n6']));
    expect(fake.events.query).toHaveBeenCalledWith({ kind: 'notification', text: 'NOT JSON', limit: 1_000 });
    expect(screen.getByTestId('notifications-count').textContent).toContain('1 match of 4');
    fireEvent.change(screen.getByTestId('notifications-search'), { target: { value: 'nothing-like-it' } });
    expect((await screen.findByTestId('notifications-empty')).textContent).toContain(
      'No notification matches',
    );
  });

  it('with a search open, live notifications are asked of the store (one query after the newest listed), batched per frame', async () => {
    const fake = await renderPage(fakeEventsConsole({ events: [notification(2), notification(1)] }));
    fireEvent.change(screen.getByTestId('notifications-search'), { target: { value: '000000000002' } });
    await waitFor(() => expect(rowIds()).toEqual(['n2']));
    const hit = notification(12, { transaction_id: 'ffffffff-0000-4000-8000-000000000002' });
    const miss = notification(3);
    fake.setEvents([hit, miss, notification(2), notification(1)]);
    const before = fake.events.query.mock.calls.length;
    act(() => {
      fake.emit('events.appended', miss);
      fake.emit('events.appended', hit);
    });
    await waitFor(() => expect(rowIds()).toEqual(['n12', 'n2']));
    // Two events, one frame: one head query.
    expect(fake.events.query.mock.calls.length - before).toBe(1);
    expect(fake.events.query).toHaveBeenLastCalledWith({
      kind: 'notification',
      text: '000000000002',
      after: notification(2).id,
      limit: 500,
    });
  });

  it('a list shown again from the cache gets what arrived while another filter was shown, in order', async () => {
    const fake = await renderPage(fakeEventsConsole({ events: [notification(2), notification(1)] }));
    await waitFor(() => expect(rowIds()).toEqual(['n2', 'n1']));
    fireEvent.change(screen.getByTestId('notifications-outcome'), { target: { value: 'rejected' } });
    await waitFor(() => expect(screen.queryByTestId('notifications-empty')).not.toBeNull());
    // Accepted notifications arrive while only rejected ones are listed: not this list's.
    fake.setEvents([notification(4), notification(3), notification(2), notification(1)]);
    act(() => {
      fake.emit('events.appended', notification(3));
      fake.emit('events.appended', notification(4));
    });
    fireEvent.change(screen.getByTestId('notifications-outcome'), { target: { value: '' } });
    await waitFor(() => expect(rowIds()).toEqual(['n4', 'n3', 'n2', 'n1']));
    expect(fake.events.query).toHaveBeenLastCalledWith({
      kind: 'notification',
      after: notification(2).id,
      limit: 500,
    });
    expect(screen.getByTestId('notifications-count').getAttribute('data-total')).toBe('4');
  });

  it('groups repeats by transaction_id with their count', async () => {
    const tx = 'aaaaaaaa-0000-4000-8000-000000000001';
    const events = [
      notification(4, { transaction_id: tx, outcome: 'repeat' }),
      notification(3),
      notification(2, { transaction_id: tx, outcome: 'repeat' }),
      notification(1, { transaction_id: tx }),
    ];
    await renderPage(fakeEventsConsole({ events }));
    fireEvent.click(screen.getByTestId('notifications-group-repeats'));
    const rows = screen.getAllByTestId('notifications-row');
    expect(rows.map((r) => [r.getAttribute('data-transaction-id'), r.getAttribute('data-count')])).toEqual([
      [tx, '3'],
      [events[1]!.transaction_id, '1'],
    ]);
    expect(groupRepeats(events).length).toBe(2);
  });

  it('exports the filtered notifications through events.export and downloads the file', async () => {
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const fake = await renderPage(fakeEventsConsole({ events: [notification(1)] }));
    fireEvent.change(screen.getByTestId('notifications-outcome'), { target: { value: 'accepted' } });
    fireEvent.click(screen.getByTestId('notifications-export-csv'));
    await waitFor(() =>
      expect(fake.events.export).toHaveBeenCalledWith({
        format: 'csv',
        query: { kind: 'notification', outcome: 'accepted' },
      }),
    );
    await waitFor(() => expect(click).toHaveBeenCalled());
    expect(URL.createObjectURL).toHaveBeenCalled();
    expect((await screen.findByTestId('notifications-export-result')).textContent).toContain(
      'notifications.csv',
    );
    fireEvent.click(screen.getByTestId('notifications-export-json'));
    await waitFor(() =>
      expect(fake.events.export).toHaveBeenLastCalledWith(expect.objectContaining({ format: 'json' })),
    );
  });

  it('charts the store’s per-second counts with a y-axis and a peak that is one of the bars', async () => {
    const fake = fakeEventsConsole({ events: [notification(1)] });
    fake.events.stats.mockImplementation(async (input) => ({
      total: 1,
      groups: [],
      rate: input.rate
        ? { start: '2025-01-01T00:00:00.000Z', bucket_ms: 1_000, counts: [0, 1_339, 1_200, 0] }
        : null,
    }));
    await renderPage(fake);
    await waitFor(() =>
      expect(screen.getByTestId('notifications-rate').getAttribute('data-peak')).toBe('1339'),
    );
    expect(fake.events.stats).toHaveBeenCalledWith({
      query: { kind: 'notification' },
      rate: { bucket_ms: 1_000, buckets: 120 },
    });
    expect(screen.getByTestId('notifications-rate-peak').textContent).toBe('peak 1,339 notifications/s');
    expect(screen.getByTestId('notifications-rate-y').textContent).toBe('2,0001,0000');
    expect(rateSummary([0, 1_339, 1_200, 0])).toEqual({ peak: 1_339, mean: 634.75, last: 0 });
    expect([0, 1, 7, 11, 1_339, 5_000].map(niceCeiling)).toEqual([1, 1, 10, 20, 2_000, 5_000]);
  });

  it('opens a rejected notification with j/k and Enter from the page (no Tab first): reason, body, absolute curl', async () => {
    const rejected = notification(2, { id: 'bad', outcome: 'rejected', status: 400, transaction_id: null });
    const fake = fakeEventsConsole({ events: [notification(3), rejected, notification(1)] });
    const body = '{"amount":1}';
    fake.events.get.mockImplementation(async ({ id }: { id: string }) => ({
      ...summary({ id }),
      ...(id === 'bad' ? rejected : notification(3)),
      request: {
        method: 'POST',
        url: '/api/svc/notify/transfer',
        headers: { 'content-type': 'application/json', host: 'x' },
        body,
      },
      response: {
        status: 400,
        headers: { 'content-type': 'application/json' },
        body: '{"error":"bad_body","detail":"transaction_id is missing (spec 4.3)"}',
      },
      checks: null,
      token: null,
      jwks: null,
      forward: null,
    }));
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await renderPage(fake);
    // Focus is on the body: the keys are heard on the document.
    fireEvent.keyDown(document.body, { key: 'j' });
    fireEvent.keyDown(document.body, { key: 'j' });
    expect(screen.getAllByTestId('notifications-row')[1]!.getAttribute('data-cursor')).toBe('true');
    fireEvent.keyDown(document.body, { key: 'Enter' });
    const panel = await screen.findByTestId('event-detail');
    expect(fake.events.get).toHaveBeenCalledWith({ id: 'bad' });
    expect(panel.getAttribute('data-kind')).toBe('notification');
    await waitFor(() =>
      expect(screen.getByTestId('event-reason').textContent).toContain(
        'transaction_id is missing (spec 4.3)',
      ),
    );
    expect(screen.getByTestId('event-request').textContent).toContain('"amount": 1');
    fireEvent.click(screen.getByTestId('event-view-raw'));
    expect(screen.getByTestId('event-request').textContent).toContain(body);
    fireEvent.click(screen.getByTestId('event-copy-curl'));
    await waitFor(() => expect(writeText).toHaveBeenCalled());
    expect(writeText.mock.calls[0]).toEqual([
      `curl -sS -X POST 'http://127.0.0.1:7303/api/svc/notify/transfer' -H 'content-type: application/json' --data-raw '${body}'`,
    ]);
    fireEvent.keyDown(document.body, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('event-detail')).toBeNull());
  });
});

describe('NotificationsPage: retention', () => {
  it('shows the retention and the database size; a change is reviewed, and removes nothing until confirmed', async () => {
    const events = [3, 2, 1].map((i) => notification(i));
    const fake = await renderPage(fakeEventsConsole({ events }));
    fireEvent.click(screen.getByTestId('notifications-retention-toggle'));
    await waitFor(() => expect(screen.getByTestId('retention-current').textContent).toMatch(/every one/));
    expect(screen.getByTestId('retention-current').textContent).toContain('3 stored');
    expect(screen.getByTestId('retention-size').textContent).toBe('5.0 MiB');

    fireEvent.click(screen.getByTestId('retention-mode-last'));
    expect((screen.getByTestId('retention-review') as HTMLButtonElement).disabled).toBe(true); // no N yet
    fireEvent.change(screen.getByTestId('retention-amount'), { target: { value: '1' } });
    fireEvent.click(screen.getByTestId('retention-review'));
    await waitFor(() =>
      expect(screen.getByTestId('retention-preview').textContent).toMatch(
        /removes 2 acknowledged notification/,
      ),
    );
    expect(fake.events.setRetention).toHaveBeenLastCalledWith({
      rule: { mode: 'last', count: 1 },
      confirm: false,
    });
    expect(fake.events.setRetention).toHaveBeenCalledTimes(1);

    fireEvent.click(screen.getByTestId('retention-confirm'));
    await waitFor(() => expect(screen.getByTestId('retention-applied').textContent).toMatch(/2\s+removed/));
    expect(fake.events.setRetention).toHaveBeenLastCalledWith({
      rule: { mode: 'last', count: 1 },
      confirm: true,
    });
    await waitFor(() =>
      expect(screen.getByTestId('retention-current').textContent).toMatch(/the newest 1\b/),
    );
    await waitFor(() => expect(rowIds()).toEqual(['n3']));
  });
});

/** Saves the selection as a scenario through the dialog. */
async function save() {
  fireEvent.click(screen.getByTestId('notifications-save-scenario'));
  const dialog = await screen.findByTestId('save-scenario-dialog');
  fireEvent.change(within(dialog).getByLabelText('Folder'), { target: { value: '/repo/scenarios' } });
  fireEvent.click(within(dialog).getByTestId('save-scenario-confirm'));
  await within(dialog).findByTestId('save-scenario-done');
}

describe('NotificationsPage: Save as scenario on a selection (issue 28 item 2)', () => {
  const TX = '00000000-0000-4000-8000-0000000000aa';
  // n3 and n1 carry the same transaction_id (n1 the first delivery, n3 its repeat).
  const EVENTS = [
    notification(3, { transaction_id: TX, outcome: 'repeat' }),
    notification(2),
    notification(1, { transaction_id: TX }),
  ];
  const checkbox = (id: string) =>
    within(
      screen.getAllByTestId('notifications-row').find((r) => r.getAttribute('data-event-id') === id)!,
    ).getByRole('checkbox');

  it('saves the ticked notification only; a tick does not open it', async () => {
    const fake = await renderPage(fakeEventsConsole({ events: EVENTS }));
    fireEvent.click(checkbox('n2'));
    expect(checkbox('n2').closest('[role="row"]')!.getAttribute('aria-selected')).toBe('false');
    expect(screen.getByTestId('notifications-selected-count').getAttribute('data-count')).toBe('1');
    expect(screen.getByTestId('notifications-save-scenario').textContent).toBe('Save 1 selected as scenario');
    await save();
    expect(fake.scenario.save).toHaveBeenCalledWith(expect.objectContaining({ event_ids: ['n2'] }));
  });

  it('grouped by transaction_id, a ticked row stands for every notification of its transaction', async () => {
    const fake = await renderPage(fakeEventsConsole({ events: EVENTS }));
    fireEvent.click(screen.getByTestId('notifications-group-repeats'));
    await waitFor(() => expect(rowIds()).toEqual(['n3', 'n2']));
    fireEvent.click(checkbox('n3'));
    expect(screen.getByTestId('notifications-selected-count').textContent).toBe('1 of 2 selected');
    await save();
    expect(fake.scenario.save).toHaveBeenCalledWith(expect.objectContaining({ event_ids: ['n3', 'n1'] }));
  });
});

describe('NotificationsPage: a transaction’s copies and retries grouped under it (issue 27 item 3)', () => {
  const TX = '00000000-0000-4000-8000-0000000000bb';
  // A delivery with two copies and a retry: n1 taken, n2 and n4 repeats (n4 in upper case), n3 another.
  const EVENTS = [
    notification(4, { transaction_id: TX.toUpperCase(), outcome: 'repeat' }),
    notification(3),
    notification(2, { transaction_id: TX, outcome: 'repeat' }),
    notification(1, { transaction_id: TX }),
  ];
  const members = () =>
    screen
      .queryAllByTestId('notifications-member')
      .map((r) => [r.getAttribute('data-event-id'), r.getAttribute('data-outcome')]);
  const groupRow = () =>
    screen.getAllByTestId('notifications-row').find((r) => r.getAttribute('data-event-id') === 'n4')!;

  it('shows how many were accepted and repeated, and opens to list each, oldest first', async () => {
    await renderPage(fakeEventsConsole({ events: EVENTS }));
    fireEvent.click(screen.getByTestId('notifications-group-repeats'));
    await waitFor(() => expect(rowIds()).toEqual(['n4', 'n3']));
    const outcomes = within(groupRow()).getByTestId('notifications-group-outcomes');
    expect([outcomes.getAttribute('data-accepted'), outcomes.getAttribute('data-repeats')]).toEqual([
      '1',
      '2',
    ]);
    expect(outcomes.getAttribute('title')).toBe('1 accepted, 2 repeats');
    const toggle = within(groupRow()).getByTestId('notifications-group-toggle');
    expect(toggle.tagName).toBe('BUTTON');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(members()).toEqual([]);
    fireEvent.click(toggle);
    expect(members()).toEqual([
      ['n1', 'accepted'],
      ['n2', 'repeat'],
      ['n4', 'repeat'],
    ]);
    expect(within(groupRow()).getByTestId('notifications-group-toggle').getAttribute('aria-expanded')).toBe(
      'true',
    );
    // A member opens its own notification in the detail view.
    fireEvent.click(screen.getAllByTestId('notifications-member')[0]!);
    await waitFor(() => expect(screen.getByTestId('event-detail')).toBeTruthy());
    fireEvent.click(within(groupRow()).getByTestId('notifications-group-toggle'));
    expect(members()).toEqual([]);
  });

  it('opens and closes from the keyboard, and x on a member ticks its whole transaction', async () => {
    const fake = await renderPage(fakeEventsConsole({ events: EVENTS }));
    fireEvent.click(screen.getByTestId('notifications-group-repeats'));
    await waitFor(() => expect(rowIds()).toEqual(['n4', 'n3']));
    const scroller = screen.getByTestId('notifications-scroller');
    scroller.focus();
    fireEvent.keyDown(scroller, { key: 'ArrowDown' });
    await waitFor(() => expect(groupRow().getAttribute('data-cursor')).toBe('true'));
    fireEvent.keyDown(scroller, { key: 'ArrowRight' });
    await waitFor(() => expect(members()).toHaveLength(3));
    fireEvent.keyDown(scroller, { key: 'ArrowDown' });
    const first = () => screen.getAllByTestId('notifications-member')[0]!;
    await waitFor(() => expect(first().getAttribute('data-cursor')).toBe('true'));
    fireEvent.keyDown(scroller, { key: 'x' });
    expect(screen.getByTestId('notifications-selected-count').textContent).toBe('1 of 2 selected');
    fireEvent.keyDown(scroller, { key: 'ArrowLeft' });
    await waitFor(() => expect(members()).toEqual([]));
    expect(groupRow().getAttribute('data-cursor')).toBe('true');
    await save();
    expect(fake.scenario.save).toHaveBeenCalledWith(
      expect.objectContaining({ event_ids: ['n4', 'n2', 'n1'] }),
    );
  });
});
