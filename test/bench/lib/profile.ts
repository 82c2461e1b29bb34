/**
 * Where a server child's main thread spent its time, from a V8 .cpuprofile (node --cpu-prof):
 * self time grouped by area (a source file of the bundle, an npm package, a Node internal module,
 * GC, idle) and by function, plus inclusive time per function. Bundled code is attributed to its
 * TypeScript source through the `// path/to/file.ts` comments esbuild writes before each module.
 *
 * Only the main thread is sampled: work done in libuv's thread pool (async crypto.sign, WebCrypto)
 * shows as "(idle)" here, which is itself a finding worth reading.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileLine {
  name: string;
  selfMs: number;
  selfPct: number;
  /** Inclusive time (self + callees), for functions only. */
  totalMs?: number;
  totalPct?: number;
}

export interface ProfileSummary {
  file: string;
  /** Sampled wall time of the main thread. */
  totalMs: number;
  /** Busy = not idle. */
  busyMs: number;
  areas: ProfileLine[];
  functions: ProfileLine[];
  /** Inclusive time of the heaviest non-trivial functions (request handlers and what they call). */
  inclusive: ProfileLine[];
}

/** Source-file markers of an esbuild bundle: [0-based line, path] sorted by line. */
export function bundleMarkers(bundleText: string): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  bundleText.split('\n').forEach((line, i) => {
    const m = /^\/\/ ((?:[\w.@-]+\/)*[\w.@-]+\.(?:ts|tsx|js|mjs|cjs))$/.exec(line);
    if (m) out.push([i, m[1]!]);
  });
  return out;
}

function sourceOf(markers: Array<[number, string]>, line: number): string | undefined {
  let lo = 0;
  let hi = markers.length - 1;
  let found: string | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [l, path] = markers[mid]!;
    if (l <= line) {
      found = path;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The area a call frame belongs to. */
export function areaOf(frame: CallFrame, bundles: Map<string, Array<[number, string]>>): string {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName.startsWith('(')) return functionName; // (idle), (program), (garbage collector), (root)
    return 'native (V8 builtins, C++ bindings)';
  }
  const nm = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (nm) return `npm ${nm[1]}`;
  if (url.startsWith('node:')) {
    const parts = url.slice(5).split('/');
    return `node:${parts.slice(0, parts[0] === 'internal' ? 2 : 1).join('/')}`;
  }
  const markers = bundles.get(url);
  if (markers) return sourceOf(markers, frame.lineNumber) ?? 'bundle (runtime helpers)';
  return url.replace(/^file:\/\//, '');
}

function frameName(frame: CallFrame, area: string, inBundle: boolean): string {
  const fn = frame.functionName || '(anonymous)';
  if (!frame.url) return fn;
  const line = frame.lineNumber + 1;
  if (inBundle) return `${fn}  [${area}, bundle line ${line}]`;
  const nm = frame.url.lastIndexOf('/node_modules/');
  const where = nm >= 0 ? frame.url.slice(nm + '/node_modules/'.length) : frame.url.replace(/^file:\/\//, '');
  return `${fn}  [${where}:${line}]`;
}

/**
 * Summarizes a profile. `bundleFiles` maps a script URL in the profile (file:///…/x.mjs) to the
 * bundle's text, for source attribution.
 */
export function summarizeProfile(
  profile: CpuProfile,
  opts: { file?: string; bundleFiles?: Map<string, string>; top?: number } = {},
): ProfileSummary {
  const top = opts.top ?? 15;
  const bundles = new Map<string, Array<[number, string]>>();
  for (const [url, text] of opts.bundleFiles ?? []) bundles.set(url, bundleMarkers(text));

  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time since the previous sample; charge it to samples[i - 1]'s node.
  for (let i = 1; i < profile.samples.length; i++) {
    const id = profile.samples[i - 1]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let totalUs = 0;
  for (const v of selfUs.values()) totalUs += v;
  const pct = (us: number) => (totalUs > 0 ? (100 * us) / totalUs : 0);

  const areaUs = new Map<string, number>();
  const fnUs = new Map<string, number>();
  const nodeArea = new Map<number, string>();
  const nodeFn = new Map<number, string>();
  for (const n of profile.nodes) {
    const area = areaOf(n.callFrame, bundles);
    nodeArea.set(n.id, area);
    nodeFn.set(n.id, frameName(n.callFrame, area, bundles.has(n.callFrame.url)));
    const us = selfUs.get(n.id) ?? 0;
    if (us === 0) continue;
    areaUs.set(area, (areaUs.get(area) ?? 0) + us);
    fnUs.set(nodeFn.get(n.id)!, (fnUs.get(nodeFn.get(n.id)!) ?? 0) + us);
  }

  // Inclusive time per function name, counting a recursive function once per stack.
  const inclUs = new Map<string, number>();
  const root = profile.nodes[0];
  const walk = (id: number, onStack: Set<string>): number => {
    const node = byId.get(id);
    if (!node) return 0;
    let sum = selfUs.get(id) ?? 0;
    const name = nodeFn.get(id)!;
    const fresh = !onStack.has(name);
    if (fresh) onStack.add(name);
    for (const c of node.children ?? []) sum += walk(c, onStack);
    if (fresh) {
      onStack.delete(name);
      inclUs.set(name, (inclUs.get(name) ?? 0) + sum);
    }
    return sum;
  };
  if (root) walk(root.id, new Set());

  const lines = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({ name, selfMs: us / 1000, selfPct: pct(us) }));
  const idleUs = [...areaUs.entries()].filter(([a]) => a === '(idle)').reduce((s, [, v]) => s + v, 0);
  const trivial =
    /^\((root|program|idle|garbage collector)\)$|^(processTicksAndRejections|listOnTimeout|processTimers|runMicrotasks)\b/;
  return {
    file: opts.file ?? '',
    totalMs: totalUs / 1000,
    busyMs: (totalUs - idleUs) / 1000,
    areas: lines(areaUs).slice(0, top),
    functions: lines(fnUs).slice(0, top),
    inclusive: [...inclUs.entries()]
      .filter(([name]) => !trivial.test(name))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({
        name,
        selfMs: fnUs.get(name) ? fnUs.get(name)! / 1000 : 0,
        selfPct: pct(fnUs.get(name) ?? 0),
        totalMs: us / 1000,
        totalPct: pct(us),
      })),
  };
}

/** Reads and summarizes a .cpuprofile file. */
export function summarizeProfileFile(file: string, bundleFiles?: Map<string, string>): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  return summarizeProfile(profile, { file, ...(bundleFiles ? { bundleFiles } : {}) });
}

/** Plain-text rendering of a summary. */
export function formatProfile(s: ProfileSummary): string {
  const row = (l: ProfileLine) =>
    `    ${l.selfMs.toFixed(0).padStart(7)} ms ${l.selfPct.toFixed(1).padStart(5)}%  ${l.name}`;
  const incl = (l: ProfileLine) =>
    `    ${(l.totalMs ?? 0).toFixed(0).padStart(7)} ms ${(l.totalPct ?? 0).toFixed(1).padStart(5)}%  (self ${l.selfMs.toFixed(0)} ms)  ${l.name}`;
  return [
    `  ${s.file}: ${s.totalMs.toFixed(0)} ms sampled, ${s.busyMs.toFixed(0)} ms busy on the main thread`,
    '  self time by area:',
    ...s.areas.map(row),
    '  self time by function:',
    ...s.functions.map(row),
    '  inclusive time by function:',
    ...s.inclusive.map(incl),
  ].join('\n');
}
