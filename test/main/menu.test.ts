import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { aboutOptions, menuTemplate } from '../../electron/main/menu';

/** Every role and label in the menu, submenus included. */
function items(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((item) => [item, ...(Array.isArray(item.submenu) ? items(item.submenu) : [])]);
}
const roles = (t: MenuItemConstructorOptions[]) => items(t).map((i) => i.role ?? i.label);

describe('the application menu', () => {
  it('keeps DevTools (viewMenu) in development', () => {
    const template = menuTemplate({ platform: 'linux', packaged: false, onAbout: () => {} });
    expect(roles(template)).toContain('viewMenu');
  });

  it('has no DevTools in the packaged app, on any platform', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      const all = roles(menuTemplate({ platform, packaged: true, onAbout: () => {} }));
      expect(all, platform).not.toContain('viewMenu');
      expect(all, platform).not.toContain('toggleDevTools');
      expect(all, platform).toContain('reload');
      expect(all, platform).toContain('zoomIn');
    }
  });

  it('offers About in Help on every platform, and in the app menu on macOS', () => {
    const onAbout = vi.fn();
    const abouts = (platform: NodeJS.Platform) =>
      items(menuTemplate({ platform, packaged: true, onAbout })).filter(
        (i) => i.label === 'About DETS Console',
      );
    expect(abouts('linux')).toHaveLength(1);
    expect(abouts('win32')).toHaveLength(1);
    expect(abouts('darwin')).toHaveLength(2);
    (abouts('linux')[0]!.click as () => void)();
    expect(onAbout).toHaveBeenCalledTimes(1);
  });

  it('says in About the app’s version, Electron’s, Chromium’s and Node’s', () => {
    const options = aboutOptions({
      name: 'DETS Console',
      app: '1.2.3',
      electron: '45.4.1',
      chrome: '142.0.7444.0',
      node: '22.20.0',
    });
    expect(options.message).toBe('DETS Console 1.2.3');
    expect(options.detail).toBe('Electron 45.4.1\nChromium 142.0.7444.0\nNode.js 22.20.0');
  });
});
