import type { KeyInfo } from '../../electron/contract/schemas/keys';

/**
 * A key picker: every key by kid, alg and status; a kid that is not in the vault (an environment
 * pointing at a deleted key) stays visible so the problem shows.
 */
export function KidSelect({
  id,
  keys,
  value,
  onChange,
  testId,
  describedBy,
}: {
  id: string;
  keys: KeyInfo[];
  value: string;
  onChange: (kid: string) => void;
  testId: string;
  describedBy?: string;
}) {
  const known = keys.some((k) => k.kid === value);
  return (
    <select
      id={id}
      className="input mono"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      aria-describedby={describedBy}
      data-testid={testId}
    >
      {value === '' ? <option value="">choose a key</option> : null}
      {!known && value !== '' ? <option value={value}>{value} · not in this vault</option> : null}
      {keys.map((k) => (
        <option key={k.kid} value={k.kid}>
          {k.kid} · {k.alg} · {k.status}
        </option>
      ))}
    </select>
  );
}
