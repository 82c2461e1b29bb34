import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

// dist/ is built once for the whole run by test/support/global-setup.ts.
export const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '../../..');
export const CLI = join(ROOT, 'dist/cli/dets-console.js');
