import { useEffect, useState } from 'react';

type CopyState = 'idle' | 'copied' | 'failed';

/** A small "Copy" button with feedback; `text` is computed on click. */
export function CopyButton({
  text,
  label = 'Copy',
  testId,
  ariaLabel,
}: {
  text: () => string;
  label?: string;
  testId: string;
  /** What a screen reader hears when the label alone says too little ("Copy kid 54321"). */
  ariaLabel?: string;
}) {
  const [state, setState] = useState<CopyState>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 1500);
    return () => clearTimeout(t);
  }, [state]);
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text());
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button
      type="button"
      className={`btn btn-small btn-copy copy-${state}`}
      data-testid={testId}
      onClick={copy}
      aria-live="polite"
      {...(ariaLabel ? { 'aria-label': ariaLabel, title: ariaLabel } : {})}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
    </button>
  );
}
