/**
 * A value to copy: the value in code (whole on hover, the `title`, when a cell or line cuts it)
 * and its Copy button beside it. Pages repeated this pair for URLs, GUIDs and commands.
 */
import { CopyButton } from '../shared/copy-button';

/**
 * @example
 * <CopyField value={url} testId="sandbox-url" copyTestId="copy-sandbox-url" />
 */
export function CopyField({
  value,
  testId,
  copyTestId,
  label,
}: {
  value: string;
  /** `data-testid` of the shown value. */
  testId?: string;
  /** `data-testid` of the button. */
  copyTestId: string;
  /** The button's label ("Copy" unless told). */
  label?: string;
}) {
  return (
    <>
      <code data-testid={testId} title={value}>
        {value}
      </code>{' '}
      <CopyButton text={() => value} label={label} testId={copyTestId} />
    </>
  );
}
