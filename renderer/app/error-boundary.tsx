import { Component, type ErrorInfo, type ReactNode } from 'react';
import { ConsoleError } from '../../electron/contract';

interface Props {
  /** When this changes (e.g. the page id), a caught error is cleared. */
  resetKey: string;
  children: ReactNode;
}

interface State {
  error: Error | null;
  resetKey: string;
}

/** Keeps a page's rendering bug inside that page: the shell, nav and status stay usable. */
export class PageErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.resetKey !== state.resetKey ? { error: null, resetKey: props.resetKey } : null;
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('page crashed', error, info.componentStack);
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <div className="page-crash" role="alert" data-testid="page-error">
        <h2>This page hit a bug</h2>
        <p>
          {error instanceof ConsoleError ? <code>{error.code}</code> : null} {error.message}
        </p>
        <p className="muted">The rest of the console still works. Your input on this page is kept.</p>
        <button
          type="button"
          className="btn"
          data-testid="page-error-retry"
          onClick={() => this.setState({ error: null })}
        >
          Try again
        </button>
      </div>
    );
  }
}
