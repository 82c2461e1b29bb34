// @vitest-environment jsdom
/**
 * The field primitives (renderer/ui/text-field.tsx, select-field.tsx, toggle.tsx, copy-field.tsx):
 * a field's label names its control, an error marks the control invalid and is read from the
 * note the control points at, and each control hands back the plain value.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { TextField } from '../../../renderer/ui/text-field';
import { SelectField } from '../../../renderer/ui/select-field';
import { Toggle } from '../../../renderer/ui/toggle';
import { CopyField } from '../../../renderer/ui/copy-field';

afterEach(() => cleanup());

describe('TextField', () => {
  it('labels its input, points it at the note, and marks it invalid only while an error shows', () => {
    const seen: string[] = [];
    const { rerender } = render(
      <TextField id="f-obj" label="obj" value="" onChange={(v) => seen.push(v)} mono />,
    );
    const input = screen.getByLabelText('obj');
    expect(input.getAttribute('data-testid')).toBe('f-obj');
    expect(input.getAttribute('aria-describedby')).toBe('f-obj-note');
    expect(input.getAttribute('aria-invalid')).toBeNull();
    expect(input.className).toBe('input mono');
    fireEvent.change(input, { target: { value: 'DE89' } });
    expect(seen).toEqual(['DE89']);

    rerender(<TextField id="f-obj" label="obj" value="" onChange={() => undefined} error="is required" />);
    expect(screen.getByLabelText('obj').getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById('f-obj-note')?.textContent).toBe('is required');
    expect(screen.getByTestId('f-obj-error').textContent).toBe('is required');
  });
});

describe('SelectField', () => {
  it('offers the values after an optional empty choice and hands back the chosen string', () => {
    const seen: string[] = [];
    render(
      <SelectField
        id="f-alg"
        label="Algorithm"
        value=""
        values={['RS256', 'PS256']}
        empty="from the key"
        onChange={(v) => seen.push(v)}
      />,
    );
    const select = screen.getByLabelText('Algorithm') as HTMLSelectElement;
    expect([...select.options].map((o) => [o.value, o.textContent])).toEqual([
      ['', 'from the key'],
      ['RS256', 'RS256'],
      ['PS256', 'PS256'],
    ]);
    fireEvent.change(select, { target: { value: 'PS256' } });
    expect(seen).toEqual(['PS256']);
  });
});

describe('Toggle and CopyField', () => {
  it('a toggle is a labelled checkbox giving its new state', () => {
    const seen: boolean[] = [];
    render(
      <Toggle checked={false} onChange={(v) => seen.push(v)} testId="t">
        Failed only
      </Toggle>,
    );
    fireEvent.click(screen.getByLabelText('Failed only'));
    expect(seen).toEqual([true]);
  });

  it('a copy field shows the whole value on hover beside its button', () => {
    render(<CopyField value="http://127.0.0.1:7301/auth" testId="v" copyTestId="v-copy" label="Copy URL" />);
    expect(screen.getByTestId('v').getAttribute('title')).toBe('http://127.0.0.1:7301/auth');
    expect(screen.getByTestId('v-copy').textContent).toContain('Copy URL');
  });
});
