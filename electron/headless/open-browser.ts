/** `serve --open`: the URL in the user's default browser, the way each OS expects it. */
import { spawn } from 'node:child_process';

export interface OpenCommand {
  command: string;
  args: string[];
}

/** xdg-open on Linux and other Unix, `open` on macOS, `cmd /c start` on Windows. */
export function openCommand(url: string, platform: NodeJS.Platform = process.platform): OpenCommand {
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // `start`'s first quoted argument is a window title, hence the empty one.
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Starts the opener detached and forgets it. Only http(s) URLs are opened. Failures (no
 * browser, no opener installed) go to `onError` and never stop the caller.
 */
export function openInBrowser(
  url: string,
  onError: (message: string) => void,
  platform: NodeJS.Platform = process.platform,
): void {
  if (!/^https?:\/\//.test(url)) {
    onError(`not opening "${url}": only http(s) URLs are opened`);
    return;
  }
  const { command, args } = openCommand(url, platform);
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore', windowsHide: true });
    child.on('error', (err) => onError(`could not open a browser (${command}): ${err.message}`));
    child.on('exit', (code) => {
      if (code) onError(`could not open a browser: ${command} exited with ${code}`);
    });
    child.unref();
  } catch (err) {
    onError(`could not open a browser (${command}): ${err instanceof Error ? err.message : String(err)}`);
  }
}
