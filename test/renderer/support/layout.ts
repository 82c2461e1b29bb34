import { afterEach, beforeEach } from 'vitest';

/**
 * jsdom has no layout: gives every element a 800 × 600 client box for the test file that calls
 * this, so a virtualized list sees a viewport and renders the rows in it.
 */
export function useFakeViewport(): void {
  const saved = {
    clientHeight: Object.getOwnPropertyDescriptor(Element.prototype, 'clientHeight')!,
    clientWidth: Object.getOwnPropertyDescriptor(Element.prototype, 'clientWidth')!,
  };
  beforeEach(() => {
    Object.defineProperty(Element.prototype, 'clientHeight', { configurable: true, get: () => 600 });
    Object.defineProperty(Element.prototype, 'clientWidth', { configurable: true, get: () => 800 });
  });
  afterEach(() => {
    Object.defineProperty(Element.prototype, 'clientHeight', saved.clientHeight);
    Object.defineProperty(Element.prototype, 'clientWidth', saved.clientWidth);
  });
}
