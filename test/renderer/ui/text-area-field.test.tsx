// @vitest-environment jsdom
/**
 * TextAreaField (renderer/ui/text-area-field.tsx): its label names the textarea, the textarea
 * points at the field's note, is invalid only while an error shows, and hands back the text.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { TextAreaField } from '../../../renderer/ui/text-area-field';

afterEach(() => cleanup());

describe('TextAreaField', () => {
  it('wires label, note and error, and hands back the plain text', () => {
    const seen: string[] = [];
    const { rerender } = render(
      <TextAreaField
        id="t-jwk"
        label="Public JWK"
        className="t-wide"
        rows={3}
        value=""
        onChange={(v) => seen.push(v)}
      />,
    );
    const area = screen.getByLabelText('Public JWK');
    expect(area.tagName).toBe('TEXTAREA');
    expect(area.className).toBe('input mono t-wide');
    expect(area.getAttribute('data-testid')).toBe('t-jwk');
    expect(area.getAttribute('aria-describedby')).toBe('t-jwk-note');
    expect(area.getAttribute('aria-invalid')).toBeNull();
    fireEvent.change(area, { target: { value: '{"kty":"RSA"}' } });
    expect(seen).toEqual(['{"kty":"RSA"}']);

    rerender(
      <TextAreaField id="t-jwk" label="Public JWK" value="x" onChange={() => undefined} error="Not JSON" />,
    );
    expect(screen.getByLabelText('Public JWK').getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById('t-jwk-note')?.textContent).toBe('Not JSON');
  });
});
