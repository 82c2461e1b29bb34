import { z } from 'zod';

export const HostKind = z.enum(['desktop', 'browser', 'cli']);

export const AppInfo = z.object({
  name: z.string(),
  version: z.string(),
  host: HostKind,
  dataDir: z.string(),
  /** Base URLs of the listeners this process runs (absent when not started). */
  listeners: z.object({ bank: z.string().optional(), sandbox: z.string().optional() }),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const Notice = z.object({
  at: z.string(),
  level: z.enum(['info', 'warning', 'error']),
  message: z.string(),
});
export type Notice = z.infer<typeof Notice>;
