// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import type { CaseResult } from '../../../../electron/contract/schemas/conformance';
import { CaseList } from '../../../../renderer/features/conformance/case-list';

afterEach(() => cleanup());

function result(over: Partial<CaseResult> & { id: string }): CaseResult {
  return {
    title: 'GET /user_auth: a valid X-Session-ID is answered 200 with JSON user data',
    status: 'passed',
    detail: 'sent a valid X-Session-ID; got 200 in 4 ms',
    route: '/user_auth',
    spec: '2.5, 4.2, 8',
    duration_ms: 4,
    exchanges: [],
    ...over,
  };
}

describe('CaseList', () => {
  it('names the answer check a valid case failed (the one answer judge), in its own words', () => {
    render(
      <CaseList
        cases={[
          result({
            id: 'user_auth.valid',
            status: 'failed',
            failed_check: 'phone',
            detail:
              'sent a valid X-Session-ID; got 200 in 4 ms; expected 200 with JSON {…}: phone failed: phone missing',
          }),
          result({ id: 'key.valid', failed_check: null }),
        ]}
      />,
    );
    const [failed, passed] = screen.getAllByTestId('conformance-case');
    expect(within(failed!).getByTestId('conformance-case-check').textContent).toBe('failed at phone');
    expect(within(failed!).getByTestId('conformance-case-detail').textContent).toContain(
      'phone failed: phone missing',
    );
    expect(within(passed!).queryByTestId('conformance-case-check')).toBeNull();
  });
});
