// @vitest-environment jsdom
/**
 * The Dialog primitive (renderer/ui/dialog.tsx, on React Aria): what the hand-made modal lacked,
 * proven on a page of its own. Focus goes in and stays in, the page behind is inert and does not
 * scroll, and of two nested dialogs only the top one answers Escape.
 */
import '../support/jsdom-gaps';
import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { Dialog } from '../../../renderer/ui/dialog';

afterEach(() => cleanup());

/** A page with a button that opens dialog A, which can open dialog B. */
function Page() {
  const [a, setA] = useState(false);
  const [b, setB] = useState(false);
  return (
    <main data-testid="page">
      <button type="button" onClick={() => setA(true)} data-testid="open-a">
        Open A
      </button>
      <input data-testid="page-field" aria-label="page field" />
      {a ? (
        <Dialog title="Dialog A" onClose={() => setA(false)} testId="dialog-a">
          <input aria-label="first" data-testid="a-first" />
          <input aria-label="chosen" data-testid="a-chosen" data-autofocus />
          <button type="button" onClick={() => setB(true)} data-testid="open-b">
            Open B
          </button>
          {b ? (
            <Dialog title="Dialog B" onClose={() => setB(false)} testId="dialog-b">
              <button type="button" data-testid="b-only">
                B
              </button>
            </Dialog>
          ) : null}
        </Dialog>
      ) : null}
    </main>
  );
}

function openA() {
  render(<Page />);
  const opener = screen.getByTestId('open-a');
  opener.focus();
  fireEvent.click(opener);
  return { opener, dialog: screen.getByTestId('dialog-a') };
}

/** Hidden from the keyboard and screen readers: `inert` where the DOM has it, else aria-hidden. */
function isInertOrHidden(el: Element): boolean {
  for (let e: Element | null = el; e; e = e.parentElement) {
    if ((e as HTMLElement).inert === true || e.getAttribute('aria-hidden') === 'true') return true;
  }
  return false;
}

describe('Dialog', () => {
  it('is a dialog named by its title, with the first focus on data-autofocus', async () => {
    const { dialog } = openA();
    expect(dialog.getAttribute('role')).toBe('dialog');
    expect(document.getElementById(dialog.getAttribute('aria-labelledby')!)?.textContent).toBe('Dialog A');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('a-chosen')));
  });

  it('makes the page behind inert and stops it scrolling while open, and gives both back on close', async () => {
    const { opener } = openA();
    expect(isInertOrHidden(screen.getByTestId('page-field'))).toBe(true);
    expect(document.documentElement.style.overflow).toBe('hidden');
    fireEvent.click(screen.getByTestId('dialog-a-close'));
    await waitFor(() => expect(screen.queryByTestId('dialog-a')).toBeNull());
    expect(isInertOrHidden(screen.getByTestId('page-field'))).toBe(false);
    expect(document.documentElement.style.overflow).toBe('');
    await waitFor(() => expect(document.activeElement).toBe(opener));
  });

  it('keeps Tab inside: from the last control it goes back to the first', async () => {
    openA();
    const last = screen.getByTestId('open-b');
    act(() => last.focus());
    fireEvent.keyDown(last, { key: 'Tab' });
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('dialog-a-close')));
  });

  it('of two nested dialogs, only the top one answers Escape', async () => {
    openA();
    fireEvent.click(screen.getByTestId('open-b'));
    const b = screen.getByTestId('dialog-b');
    expect(isInertOrHidden(screen.getByTestId('a-first'))).toBe(true);
    fireEvent.keyDown(screen.getByTestId('b-only'), { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('dialog-b')).toBeNull());
    expect(b.isConnected).toBe(false);
    expect(screen.getByTestId('dialog-a')).toBeTruthy();
    fireEvent.keyDown(screen.getByTestId('a-first'), { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('dialog-a')).toBeNull());
  });

  it('an Escape that reached the page (focus fell to <body>) closes only the top dialog', async () => {
    openA();
    fireEvent.click(screen.getByTestId('open-b'));
    act(() => (document.activeElement as HTMLElement | null)?.blur());
    fireEvent.keyDown(document.body, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('dialog-b')).toBeNull());
    expect(screen.getByTestId('dialog-a')).toBeTruthy();
  });
});
