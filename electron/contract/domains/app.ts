import { AppInfo, Notice } from '../schemas/app';
import { method, NoInput } from './method';

/** `app.*` methods. */
export const appMethods = {
  'app.info': method({
    summary: 'Name, version, host kind, data directory and listener URLs of this process.',
    input: NoInput,
    output: AppInfo,
  }),
} as const;

/** `app.*` events. */
export const appEvents = {
  'app.noticed': Notice,
} as const;
