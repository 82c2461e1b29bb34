import { CopyButton } from '../../shared/copy-button';
import { saveTextFile } from '../../shared/download';
import { ErrorPanel } from '../../shared/error-panel';
import { Dialog } from '../../ui/dialog';
import { Segmented } from '../../shared/segmented';
import { useKeysStore } from './keys-store';
import { useKeyExport, type ExportFormat } from '../../data/keys';

const FORMATS: Array<{ value: ExportFormat; label: string; what: string }> = [
  {
    value: 'jwk',
    label: 'JWK',
    what: 'The public JWK with exactly the spec’s fields (alg, e, kid, kty, n, use = sig): what onboarding and the PUT …/jwk body take.',
  },
  {
    value: 'jwks',
    label: 'JWKS',
    what: 'A JWK set {"keys": [ … ]} holding this key, for a JWKS endpoint or file.',
  },
  {
    value: 'pem',
    label: 'PEM',
    what: 'The public key as PEM (SubjectPublicKeyInfo), for tools that want PEM.',
  },
];

/**
 * A key's public part as JWK, JWKS or PEM, with Copy and Save as file. The conversion happens in
 * the console's own core, so no bank ever pastes a key into a website to convert it.
 */
export function ExportDialog({ kid }: { kid: string }) {
  const close = useKeysStore((s) => s.close);
  const format = useKeysStore((s) => s.exportFormat);
  const setFormat = useKeysStore((s) => s.setExportFormat);
  const exported = useKeyExport(kid, format);
  const data = exported.data;
  const what = FORMATS.find((f) => f.value === format)!.what;

  return (
    <Dialog
      title={
        <>
          Export public key <code>{kid}</code>
        </>
      }
      onClose={close}
      testId="export-dialog"
      wide
    >
      <Segmented
        label="Format"
        name="export-format"
        options={FORMATS}
        value={format}
        onChange={setFormat}
        autoFocusChecked
      />
      <p className="muted dialog-note">{what}</p>
      {exported.error ? (
        <ErrorPanel title="Export failed" error={exported.error} testId="export-error" />
      ) : data ? (
        <>
          <pre className="export-text" data-testid="export-text" data-format={format}>
            {data.text}
          </pre>
          <div className="form-actions export-actions">
            <span className="muted export-note">
              Public part only. Converted on this machine: never paste a key into a website to convert it.
            </span>
            <CopyButton text={() => data.text} testId="export-copy" />
            <button
              type="button"
              className="btn btn-small"
              onClick={() => saveTextFile(data.text, data.filename, data.mime)}
              title={`Save as ${data.filename}`}
              data-testid="export-save"
            >
              Save as {data.filename}
            </button>
          </div>
        </>
      ) : (
        <p className="muted">Exporting…</p>
      )}
    </Dialog>
  );
}
