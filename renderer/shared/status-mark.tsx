/** The statuses a check or a step can have, everywhere in the UI. */
export type Status = 'passed' | 'failed' | 'skipped' | 'info';

export const STATUS_MARKS: Record<Status, { icon: string; word: string }> = {
  passed: { icon: '✓', word: 'passed' },
  failed: { icon: '✗', word: 'failed' },
  skipped: { icon: '–', word: 'skipped' },
  info: { icon: 'i', word: 'info' },
};

/** A status as an icon and a word, in its colour: readable without colour and by screen readers. */
export function StatusMark({
  status,
  word,
  className = '',
}: {
  status: Status;
  /** Another word for the status where it reads better ("ok" for a whole trace). */
  word?: string;
  className?: string;
}) {
  const mark = STATUS_MARKS[status];
  return (
    <span className={`status-mark status-${status} ${className}`.trimEnd()}>
      <span className="status-mark-icon" aria-hidden="true">
        {mark.icon}
      </span>
      {word ?? mark.word}
    </span>
  );
}
