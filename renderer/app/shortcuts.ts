import { useEffect } from 'react';
import { navigate } from './navigation';
import { useUiStore } from './ui-store';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * Global keyboard shortcuts: Ctrl/Cmd+K anywhere, or "/" outside a text field, focuses the token
 * input (switching to the Inspector first).
 */
export function useGlobalShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const modK = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k';
      const slash = e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !isEditable(e.target);
      if (!modK && !slash) return;
      e.preventDefault();
      navigate('inspector');
      useUiStore.getState().requestFocus('token-input');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
export const MOD_KEY_LABEL = isMac ? '⌘K' : 'Ctrl K';
