import { CutValue } from '../../shared/cut-value';
import { Segmented } from '../../shared/segmented';
import type { InspectReport } from '../../../electron/contract/schemas/inspector';
import { JWKS_PATH } from '../../../electron/contract/schemas/service-paths';
import { useActiveEnvironment } from '../../data/environments';
import { useInspectorStore, type KeyChoice } from './inspector-store';

const CHOICES: Array<{ value: KeyChoice; label: string }> = [
  { value: 'none', label: 'No key' },
  { value: 'jwks-url', label: 'JWKS URL' },
  { value: 'text', label: 'Paste JWKS / JWK / PEM' },
];

/** Where the signature check takes its public keys: none, a JWKS URL, or pasted key text. */
export function KeySourceField({
  keyProblem,
  keys,
}: {
  keyProblem: string | null;
  keys: InspectReport['keys'] | undefined;
}) {
  const keyChoice = useInspectorStore((s) => s.keyChoice);
  const keyUrl = useInspectorStore((s) => s.keyUrl);
  const keyText = useInspectorStore((s) => s.keyText);
  const set = useInspectorStore((s) => s.set);
  // The JWKS URL starts as the active environment's (issue 13 item 6), until the engineer types one.
  const envJwksUrl = useActiveEnvironment()?.effective_jwks_url ?? '';
  const choose = (v: KeyChoice) =>
    set(v === 'jwks-url' && keyUrl.trim() === '' ? { keyChoice: v, keyUrl: envJwksUrl } : { keyChoice: v });

  return (
    <fieldset className="field key-source">
      <legend className="field-label">Verification key</legend>
      <Segmented
        label="Key source"
        name="key-source"
        options={CHOICES}
        value={keyChoice}
        onChange={choose}
        testIdPrefix="key-source-"
      />
      {keyChoice === 'jwks-url' ? (
        <input
          type="url"
          className="input mono"
          aria-label="JWKS URL"
          placeholder={`https://…${JWKS_PATH}`}
          value={keyUrl}
          onChange={(e) => set({ keyUrl: e.target.value })}
          spellCheck={false}
          data-testid="key-url-input"
        />
      ) : null}
      {keyChoice === 'text' ? (
        <textarea
          className="input mono key-text"
          aria-label="Public key: JWKS, JWK or PEM"
          placeholder={'{"keys":[…]}  or  {"kty":"RSA",…}  or  -----BEGIN PUBLIC KEY-----'}
          rows={5}
          value={keyText}
          onChange={(e) => set({ keyText: e.target.value })}
          spellCheck={false}
          data-testid="key-text-input"
        />
      ) : null}
      <p className="field-note" data-testid="key-note">
        {keyProblem ? (
          <span className="text-warn">{keyProblem}</span>
        ) : keyChoice !== 'none' && keys?.error ? (
          <span className="text-fail" data-testid="key-error">
            Key not usable: {keys.error}
          </span>
        ) : keyChoice === 'none' ? (
          <span className="muted">Without a key the signature check is skipped.</span>
        ) : keys && keys.source !== 'none' ? (
          <span className="muted">
            Using {keys.description}
            {keys.kids.length > 0 ? (
              // Issue 26 item 6: each kid whole on hover and copyable, however narrow the column.
              <span className="key-kids" data-testid="key-kids">
                {' '}
                · kid{keys.kids.length === 1 ? '' : 's'}{' '}
                {keys.kids.map((kid) => (
                  <CutValue key={kid} value={kid} what="kid" testId="key-kid" />
                ))}
              </span>
            ) : null}
          </span>
        ) : (
          <span className="muted">Public keys only: never paste a private key here.</span>
        )}
      </p>
    </fieldset>
  );
}
