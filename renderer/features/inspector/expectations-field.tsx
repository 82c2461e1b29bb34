import { useInspectorStore } from './inspector-store';

/** Optional obj/sub the token must carry (the values the bank sent, spec 5). */
export function ExpectationsField() {
  const expectedObj = useInspectorStore((s) => s.expectedObj);
  const expectedSub = useInspectorStore((s) => s.expectedSub);
  const set = useInspectorStore((s) => s.set);
  return (
    <fieldset className="field expectations">
      <legend className="field-label">
        Expected claims <span className="field-hint">optional</span>
      </legend>
      <div className="expectations-grid">
        <label className="inline-field" title="obj: the customer acted on (an IBAN or a phone number)">
          <code>obj</code>
          <input
            className="input mono"
            placeholder="IBAN or phone"
            value={expectedObj}
            onChange={(e) => set({ expectedObj: e.target.value })}
            spellCheck={false}
            data-testid="expected-obj-input"
          />
        </label>
        <label
          className="inline-field"
          title="sub: who initiates the operation (an employee or a technical user)"
        >
          <code>sub</code>
          <input
            className="input mono"
            placeholder="employee or tech user"
            value={expectedSub}
            onChange={(e) => set({ expectedSub: e.target.value })}
            spellCheck={false}
            data-testid="expected-sub-input"
          />
        </label>
      </div>
    </fieldset>
  );
}
