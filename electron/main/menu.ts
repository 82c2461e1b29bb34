/**
 * A minimal application menu made of Electron's standard roles: copy/paste, reload, zoom,
 * devtools (this is a developer's tool; the renderer never holds private keys), window
 * management, and the macOS app menu.
 */
import type { MenuItemConstructorOptions } from 'electron';

export function menuTemplate(platform: NodeJS.Platform): MenuItemConstructorOptions[] {
  return [
    ...(platform === 'darwin' ? [{ role: 'appMenu' } as const] : []),
    { role: 'fileMenu' },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ];
}
