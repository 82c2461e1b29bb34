/**
 * "Save as file" for text the console produced (an exported public key, a JWKS): a Blob and a
 * temporary link with `download`, so the file is written by the browser's own save flow and the
 * text never leaves this machine (no bank should paste a key into a website to convert it).
 */
export function saveTextFile(text: string, filename: string, mime = 'text/plain'): void {
  const blob = new Blob([text], { type: mime });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  try {
    a.click();
  } finally {
    a.remove();
    // Give the browser a moment to start the download before the URL is revoked.
    setTimeout(() => URL.revokeObjectURL(url), 1_000);
  }
}
