// @vitest-environment jsdom
/**
 * DraftFields (renderer/ui/draft-fields.tsx): each row edits its own draft key, a select's
 * `parse` gives the draft its type back, errors land under the field they name, and `autofocus`
 * marks the input the dialog focuses first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { DraftFields, type FieldSpec } from '../../../renderer/ui/draft-fields';

afterEach(() => cleanup());

interface Draft {
  kid: string;
  bits: number;
  alg: '' | 'RS256' | 'PS256';
}

const SPECS: readonly FieldSpec<Draft>[] = [
  { key: 'kid', id: 't-kid', label: 'kid', mono: true, autofocus: true },
  { key: 'bits', id: 't-bits', label: 'Bits', values: [2048, 4096], parse: Number },
  { key: 'alg', id: 't-alg', label: 'Algorithm', values: ['RS256', 'PS256'], empty: 'from the key' },
];

describe('DraftFields', () => {
  it('shows the draft, patches only the edited key with its parsed value, and places errors', () => {
    const patches: Partial<Draft>[] = [];
    render(
      <DraftFields
        specs={SPECS}
        draft={{ kid: 'k1', bits: 2048, alg: '' }}
        edit={(p) => patches.push(p)}
        errorFor={(f) => (f === 'kid' ? 'is taken' : undefined)}
      />,
    );
    const kid = screen.getByLabelText('kid') as HTMLInputElement;
    expect(kid.value).toBe('k1');
    expect(kid.hasAttribute('data-autofocus')).toBe(true);
    expect(kid.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByTestId('t-kid-error').textContent).toBe('is taken');
    expect((screen.getByLabelText('Bits') as HTMLSelectElement).value).toBe('2048');
    expect(screen.getByLabelText('Algorithm').hasAttribute('data-autofocus')).toBe(false);

    fireEvent.change(kid, { target: { value: 'k2' } });
    fireEvent.change(screen.getByLabelText('Bits'), { target: { value: '4096' } });
    fireEvent.change(screen.getByLabelText('Algorithm'), { target: { value: 'PS256' } });
    expect(patches).toEqual([{ kid: 'k2' }, { bits: 4096 }, { alg: 'PS256' }]);
  });
});
