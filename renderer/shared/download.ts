/** A hidden link with `download`, clicked once: the browser's own save flow takes it from there. */
function clickDownloadLink(href: string, filename: string): void {
  const a = document.createElement('a');
  a.href = href;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  try {
    a.click();
  } finally {
    a.remove();
  }
}

/**
 * "Save as file" for text the console produced (an exported public key, a JWKS): a Blob and a
 * temporary link with `download`, so the file is written by the browser's own save flow and the
 * text never leaves this machine (no bank should paste a key into a website to convert it).
 */
export function saveTextFile(text: string, filename: string, mime = 'text/plain'): void {
  saveBlob(new Blob([text], { type: mime }), filename);
}

/** Hands bytes to the browser's save flow under `filename`, without reading them. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  try {
    clickDownloadLink(url, filename);
  } finally {
    // Give the browser a moment to start the download before the URL is revoked.
    setTimeout(() => URL.revokeObjectURL(url), 1_000);
  }
}

/**
 * Follows a link to a one-time download the host serves as an attachment: the desktop app's
 * `app://console/api/download/<ticket>`. Browser mode cannot use it (a link carries no header,
 * and no cookie grants access): its client fetches the file with the token and calls saveBlob.
 */
export function followDownload(path: string, filename: string): void {
  clickDownloadLink(path, filename);
}
