// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { CallbacksPage } from '../../../../renderer/features/callbacks/callbacks-page';
import { resetCallbacksStore } from '../../../../renderer/features/callbacks/callbacks-store';
import { curlCommand } from '../../../../renderer/shared/event-http';
import { useFakeViewport } from '../../support/layout';
import { renderWithClient } from '../../support/render';
import {
  BANK_URL,
  FRESH_TOKEN,
  SESSION_TOKEN,
  detail,
  fakeEventsConsole,
  summary,
} from '../../support/fake-events';

const writeText = vi.fn(async (_text: string) => undefined);

useFakeViewport();
beforeEach(() => {
  resetCallbacksStore();
  writeText.mockClear();
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  Element.prototype.scrollIntoView = vi.fn();
});
afterEach(() => cleanup());

const EVENTS = [
  summary({ id: 'c3', path: '/key', failed_check: 'signature', status: 401, duration_ms: 1_250 }),
  summary({ id: 'c2', path: '/user_auth', failed_check: 'exp', status: 401 }),
  summary({ id: 'c1', path: '/user_auth', failed_check: null, status: 200, duration_ms: 80 }),
  summary({ id: 'c0', path: '/external_id', failed_check: 'signature', status: 401 }),
];

async function renderPage(fake = fakeEventsConsole({ events: EVENTS })) {
  renderWithClient(<CallbacksPage />, fake.api);
  await waitFor(() => expect(screen.getByTestId('callbacks-page').getAttribute('data-state')).toBe('ready'));
  return fake;
}

const rowIds = () => screen.queryAllByTestId('callback-row').map((r) => r.getAttribute('data-event-id'));

describe('CallbacksPage', () => {
  it('lists callbacks newest first from events.query (kind callback), over-budget durations marked', async () => {
    const fake = await renderPage();
    expect(fake.events.query).toHaveBeenCalledWith(expect.objectContaining({ kind: 'callback' }));
    expect(rowIds()).toEqual(['c3', 'c2', 'c1', 'c0']);
    const slow = screen.getAllByTestId('callback-row')[0]!;
    expect(slow.querySelector('[data-over="true"]')).toBeTruthy();
    expect(screen.getByTestId('callbacks-histogram').getAttribute('data-over-budget')).toBe('1');
  });

  it('renders only a window of rows for 10,000 callbacks, and says older ones are in the store', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) =>
      summary({
        id: `m${10_000 - i}`,
        path: '/user_auth',
        failed_check: i % 3 ? null : 'sub',
        status: i % 3 ? 200 : 401,
      }),
    );
    await renderPage(fakeEventsConsole({ events: many }));
    const rows = screen.getAllByTestId('callback-row');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(100);
    expect(rows[0]!.getAttribute('data-event-id')).toBe('m10000');
    // The total is the store's; the page holds one page of CALLBACK_PAGE.
    expect(screen.getByTestId('callbacks-count').textContent).toBe('10,000 matches');
    expect(screen.getByTestId('callbacks-count').getAttribute('data-loaded')).toBe('1000');
    fireEvent.click(screen.getByTestId('callbacks-failed-only'));
    await waitFor(() => expect(screen.getByTestId('callbacks-count').textContent).toBe('3,334 matches'));
  });

  it('a callback answered 200 over the budget is failed `budget`: marked, under "Failed only" and in its group', async () => {
    await renderPage(
      fakeEventsConsole({
        events: [
          summary({
            id: 'late',
            path: '/user_auth',
            failed_check: 'budget',
            status: 200,
            duration_ms: 1_503,
          }),
          ...EVENTS,
        ],
      }),
    );
    const late = screen.getAllByTestId('callback-row')[0]!;
    expect(late.className).toMatch(/is-failed/);
    expect(within(late).getByTestId('callback-outcome').textContent).toContain('budget');
    fireEvent.click(screen.getByTestId('callbacks-failed-only'));
    expect(rowIds()).toContain('late');
  });

  it('a callback answered 200 whose answer failed the judge (`phone`) is failed, never "✓ passed", and says what failed', async () => {
    const fake = fakeEventsConsole({
      events: [summary({ id: 'omit', path: '/user_auth', failed_check: 'phone', status: 200 }), ...EVENTS],
    });
    fake.events.get.mockImplementation(async ({ id }: { id: string }) => {
      const s = summary({ id, path: '/user_auth', failed_check: 'phone', status: 200 });
      return detail(s, {
        checks: [
          { id: 'signature', title: 'Signature', status: 'passed', detail: 'verified' },
          { id: 'status', title: 'HTTP status', status: 'passed', detail: 'answered 200' },
          { id: 'phone', title: 'phone', status: 'failed', detail: 'phone missing' },
        ],
      });
    });
    await renderPage(fake);
    const row = screen.getAllByTestId('callback-row')[0]!;
    expect(row.className).toMatch(/is-failed/);
    const outcome = within(row).getByTestId('callback-outcome').textContent ?? '';
    expect(outcome).toContain('phone');
    expect(outcome).not.toContain('passed');
    fireEvent.click(row);
    const panel = await screen.findByTestId('callback-detail');
    await waitFor(() =>
      expect(within(panel).getByTestId('check-phone').getAttribute('data-status')).toBe('failed'),
    );
    expect(within(panel).getByTestId('event-detail').getAttribute('data-outcome')).toBe('failed');
    expect(within(panel).getByTestId('event-reason').textContent).toContain('phone: phone missing');
    fireEvent.click(screen.getByTestId('callbacks-failed-only'));
    await waitFor(() => expect(rowIds()).toContain('omit'));
  });

  it('a forward callback judged by the one judge lists its answer checks once; an older one keeps its own list', async () => {
    const forward = (verdicts: Array<{ id: 'budget' | 'time' | 'phone'; status: 'passed' | 'failed' }>) => ({
      url: 'http://127.0.0.1:8080/user_auth',
      status: 200,
      duration_ms: 12,
      error: null,
      verdicts: verdicts.map((v) => ({ ...v, title: v.id, detail: `${v.id} words` })),
    });
    const fake = fakeEventsConsole({
      events: [summary({ id: 'new', path: '/user_auth' }), summary({ id: 'old', path: '/user_auth' })],
    });
    fake.events.get.mockImplementation(async ({ id }: { id: string }) =>
      id === 'new'
        ? detail(summary({ id }), {
            checks: [
              {
                id: 'reachable',
                title: 'Answer arrived',
                status: 'passed',
                detail: 'an HTTP answer arrived (200)',
              },
            ],
            forward: forward([{ id: 'budget', status: 'passed' }]),
          })
        : detail(summary({ id }), { forward: forward([{ id: 'time', status: 'passed' }]) }),
    );
    await renderPage(fake);
    fireEvent.click(screen.getAllByTestId('callback-row')[0]!);
    let panel = await screen.findByTestId('callback-detail');
    await waitFor(() =>
      expect(within(panel).getByTestId('event-forward').textContent).toContain('Forwarded to'),
    );
    expect(within(panel).queryByTestId('check-budget')).toBeNull();
    fireEvent.click(screen.getAllByTestId('callback-row')[1]!);
    await waitFor(() =>
      expect(screen.getByTestId('callback-detail').getAttribute('data-event-id')).toBe('old'),
    );
    panel = screen.getByTestId('callback-detail');
    // A stored `time` verdict (before issue 24) still shows.
    await waitFor(() =>
      expect(within(panel).getByTestId('check-time').getAttribute('data-status')).toBe('passed'),
    );
  });

  it('a refused request (431, no check) counts as failed', async () => {
    await renderPage(
      fakeEventsConsole({
        events: [...EVENTS, summary({ id: 'r1', path: null, failed_check: null, status: 431 })],
      }),
    );
    fireEvent.click(screen.getByTestId('callbacks-failed-only'));
    await waitFor(() => expect(rowIds()).toEqual(['c3', 'c2', 'c0', 'r1']));
    expect(
      within(screen.getAllByTestId('callback-row')[3]!).getByTestId('callback-outcome').textContent,
    ).toContain('HTTP 431');
  });

  it('prepends a live events.appended callback into the cache without refetching; ignores other kinds', async () => {
    const fake = await renderPage();
    const calls = fake.events.query.mock.calls.length;
    act(() => {
      fake.emit('events.appended', summary({ id: 'c4', failed_check: 'obj' }));
      fake.emit('events.appended', summary({ id: 'n1', kind: 'notification' }));
    });
    await waitFor(() => expect(rowIds()[0]).toBe('c4'));
    expect(rowIds()).not.toContain('n1');
    expect(fake.events.query.mock.calls.length).toBe(calls);
  });

  it('filters failed only, and groups by failed check with counts (click filters by that check), all by the store', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getByTestId('callbacks-failed-only'));
    await waitFor(() => expect(rowIds()).toEqual(['c3', 'c2', 'c0']));
    expect(fake.events.query).toHaveBeenCalledWith({ kind: 'callback', failed: true, limit: 1_000 });
    fireEvent.click(screen.getByTestId('callbacks-group-by-check'));
    const sig = await screen.findByTestId('callbacks-group-signature');
    expect(sig.getAttribute('data-count')).toBe('2');
    expect(screen.getByTestId('callbacks-group-exp').getAttribute('data-count')).toBe('1');
    expect(fake.events.stats).toHaveBeenCalledWith({
      query: { kind: 'callback', failed: true },
      by: 'failed_check',
    });
    fireEvent.click(sig);
    await waitFor(() => expect(rowIds()).toEqual(['c3', 'c0']));
    expect(fake.events.query).toHaveBeenCalledWith({
      kind: 'callback',
      failed_check: 'signature',
      limit: 1_000,
    });
    fireEvent.click(screen.getByTestId('callbacks-clear-check'));
    await waitFor(() => expect(rowIds()).toEqual(['c3', 'c2', 'c0']));
  });

  it('searches through the store (events.query text) and keeps live matches coming, asked of the store', async () => {
    const c9 = summary({ id: 'c9', obj: 'GB33BUKB20201555555555', path: '/key' });
    const fake = await renderPage(fakeEventsConsole({ events: [c9, ...EVENTS] }));
    fireEvent.change(screen.getByTestId('callbacks-search'), { target: { value: 'gb33' } });
    await waitFor(() => expect(rowIds()).toEqual(['c9']));
    expect(fake.events.query).toHaveBeenCalledWith({ kind: 'callback', text: 'gb33', limit: 1_000 });
    expect(screen.getByTestId('callbacks-count').textContent).toBe('1 match');
    // A live callback: whether it matches is the store's to say (one query after the newest listed).
    const live = summary({ id: 'cA', obj: 'GB33BUKB20201555555556', at: '2025-01-01T12:00:01.000Z' });
    const other = summary({ id: 'cB', obj: 'DE89', at: '2025-01-01T12:00:02.000Z' });
    fake.setEvents([other, live, c9, ...EVENTS]);
    act(() => {
      fake.emit('events.appended', live);
      fake.emit('events.appended', other);
    });
    await waitFor(() => expect(rowIds()).toEqual(['cA', 'c9']));
    expect(fake.events.query).toHaveBeenCalledWith(
      expect.objectContaining({ kind: 'callback', text: 'gb33', after: 'c9' }),
    );
    await waitFor(() => expect(screen.getByTestId('callbacks-count').textContent).toBe('2 matches'));
  });

  it('opens the detail panel with the failed check, the token, the JWKS then and the request', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getAllByTestId('callback-row')[0]!);
    const panel = await screen.findByTestId('callback-detail');
    expect(fake.events.get).toHaveBeenCalledWith({ id: 'c3' });
    await waitFor(() =>
      expect(within(panel).getByTestId('check-signature').getAttribute('data-status')).toBe('failed'),
    );
    expect(within(panel).getByTestId('callback-token').getAttribute('data-token')).toBe(SESSION_TOKEN);
    expect(within(panel).getByTestId('callback-jwks').textContent).toContain('svc-1');
    expect(within(panel).getByTestId('event-request').textContent).toContain('x-session-id');
  });

  it('names the JWKS keys left out with their reasons, and the kids seen twice', async () => {
    const fake = fakeEventsConsole({ events: EVENTS });
    fake.events.get.mockImplementation(async ({ id }: { id: string }) =>
      detail(summary({ id }), {
        jwks: {
          url: 'http://127.0.0.1:7302/api/v1/.well-known/jwks.json',
          kids: ['svc-1', 'svc-2'],
          fetched_at: '2025-01-01T11:59:00.000Z',
          stale: false,
          error: null,
          rejected: [
            {
              kid: 'svc-e3',
              reason: 'the RSA public exponent is 3; it must be odd and between 2^16 and 2^256 (FIPS 186-5)',
            },
            { kid: null, reason: 'the RSA modulus has 1024 bits; at least 2048 are required' },
          ],
          duplicates: ['svc-2'],
        },
      }),
    );
    await renderPage(fake);
    fireEvent.click(screen.getAllByTestId('callback-row')[0]!);
    const panel = await screen.findByTestId('callback-detail');
    const rejected = await within(panel).findByTestId('callback-jwks-rejected');
    expect(
      within(rejected)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      'svc-e3: the RSA public exponent is 3; it must be odd and between 2^16 and 2^256 (FIPS 186-5)',
      'a key without kid: the RSA modulus has 1024 bits; at least 2048 are required',
    ]);
    expect(within(panel).getByTestId('callback-jwks-duplicates').textContent).toMatch(
      /^svc-2appears more than once in the JWKS/,
    );
  });

  it('shows an event stored before rejected keys and duplicates were recorded', async () => {
    await renderPage();
    fireEvent.click(screen.getAllByTestId('callback-row')[0]!);
    const panel = await screen.findByTestId('callback-detail');
    await waitFor(() => expect(within(panel).getByTestId('callback-jwks').textContent).toContain('svc-1'));
    expect(within(panel).queryByTestId('callback-jwks-rejected')).toBeNull();
    expect(within(panel).queryByTestId('callback-jwks-duplicates')).toBeNull();
  });

  it('moves with j/k and opens with Enter', async () => {
    const fake = await renderPage();
    const list = screen.getByTestId('callbacks-list');
    fireEvent.keyDown(list, { key: 'j' });
    fireEvent.keyDown(list, { key: 'j' });
    fireEvent.keyDown(list, { key: 'k' });
    fireEvent.keyDown(list, { key: 'ArrowDown' });
    // j, j, k, ↓: the second row.
    expect(screen.getAllByTestId('callback-row')[1]!.getAttribute('data-cursor')).toBe('true');
    expect(fake.events.get).not.toHaveBeenCalled();
    fireEvent.keyDown(list, { key: 'Enter' });
    await screen.findByTestId('callback-detail');
    expect(fake.events.get).toHaveBeenCalledWith({ id: 'c2' });
  });

  it('re-check shows "at the time" and "now" side by side and keeps the recorded verdict; replay calls bank.replay', async () => {
    const fake = await renderPage();
    fireEvent.click(screen.getAllByTestId('callback-row')[1]!);
    await screen.findByTestId('callback-recheck');
    fireEvent.click(screen.getByTestId('callback-recheck'));
    await waitFor(() => expect(fake.bank.recheck).toHaveBeenCalledWith({ id: 'c2' }));
    const result = await screen.findByTestId('callback-recheck-result');
    expect(within(result).getByTestId('recheck-then').getAttribute('data-verdict')).toBe('exp');
    expect(within(result).getByTestId('recheck-then').textContent).toMatch(
      /At the time \(the verdict\): .*failed exp/,
    );
    expect(within(result).getByTestId('recheck-now').getAttribute('data-verdict')).toBe('passed');
    // The recorded verdict is still the callback's: the list row and the cached detail keep exp.
    expect(screen.getAllByTestId('callback-row')[1]!.getAttribute('data-failed-check')).toBe('exp');
    expect(screen.queryByText('rechecked with the current JWKS')).toBeNull();
    fireEvent.click(screen.getByTestId('callback-replay'));
    await waitFor(() => expect(fake.bank.replay).toHaveBeenCalledWith({ id: 'c2' }));
    expect((await screen.findByTestId('callback-replay-result')).getAttribute('data-event-id')).toBe(
      'c2-replay',
    );
    fireEvent.click(screen.getByTestId('callback-open-replay'));
    await waitFor(() => expect(fake.events.get).toHaveBeenCalledWith({ id: 'c2-replay' }));
    await waitFor(() =>
      expect(screen.getByTestId('callback-detail').getAttribute('data-event-id')).toBe('c2-replay'),
    );
  });

  it('shows the JWKS URL, kids and the request path whole on hover, each with its copy button (issue 26 item 6)', async () => {
    await renderPage();
    fireEvent.click(screen.getAllByTestId('callback-row')[2]!);
    const kid = await screen.findByTestId('callback-jwks-kid');
    expect(kid.getAttribute('title')).toBe('svc-1');
    expect(screen.getByTestId('callback-jwks-url').getAttribute('title')).toBe(
      'http://127.0.0.1:7302/api/v1/.well-known/jwks.json',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Copy kid svc-1' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('svc-1'));
    const path = `${BANK_URL}/user_auth?obj=DE89370400440532013000`;
    expect(within(screen.getByTestId('event-request-line')).getByTitle(`GET ${path}`)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: `Copy path ${path}` }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(path));
  });

  it('copies the stored request as curl with the X-Session-ID header', async () => {
    await renderPage();
    fireEvent.click(screen.getAllByTestId('callback-row')[2]!);
    fireEvent.click(await screen.findByTestId('event-copy-curl'));
    await waitFor(() => expect(writeText).toHaveBeenCalled());
    const curl = writeText.mock.calls[0]![0];
    expect(curl).toBe(
      `curl -sS '${BANK_URL}/user_auth?obj=DE89370400440532013000' -H 'x-session-id: ${SESSION_TOKEN}'`,
    );
  });

  it('curlCommand quotes single quotes, keeps a non-GET method and the body, and makes a path absolute', () => {
    const req = {
      method: 'POST',
      url: "/a'b",
      headers: { host: 'x', 'content-type': 'text/plain' },
      body: 'x',
    };
    expect(curlCommand(req, 'http://127.0.0.1:7301')).toBe(
      `curl -sS -X POST 'http://127.0.0.1:7301/a'\\''b' -H 'content-type: text/plain' --data-raw 'x'`,
    );
    expect(curlCommand(req, null)).toBeNull();
  });
});

describe('CallbacksPage: Save as scenario on a selection (issue 28 item 2)', () => {
  const checkbox = (id: string) =>
    within(
      screen.getAllByTestId('callback-row').find((r) => r.getAttribute('data-event-id') === id)!,
    ).getByRole('checkbox');
  const selectedCount = () => screen.getByTestId('callbacks-selected-count').getAttribute('data-count');

  async function saveAs(name: string) {
    fireEvent.click(screen.getByTestId('callbacks-save-scenario'));
    const dialog = await screen.findByTestId('save-scenario-dialog');
    fireEvent.change(within(dialog).getByLabelText('Folder'), { target: { value: '/repo/scenarios' } });
    fireEvent.change(within(dialog).getByLabelText('Scenario name'), { target: { value: name } });
    const scope = within(dialog).getByTestId('save-scenario-scope').textContent;
    fireEvent.click(within(dialog).getByTestId('save-scenario-confirm'));
    await within(dialog).findByTestId('save-scenario-done');
    return scope;
  }

  it('saves only the ticked rows, by mouse and by keyboard (x on the cursor row), and says so', async () => {
    const fake = await renderPage();
    expect(screen.getByTestId('callbacks-save-scenario').textContent).toBe('Save all listed as scenario');
    // A tick is not an open: the row is not the one shown in the detail panel.
    fireEvent.click(checkbox('c2'));
    expect(checkbox('c2').closest('li')!.getAttribute('aria-selected')).toBe('false');
    // j puts the cursor on the first row, x ticks it.
    fireEvent.keyDown(document.body, { key: 'j' });
    fireEvent.keyDown(document.body, { key: 'x' });
    expect((checkbox('c3') as HTMLInputElement).checked).toBe(true);
    expect(selectedCount()).toBe('2');
    expect(screen.getByTestId('callbacks-save-scenario').textContent).toBe('Save 2 selected as scenario');
    expect(await saveAs('two-callbacks')).toMatch(/^The 2 selected callbacks \(2 events\)/);
    expect(fake.scenario.save).toHaveBeenCalledWith(
      expect.objectContaining({
        folder: '/repo/scenarios',
        file: 'two-callbacks.json',
        event_ids: ['c3', 'c2'],
      }),
    );
  });

  it('select all ticks every listed row (and again clears them); a filter leaves hidden rows out', async () => {
    const fake = await renderPage();
    const all = screen.getByTestId('callbacks-select-all') as HTMLInputElement;
    fireEvent.click(checkbox('c1'));
    // Some selected: the box is neither ticked nor empty.
    expect(all.indeterminate).toBe(true);
    fireEvent.click(all);
    expect(selectedCount()).toBe('4');
    expect(all.checked).toBe(true);
    // "Failed only" hides c1 (it passed): three of the four count, and only they would be saved.
    fireEvent.click(screen.getByTestId('callbacks-failed-only'));
    await waitFor(() => expect(rowIds()).toEqual(['c3', 'c2', 'c0']));
    expect(selectedCount()).toBe('3');
    await saveAs('failed');
    expect(fake.scenario.save).toHaveBeenLastCalledWith(
      expect.objectContaining({ event_ids: ['c3', 'c2', 'c0'] }),
    );
    fireEvent.click(screen.getByTestId('callbacks-select-all'));
    expect(selectedCount()).toBe('0');
  });

  it('with nothing ticked, the button saves every listed callback and is labelled so', async () => {
    const fake = await renderPage();
    fireEvent.click(checkbox('c0'));
    fireEvent.click(screen.getByTestId('callbacks-clear-selection'));
    expect(selectedCount()).toBe('0');
    expect(await saveAs('all')).toMatch(/^The callbacks listed now \(4 events\)/);
    expect(fake.scenario.save).toHaveBeenCalledWith(
      expect.objectContaining({ event_ids: ['c3', 'c2', 'c1', 'c0'] }),
    );
  });
});

describe('CallbacksPage: the environment filter (issue 26 item 1)', () => {
  const envRow = (id: string, name: string, kind: 'sandbox' | 'real') => ({
    id,
    name,
    kind,
    base_url: 'http://127.0.0.1:7302',
    counterparty_guid: null,
    active_kid: null,
    default_obj: null,
    default_sub: null,
    service_jwks_url: null,
    effective_jwks_url: 'http://127.0.0.1:7302/api/v1/.well-known/jwks.json',
  });
  const environments = {
    // The header shows the sandbox: the filter is the engineer's choice, never the header's.
    active_id: 'sandbox',
    environments: [envRow('sandbox', 'Sandbox', 'sandbox'), envRow('env-real', 'Bank staging', 'real')],
  };
  const environmentOf = { c3: 'env-real', c2: 'sandbox', c1: 'env-real', c0: 'sandbox' };

  it('curl with a fresh token: a sandbox callback gets the core’s fresh X-Session-ID and its expiry; a real one says why not (issue 26 item 5)', async () => {
    const fake = await renderPage(fakeEventsConsole({ events: EVENTS, environmentOf, environments }));
    // c2: a sandbox callback that failed exp (its recorded token is past use).
    fireEvent.click(screen.getAllByTestId('callback-row')[1]!);
    fireEvent.click(await screen.findByTestId('callback-fresh-curl-make'));
    await waitFor(() => expect(fake.bank.freshSession).toHaveBeenCalledWith({ id: 'c2' }));
    const text = await screen.findByTestId('callback-fresh-curl-text');
    const expected = `curl -sS '${BANK_URL}/user_auth?obj=DE89370400440532013000' -H 'X-Session-ID: ${FRESH_TOKEN}.c2'`;
    expect(text.textContent).toBe(expected);
    // The recorded token is not in it: only the fresh one.
    expect(text.textContent).not.toContain(SESSION_TOKEN);
    expect(screen.getByTestId('callback-fresh-curl-expiry').getAttribute('title')).toBe(
      '2030-01-01T12:05:00.000Z',
    );
    expect(screen.getByTestId('callback-fresh-curl-expiry').textContent).toMatch(/kid sandbox-2\) expires/);
    fireEvent.click(screen.getByTestId('callback-fresh-curl-copy'));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(expected));
    // c1: the real environment's service signed it; the console holds no key of theirs.
    fireEvent.click(screen.getAllByTestId('callback-row')[2]!);
    expect((await screen.findByTestId('callback-fresh-curl-unavailable')).textContent).toMatch(
      /Bank staging’s service key/,
    );
    expect(screen.queryByTestId('callback-fresh-curl-make')).toBeNull();
  });

  it('asks the store for one environment’s callbacks (a native, focusable select), with the other filters, kept in the page state, and back to all', async () => {
    const fake = await renderPage(fakeEventsConsole({ events: EVENTS, environmentOf, environments }));
    const select = await screen.findByRole('combobox', { name: /environment/i });
    await waitFor(() =>
      expect(
        within(select)
          .getAllByRole('option')
          .map((o) => o.textContent),
      ).toEqual(['All environments', 'Sandbox', 'Bank staging']),
    );
    expect(rowIds()).toEqual(['c3', 'c2', 'c1', 'c0']);
    select.focus();
    expect(document.activeElement).toBe(select);
    // A native select: the keyboard changes it (jsdom fires change as a browser does on ArrowDown).
    fireEvent.change(select, { target: { value: 'env-real' } });
    await waitFor(() => expect(rowIds()).toEqual(['c3', 'c1']));
    expect(fake.events.query).toHaveBeenLastCalledWith(
      expect.objectContaining({ kind: 'callback', environment: 'env-real' }),
    );
    expect(screen.getByTestId('callbacks-count').textContent).toBe('2 matches');
    // The failed badge counts that environment's failures only (c3 failed; c2 and c0 are the sandbox's).
    await waitFor(() =>
      expect(fake.events.stats).toHaveBeenLastCalledWith(
        expect.objectContaining({ query: expect.objectContaining({ environment: 'env-real' }) }),
      ),
    );
    fireEvent.click(screen.getByTestId('callbacks-failed-only'));
    await waitFor(() => expect(rowIds()).toEqual(['c3']));
    // Kept in the page's state: the page shown again keeps the choice.
    cleanup();
    await renderPage(fakeEventsConsole({ events: EVENTS, environmentOf, environments }));
    await waitFor(() =>
      expect((screen.getByTestId('callbacks-environment') as HTMLSelectElement).value).toBe('env-real'),
    );
    await waitFor(() => expect(rowIds()).toEqual(['c3']));
    fireEvent.click(screen.getByTestId('callbacks-failed-only'));
    fireEvent.change(screen.getByTestId('callbacks-environment'), { target: { value: '' } });
    await waitFor(() => expect(rowIds()).toEqual(['c3', 'c2', 'c1', 'c0']));
  });
});
