/**
 * How busy the whole machine was while something ran (Linux `/proc/stat`, every CPU, every
 * process: the bench's children and a database server alike). For benchmarks whose ratio is a
 * scaling figure: a phase that kept the machine's CPUs busy was bounded by them, not by the code.
 */
import { readFileSync } from 'node:fs';

interface CpuTimes {
  busy: number;
  total: number;
}

function cpuTimes(): CpuTimes | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest is counted in user)
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/**
 * Runs `work` and answers its result with the fraction (0..1) of all CPUs busy meanwhile, or
 * null where `/proc/stat` is not readable.
 *
 * @example
 * const { result, busy } = await whileBusy(() => child(script, args));
 */
export async function whileBusy<T>(work: () => Promise<T>): Promise<{ result: T; busy: number | null }> {
  const before = cpuTimes();
  const result = await work();
  const after = cpuTimes();
  if (!before || !after || after.total === before.total) return { result, busy: null };
  return { result, busy: (after.busy - before.busy) / (after.total - before.total) };
}
