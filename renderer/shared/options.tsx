/** The `<option>`s of a `<select>` whose values are also what it shows. */
export function Options({ values }: { values: readonly (string | number)[] }) {
  return (
    <>
      {values.map((v) => (
        <option key={v} value={v}>
          {v}
        </option>
      ))}
    </>
  );
}
