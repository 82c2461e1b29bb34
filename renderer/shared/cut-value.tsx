/**
 * A value the layout may cut (a kid, a path, a URL: issue 26 item 6, "kids and paths are cut at
 * 1440 px"): one line with an ellipsis, its whole value on hover (`title`) and a copy button
 * beside it, so a cut value is never lost to the reader.
 */
import { CopyButton } from './copy-button';

/**
 * @example
 * <CutValue value={k.kid} what="kid" testId="key-kid" />
 */
export function CutValue({ value, what, testId }: { value: string; what: string; testId: string }) {
  return (
    <span className="cut-value">
      <code className="text-cut" title={value} data-testid={testId}>
        {value}
      </code>
      <CopyButton
        text={() => value}
        label="⧉"
        ariaLabel={`Copy ${what} ${value}`}
        testId={`${testId}-copy`}
      />
    </span>
  );
}
