// Replaced at build time by esbuild's `define`; the fallbacks serve tests run from source.
declare const __APP_VERSION__: string | undefined;
export const APP_NAME = 'DETS Console';
export const APP_VERSION: string = typeof __APP_VERSION__ === 'string' ? __APP_VERSION__ : '0.0.0-dev';
