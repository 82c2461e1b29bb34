import { create } from 'zustand';
import { persist } from 'zustand/middleware';
import { z } from 'zod';
import { localPersist } from '../shared/local-persist';

/**
 * The colour theme (issue 13, item 8). "system" follows the OS (prefers-color-scheme), as the
 * console always did; "light" and "dark" pin one. The choice is a UI preference kept in this
 * browser's localStorage and shown to CSS as `data-theme` on <html> (styles/tokens.css).
 */
const Theme = z.enum(['system', 'light', 'dark']);
export type Theme = z.infer<typeof Theme>;

const Persisted = z.object({ theme: Theme });

interface ThemeState {
  theme: Theme;
  setTheme(theme: Theme): void;
}

export const useThemeStore = create<ThemeState>()(
  persist(
    (set) => ({ theme: 'system', setTheme: (theme) => set({ theme }) }),
    localPersist<ThemeState, z.infer<typeof Persisted>>('theme', Persisted, (s) => ({ theme: s.theme })),
  ),
);

/** Sets <html data-theme> for a pinned theme and removes it for "system". */
export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  if (theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = theme;
}

/** Applies the stored choice now (before the first paint) and every later one. */
export function startTheme(): () => void {
  applyTheme(useThemeStore.getState().theme);
  return useThemeStore.subscribe((s) => applyTheme(s.theme));
}

const LABELS: Record<Theme, string> = { system: 'System theme', light: 'Light', dark: 'Dark' };

export function ThemeSwitch() {
  const theme = useThemeStore((s) => s.theme);
  const setTheme = useThemeStore((s) => s.setTheme);
  return (
    <select
      className="input theme-switch"
      aria-label="Colour theme"
      title="Colour theme: System follows the operating system"
      value={theme}
      onChange={(e) => setTheme(Theme.parse(e.target.value))}
      data-testid="theme-switch"
    >
      {Theme.options.map((t) => (
        <option key={t} value={t}>
          {LABELS[t]}
        </option>
      ))}
    </select>
  );
}
