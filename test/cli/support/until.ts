/**
 * Polls `probe` until it returns a value other than undefined, every `everyMs`, at most
 * `tries` times (a bounded loop: the bound is generous and is not what the test asserts).
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  { tries = 240, everyMs = 250 }: { tries?: number; everyMs?: number } = {},
): Promise<T> {
  let last: unknown;
  for (let i = 0; i < tries; i++) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`gave up waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
}

/** True while the process `pid` exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
