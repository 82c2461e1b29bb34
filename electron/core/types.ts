export type { Envelope, Handlers } from '../contract';
export type HostKind = 'desktop' | 'browser' | 'cli';
