export * from './app';
export * from './inspector';
export * from './sandbox';
export * from './keys';
export * from './service';
