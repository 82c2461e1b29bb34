import { useEffect, useRef, useState } from 'react';

/**
 * `value`, changing at most once per `ms`: the first value at once, then the latest one at the end
 * of each interval. For what a live list derives from all it holds (a histogram, a count in words),
 * which 2,000 arrivals a second would otherwise recompute and re-lay out every frame (issue 13
 * item 9); the list itself stays per frame.
 */
export function useThrottledValue<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    if (Object.is(value, shown)) return;
    const wait = last.current + ms - Date.now();
    const apply = () => {
      last.current = Date.now();
      setShown(() => value);
    };
    if (wait <= 0) {
      apply();
      return;
    }
    const timer = setTimeout(apply, wait);
    return () => clearTimeout(timer);
  }, [value, shown, ms]);
  return shown;
}
