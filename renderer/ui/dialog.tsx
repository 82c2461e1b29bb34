/**
 * A modal dialog on React Aria (react-aria-components' ModalOverlay, Modal and Dialog), so what a
 * hand-made modal gets wrong is the library's job: focus is trapped inside and goes back where it
 * was, the page behind is `inert` (React Aria's useModalOverlay) and does not scroll (overflow
 * hidden on <html>, set as a style property: the CSP's `style-src 'self'` allows that, where an
 * injected <style> would be refused), screen readers hear a dialog named by its title, and of
 * nested dialogs only the top one answers Escape or a click outside.
 *
 * What this wrapper adds: the first focus goes to the element marked `data-autofocus` (else the
 * first control), and Escape still closes the top dialog when focus fell out of it (a button
 * disabled while its call runs leaves focus on <body>, where no dialog hears keys).
 */
import { useEffect, useRef, type ReactNode, type RefObject } from 'react';
import { Dialog as AriaDialog, Heading, Modal, ModalOverlay } from 'react-aria-components';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export interface DialogProps {
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  /** On the dialog element; its close button is `${testId}-close`. */
  testId: string;
  wide?: boolean;
  /** `danger` marks a destructive confirmation (a red top border). */
  tone?: 'danger';
}

/** The dialogs open now, innermost last: an Escape nobody heard closes only the last one. */
const openDialogs: object[] = [];

function useLatest<T>(value: T): RefObject<T> {
  const ref = useRef(value);
  useEffect(() => {
    ref.current = value;
  });
  return ref;
}

/** Escape that reached the document unhandled (focus on <body>) closes the top dialog only. */
function useEscapeFallback(close: RefObject<() => void>): void {
  useEffect(() => {
    const me = {};
    openDialogs.push(me);
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || openDialogs.at(-1) !== me) return;
      e.preventDefault();
      close.current();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      openDialogs.splice(openDialogs.indexOf(me), 1);
    };
  }, [close]);
}

/** Focuses `[data-autofocus]` inside `root`, else its first control, once on open. */
function useFirstFocus(root: RefObject<HTMLDivElement | null>): void {
  useEffect(() => {
    const el = root.current;
    const first =
      el?.querySelector<HTMLElement>('[data-autofocus]') ?? el?.querySelector<HTMLElement>(FOCUSABLE);
    first?.focus();
  }, [root]);
}

/**
 * @example
 * {open ? (
 *   <Dialog title="Delete key?" onClose={() => setOpen(false)} testId="delete-dialog" tone="danger">
 *     …
 *   </Dialog>
 * ) : null}
 */
export function Dialog({ title, onClose, children, testId, wide = false, tone }: DialogProps) {
  const close = useLatest(onClose);
  useEscapeFallback(close);
  const className = ['modal', wide ? 'modal-wide' : '', tone ? `modal-${tone}` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <ModalOverlay
      isOpen
      isDismissable
      onOpenChange={(open) => {
        if (!open) close.current();
      }}
      className="modal-backdrop"
    >
      <Modal className="modal-frame">
        <AriaDialog className={className} data-testid={testId}>
          <DialogContent title={title} testId={testId} onClose={() => close.current()}>
            {children}
          </DialogContent>
        </AriaDialog>
      </Modal>
    </ModalOverlay>
  );
}

function DialogContent({
  title,
  testId,
  onClose,
  children,
}: Pick<DialogProps, 'title' | 'testId' | 'onClose' | 'children'>) {
  const root = useRef<HTMLDivElement>(null);
  useFirstFocus(root);
  return (
    <div ref={root} className="modal-content">
      <header className="modal-head">
        <Heading slot="title" level={2} className="modal-title">
          {title}
        </Heading>
        <button
          type="button"
          className="modal-close"
          aria-label="Close"
          title="Close (Esc)"
          onClick={onClose}
          data-testid={`${testId}-close`}
        >
          ×
        </button>
      </header>
      <div className="modal-body">{children}</div>
    </div>
  );
}
