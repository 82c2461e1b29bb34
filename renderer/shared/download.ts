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
  const url = URL.createObjectURL(new Blob([text], { type: mime }));
  try {
    clickDownloadLink(url, filename);
  } finally {
    // Give the browser a moment to start the download before the URL is revoked.
    setTimeout(() => URL.revokeObjectURL(url), 1_000);
  }
}

/**
 * Hands a one-time download the host prepared (`GET /api/download/<ticket>`) to the browser's
 * save flow. The page never reads the file: it only follows the link, which the host answers as
 * an attachment (the request carries the host's SameSite=Strict cookie).
 */
export function followDownload(path: string, filename: string): void {
  clickDownloadLink(path, filename);
}
