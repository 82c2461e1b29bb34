import { useEffect, useId, useRef, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog: focus moves into it (the element marked `data-autofocus`, else the first
 * field), Tab stays inside, Escape or a click on the backdrop closes it, and focus goes back to
 * where it was. Rendered into document.body so no page layout clips it.
 */
export function Modal({
  title,
  onClose,
  children,
  testId,
  wide = false,
  tone,
}: {
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  testId: string;
  wide?: boolean;
  /** `danger` marks a destructive confirmation (a red top border). */
  tone?: 'danger';
}) {
  const box = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  });

  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const root = box.current;
    const focusables = () => [...(root?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])];
    const first = root?.querySelector<HTMLElement>('[data-autofocus]') ?? focusables()[0];
    (first ?? root)?.focus();
    // On the document, not the dialog: focus can fall to <body> (a button that becomes disabled
    // while its call runs), and Escape and Tab must still work then.
    const onKey = (e: KeyboardEvent) => {
      if (!root) return;
      if (e.key === 'Escape') {
        e.preventDefault();
        close.current();
        return;
      }
      if (e.key !== 'Tab') return;
      const items = focusables();
      if (items.length === 0) return;
      const head = items[0]!;
      const tail = items.at(-1)!;
      const inside = root.contains(document.activeElement);
      if (!inside || (e.shiftKey && document.activeElement === head)) {
        e.preventDefault();
        (e.shiftKey ? tail : head).focus();
      } else if (!e.shiftKey && document.activeElement === tail) {
        e.preventDefault();
        head.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      if (before && document.contains(before)) before.focus();
    };
  }, []);

  return createPortal(
    <div
      className="modal-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) close.current();
      }}
    >
      <div
        ref={box}
        className={`modal ${wide ? 'modal-wide' : ''} ${tone ? `modal-${tone}` : ''}`.trim()}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        data-testid={testId}
      >
        <header className="modal-head">
          <h2 id={titleId} className="modal-title">
            {title}
          </h2>
          <button
            type="button"
            className="modal-close"
            aria-label="Close"
            title="Close (Esc)"
            onClick={() => close.current()}
            data-testid={`${testId}-close`}
          >
            ×
          </button>
        </header>
        <div className="modal-body">{children}</div>
      </div>
    </div>,
    document.body,
  );
}
