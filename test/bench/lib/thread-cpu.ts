/**
 * A server child's CPU time by thread, from /proc/<pid>/task/<tid>/stat (Linux): the main thread
 * (tid = pid), the event store's writer and its checkpointer (`dets-writer`, `dets-checkpoint`,
 * store/writer-worker.ts), and the rest
 * (V8's GC helpers, libuv's pool), so the bench can say where a request's CPU goes. Ticks are
 * USER_HZ (100 on Linux): over a round of thousands of requests the split is exact to a few
 * percent. Null where /proc cannot be read (not Linux, or the child has exited).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { CHECKPOINT_THREAD_NAME, WRITER_THREAD_NAME } from '../../../electron/core/store/writer-protocol';

export interface ThreadCpu {
  main: number;
  writer: number;
  other: number;
}

const TICK_US = 1_000_000 / 100;

/** CPU µs so far by thread group; null when /proc/<pid>/task is unreadable. */
export function threadCpu(pid: number): ThreadCpu | null {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  const out: ThreadCpu = { main: 0, writer: 0, other: 0 };
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // After "pid (comm) ": state is field 3, utime field 14, stime field 15 (proc(5)).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const us = (Number(fields[11]) + Number(fields[12])) * TICK_US;
    if (tid === String(pid)) out.main += us;
    else if (comm === WRITER_THREAD_NAME || comm === CHECKPOINT_THREAD_NAME) out.writer += us;
    else out.other += us;
  }
  return out;
}

/** `after − before` per request, as "main X, writer Y, other Z µs/req". */
export function formatThreadSplit(before: ThreadCpu, after: ThreadCpu, requests: number): string {
  const per = (k: keyof ThreadCpu) => ((after[k] - before[k]) / Math.max(1, requests)).toFixed(1);
  return `main thread ${per('main')}, writer threads ${per('writer')}, other threads ${per('other')} µs/req`;
}

/** Each listed server's threads now (those /proc cannot read are left out). */
export function snapshotThreads(
  servers: ReadonlyMap<string, { pid: number }>,
  ids: readonly string[],
): Map<string, ThreadCpu> {
  const out = new Map<string, ThreadCpu>();
  for (const id of ids) {
    const s = servers.get(id);
    const t = s ? threadCpu(s.pid) : null;
    if (t) out.set(id, t);
  }
  return out;
}

/**
 * One line per snapshotted server: its CPU by thread since `before`, per response of its
 * warm-up and rounds (the settling after each is in the time, as in CPU µs/req).
 */
export function threadSplits(
  servers: ReadonlyMap<string, { pid: number }>,
  before: ReadonlyMap<string, ThreadCpu>,
  runs: readonly { id: string; warmup: { responses: number }; rounds: readonly { responses: number }[] }[],
): string[] {
  const lines: string[] = [];
  for (const [id, b] of before) {
    const s = servers.get(id);
    const a = s ? threadCpu(s.pid) : null;
    const run = runs.find((r) => r.id === id);
    if (!a || !run) continue;
    const n = run.warmup.responses + run.rounds.reduce((sum, r) => sum + r.responses, 0);
    lines.push(`${id} CPU by thread over warm-up and rounds: ${formatThreadSplit(b, a, n)}`);
  }
  return lines;
}
