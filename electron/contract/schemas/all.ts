export * from './app';
export * from './inspector';
export * from './sandbox';
export * from './keys';
export * from './service';
export * from './events';
export * from './bank';
export * from './rsa-rules';
