import type { InspectReport } from '../../../electron/contract/schemas/inspector';
import { useInspectorStore, type KeyChoice } from './inspector-store';

const CHOICES: Array<{ value: KeyChoice; label: string; testId: string }> = [
  { value: 'none', label: 'No key', testId: 'key-source-none' },
  { value: 'jwks-url', label: 'JWKS URL', testId: 'key-source-jwks-url' },
  { value: 'text', label: 'Paste JWKS / JWK / PEM', testId: 'key-source-text' },
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

  return (
    <fieldset className="field key-source">
      <legend className="field-label">Verification key</legend>
      <div className="segmented" role="radiogroup" aria-label="Key source">
        {CHOICES.map((c) => (
          <label key={c.value} className="segmented-option">
            <input
              type="radio"
              name="key-source"
              value={c.value}
              checked={keyChoice === c.value}
              onChange={() => set({ keyChoice: c.value })}
              data-testid={c.testId}
            />
            <span>{c.label}</span>
          </label>
        ))}
      </div>
      {keyChoice === 'jwks-url' ? (
        <input
          type="url"
          className="input mono"
          aria-label="JWKS URL"
          placeholder="https://…/api/v1/.well-known/jwks.json"
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
            {keys.kids.some((kid) => !keys.description.includes(kid)) ? (
              <>
                {' '}
                · kid{keys.kids.length === 1 ? '' : 's'} <code>{keys.kids.join(', ')}</code>
              </>
            ) : null}
          </span>
        ) : (
          <span className="muted">Public keys only: never paste a private key here.</span>
        )}
      </p>
    </fieldset>
  );
}
