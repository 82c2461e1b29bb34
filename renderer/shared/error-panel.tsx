import type { ReactNode } from 'react';
import { ConsoleError } from '../../electron/contract';

/** A failed call, in place: what failed, the error's code and its message. */
export function ErrorPanel({
  title,
  error,
  testId,
  children,
}: {
  title: string;
  error: Error;
  testId: string;
  children?: ReactNode;
}) {
  const code = error instanceof ConsoleError ? error.code : 'INTERNAL';
  return (
    <div className="error-panel" role="alert" data-testid={testId} data-code={code}>
      <strong>
        {title} <code>{code}</code>
      </strong>
      <p>{error.message}</p>
      {children}
    </div>
  );
}
