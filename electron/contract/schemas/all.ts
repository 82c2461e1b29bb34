export * from './app';
export * from './inspector';
export * from './sandbox';
