export * from './app';
export * from './inspector';
