import { afterEach, describe, expect, it, vi } from 'vitest';
import { dialog, shell } from './fake-electron';
import {
  confirmOptions,
  createExternalOpener,
  httpOrigin,
  serviceOrigins,
} from '../../electron/main/external';

vi.mock('electron', () => import('./fake-electron'));

function opener(known: string[] | (() => Promise<string[]>)) {
  return createExternalOpener({
    shell,
    dialog,
    knownOrigins: typeof known === 'function' ? known : async () => known,
    parent: () => null,
  });
}

afterEach(() => {
  shell.openExternal.mockClear();
  dialog.showMessageBox.mockClear();
  dialog.nextResponse = 0;
});

describe('createExternalOpener', () => {
  it('opens an address on a configured origin at once, without asking', async () => {
    const open = opener(['https://svc.example', 'http://127.0.0.1:7302']);
    expect(open('https://svc.example/docs/api?x=1')).toBe(true);
    expect(open('http://127.0.0.1:7302/sandbox/v1/traces')).toBe(true);
    await open.settled();
    expect(dialog.showMessageBox).not.toHaveBeenCalled();
    expect(shell.openExternal.mock.calls.map(([u]) => u)).toEqual([
      'https://svc.example/docs/api?x=1',
      'http://127.0.0.1:7302/sandbox/v1/traces',
    ]);
  });

  it('asks before any other host, and opens only when the engineer confirms', async () => {
    const open = opener(['https://svc.example']);
    dialog.nextResponse = 1; // Cancel
    open('https://svc.example.evil.example/login');
    await open.settled();
    expect(shell.openExternal).not.toHaveBeenCalled();
    const [options] = dialog.showMessageBox.mock.calls[0] as [ReturnType<typeof confirmOptions>];
    expect(options.message).toBe('Open svc.example.evil.example in your browser?');
    expect(options.detail).toContain('https://svc.example.evil.example/login');
    expect(options.buttons?.[options.cancelId!]).toBe('Cancel');
    expect(options.defaultId).toBe(options.cancelId);

    dialog.nextResponse = 0; // Open in browser
    open('https://docs.example/guide');
    await open.settled();
    expect(shell.openExternal.mock.calls.map(([u]) => u)).toEqual(['https://docs.example/guide']);
  });

  it('treats another scheme or port of a configured host as another origin', async () => {
    const open = opener(['https://svc.example']);
    dialog.nextResponse = 1;
    open('http://svc.example/');
    open('https://svc.example:8443/');
    await open.settled();
    expect(dialog.showMessageBox).toHaveBeenCalledTimes(2);
    expect(shell.openExternal).not.toHaveBeenCalled();
  });

  it('shows an international look-alike host in punycode', () => {
    expect(confirmOptions('https://раураl.example/').message).toBe(
      'Open xn--l-7sba6dbr.example in your browser?',
    );
  });

  it('drops what is not http(s) without asking', async () => {
    const open = opener([]);
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'not a url'])
      expect(open(url), url).toBe(false);
    await open.settled();
    expect(dialog.showMessageBox).not.toHaveBeenCalled();
    expect(shell.openExternal).not.toHaveBeenCalled();
  });

  it('asks when the configured origins cannot be read', async () => {
    const open = opener(async () => {
      throw new Error('store closed');
    });
    dialog.nextResponse = 1;
    open('https://svc.example/');
    await open.settled();
    expect(dialog.showMessageBox).toHaveBeenCalledTimes(1);
    expect(shell.openExternal).not.toHaveBeenCalled();
  });
});

describe('serviceOrigins', () => {
  const env = (id: string, kind: 'sandbox' | 'real', base_url: string | null) => ({
    id,
    name: id,
    kind,
    base_url,
    counterparty_guid: null,
    active_kid: null,
    default_obj: null,
    default_sub: null,
    service_jwks_url: null,
    effective_jwks_url: null,
  });

  it('is the active environment’s base_url and the sandbox’s, not the other environments’', () => {
    const envs = {
      active_id: 'prod',
      environments: [
        env('sandbox', 'sandbox', 'http://127.0.0.1:7302'),
        env('prod', 'real', 'https://svc.example/api'),
        env('staging', 'real', 'https://staging.example'),
      ],
    };
    expect(serviceOrigins(envs, 'http://127.0.0.1:41234/')).toEqual([
      'https://svc.example',
      'http://127.0.0.1:7302',
      'http://127.0.0.1:41234',
    ]);
  });

  it('is the sandbox listener alone when the environments cannot be read', () => {
    expect(serviceOrigins(null, 'http://127.0.0.1:7302')).toEqual(['http://127.0.0.1:7302']);
    expect(serviceOrigins(null, null)).toEqual([]);
  });

  it('ignores what is not an http(s) URL', () => {
    expect(httpOrigin('ftp://svc.example')).toBeNull();
    expect(httpOrigin(null)).toBeNull();
    expect(httpOrigin('https://svc.example/x')).toBe('https://svc.example');
  });
});
