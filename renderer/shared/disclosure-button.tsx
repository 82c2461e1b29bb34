import type { ReactNode } from 'react';

/**
 * The head of an expandable item: a button with a ▸/▾ caret that shows or hides the element
 * `controls` names; the rest of the head is its children.
 */
export function DisclosureButton({
  expanded,
  controls,
  onToggle,
  className,
  testId,
  children,
}: {
  expanded: boolean;
  /** The id of the element it shows and hides. */
  controls: string;
  onToggle: () => void;
  className: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      className={className}
      aria-expanded={expanded}
      aria-controls={controls}
      onClick={onToggle}
      data-testid={testId}
    >
      <span className="disclosure-caret" aria-hidden="true">
        {expanded ? '▾' : '▸'}
      </span>
      {children}
    </button>
  );
}
