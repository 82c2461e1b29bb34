import type { KeyInfo } from '../../../electron/contract/schemas/keys';
import type { MethodInput } from '../../../electron/contract';
import type { SignedJwt } from '../../../electron/contract/schemas/service';
import { CopyButton } from '../../shared/copy-button';
import { DataTable, textColumn, type Column } from '../../ui/data-table';
import { formatLocal } from '../../shared/format';
import { openInInspector } from '../../shared/inspector-handoff';
import { useKeys } from '../../data/keys';
import { useComposerStore, type ComposedToken } from './composer-store';

/** What the history keeps of one signing: the public token and how it was asked for. */
export function historyEntry(
  signed: SignedJwt,
  input: MethodInput<'jwt.sign'>,
  environmentId: string,
): ComposedToken {
  const exp = signed.payload.exp;
  return {
    token: signed.token,
    header_line: signed.header_line,
    curl: signed.curl,
    environment_id: environmentId,
    kid: input.kid,
    obj: input.obj,
    sub: input.sub,
    at: new Date().toISOString(),
    exp: typeof exp === 'number' ? exp : null,
  };
}

/**
 * Hands a composed token to the Inspector with what judges it: the signing key's public JWK
 * (when the vault still holds the key) and the obj/sub it was signed for.
 */
export function openTokenInInspector(
  t: { token: string; kid: string; obj: string; sub: string },
  keys: readonly KeyInfo[],
): void {
  const publicJwk = keys.find((k) => k.kid === t.kid)?.public_jwk;
  openInInspector({
    token: t.token,
    ...(publicJwk ? { keyText: JSON.stringify(publicJwk, null, 2) } : {}),
    expectedObj: t.obj,
    expectedSub: t.sub,
  });
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function historyColumns(now: number): Array<Column<ComposedToken>> {
  return [
    { header: 'Signed', cell: (t) => formatLocal(t.at), cellProps: () => ({ className: 'mono' }) },
    textColumn('Environment', (t) => t.environment_id),
    textColumn('Key', (t) => t.kid, { mono: true }),
    textColumn('obj', (t) => t.obj, { mono: true, testId: 'composer-history-obj' }),
    textColumn('sub', (t) => t.sub, { mono: true, testId: 'composer-history-sub' }),
    {
      header: 'Expiry',
      cell: (t) =>
        t.exp === null ? '—' : t.exp <= now ? <span className="text-warn">expired</span> : 'valid',
    },
  ];
}

/** The tokens signed here, newest first, each ready to copy again or to inspect. */
export function ComposerHistory() {
  const history = useComposerStore((s) => s.history);
  const clearHistory = useComposerStore((s) => s.clearHistory);
  const keys = useKeys().data ?? [];
  if (history.length === 0) return null;
  const now = nowSeconds();
  return (
    <section
      className="panel composer-history"
      aria-labelledby="composer-history-title"
      data-testid="composer-history"
    >
      <h2 id="composer-history-title" className="panel-title">
        History
        <span className="panel-note">{history.length} signed, newest first (kept in this browser)</span>
        <span className="panel-spacer" />
        <button
          type="button"
          className="btn btn-small"
          onClick={clearHistory}
          data-testid="composer-history-clear"
        >
          Clear history
        </button>
      </h2>
      <DataTable
        rows={history}
        rowKey={(t) => t.token}
        columns={historyColumns(now)}
        className="composer-history-table"
        actionsLabel="Actions"
        rowProps={() => ({ 'data-testid': 'composer-history-row' })}
        actions={(t, i) => (
          <>
            <CopyButton text={() => t.token} label="Copy token" testId={`history-copy-token-${i}`} />
            <CopyButton text={() => t.header_line} label="Copy header" testId={`history-copy-header-${i}`} />
            {t.curl !== null ? (
              <CopyButton text={() => t.curl ?? ''} label="Copy curl" testId={`history-copy-curl-${i}`} />
            ) : null}
            <button
              type="button"
              className="btn btn-small"
              onClick={() => openTokenInInspector(t, keys)}
              data-testid={`history-open-inspector-${i}`}
            >
              Open in Inspector
            </button>
          </>
        )}
      />
    </section>
  );
}
