/**
 * What jsdom lacks and the renderer's libraries use: `CSS.escape` (React Aria reads a few
 * `<meta>` values through it when a dialog opens). Chromium has it; the tests give jsdom the
 * standard's escaping for identifiers (CSSOM §2.1, enough for meta names).
 */
const g = globalThis as { CSS?: { escape?: (value: string) => string } };
if (typeof window !== 'undefined' && !g.CSS?.escape) {
  g.CSS = {
    ...g.CSS,
    escape: (value: string) => value.replace(/[^\w-]/g, (c) => `\\${c}`),
  };
}
export {};
