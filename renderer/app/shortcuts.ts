import { useEffect } from 'react';
import { navigate } from './navigation';
import { useUiStore } from '../shared/focus-request';

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/** The shown page's own search box, if it has one. */
function pageSearch(): HTMLInputElement | null {
  const box = document.querySelector<HTMLInputElement>('main input[type="search"]');
  return box && !box.disabled ? box : null;
}

/**
 * Global keyboard shortcuts: Ctrl/Cmd+K anywhere focuses the token input (switching to the
 * Inspector first); "/" outside a text field does too, unless the page has a search box of its
 * own, which it then focuses.
 */
export function useGlobalShortcuts(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const modK = (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k';
      const slash = e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !isEditable(e.target);
      if (!modK && !slash) return;
      e.preventDefault();
      // Issue 26 item 6: "/" on a page with a search box of its own (Callbacks, Notifications)
      // focuses that box, as "/" does on most sites; Ctrl/Cmd+K still opens the Inspector.
      const own = slash ? pageSearch() : null;
      if (own) {
        own.focus();
        own.select();
        return;
      }
      navigate('inspector');
      useUiStore.getState().requestFocus('token-input');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
