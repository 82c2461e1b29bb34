import { useEffect, useState } from 'react';

/** `value`, once it has stopped changing for `ms` milliseconds (the first value at once). */
export function useDebouncedValue<T>(value: T, ms: number, isEqual: (a: T, b: T) => boolean = Object.is): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    if (isEqual(value, settled)) return;
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, settled, ms, isEqual]);
  return settled;
}
