// @vitest-environment jsdom
/**
 * The Inspector's advice column (issue 26 item 6): at 1440 px its text sat in the checks' 72 px
 * column (advice rows have no status mark) and broke words mid-word. The page's own stylesheet
 * (renderer/shared/report.css) is applied here as the bundle applies it, and the cascade read
 * back: two columns, the text at least 20rem wide, words wrapped between words only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { AdviceList, ChecksList } from '../../../renderer/shared/report-views';

const css = fs.readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), '../../../renderer/shared/report.css'),
  'utf8',
);

let style: HTMLStyleElement;
beforeEach(() => {
  style = document.createElement('style');
  style.textContent = css;
  document.head.append(style);
});
afterEach(() => {
  cleanup();
  style.remove();
});

const ADVICE = {
  id: 'lifetime' as const,
  level: 'warning' as const,
  title: 'Lifetime longer than the service allows',
  detail: 'exp - iat is 86400 seconds: the service refuses lifetimes over 3600 seconds (spec 2.4).',
};

describe('the advice column', () => {
  it('lays an advice row out in two columns, its text at least 20rem, never breaking a word', () => {
    render(<AdviceList advice={[ADVICE]} />);
    const row = screen.getByTestId('advice-lifetime');
    // The id and the text are the row's only grid items: the text is the second column.
    expect([...row.children].map((c) => c.className)).toEqual(['check-id', 'check-body']);
    expect(getComputedStyle(row).gridTemplateColumns).toBe('max-content minmax(20rem, 1fr)');
    const detail = row.querySelector('.check-detail')!;
    const title = row.querySelector('.check-title')!;
    for (const el of [detail, title]) {
      expect(getComputedStyle(el).overflowWrap).toBe('normal');
      expect(getComputedStyle(el).wordBreak).toBe('normal');
    }
    expect(detail.textContent).toBe(ADVICE.detail);
  });

  it('leaves the checks’ own three columns (mark, id, text) as they were', () => {
    render(<ChecksList checks={[{ id: 'exp', title: 'Expiry', status: 'passed', detail: 'in 5 min' }]} />);
    const row = screen.getByTestId('check-exp');
    expect(getComputedStyle(row).gridTemplateColumns).toBe('84px 72px minmax(0, 1fr)');
  });
});
