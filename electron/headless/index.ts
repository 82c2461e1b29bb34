/** Browser mode: the headless host's public surface. */
export {
  startHeadlessServer,
  type HeadlessCore,
  type HeadlessServer,
  type HeadlessServerOptions,
} from './server';
export { ROUTED_METHODS, callPath } from './routes';
export { defaultRendererDir } from './static-files';
export { isLoopbackAddress } from './auth';
export { openInBrowser } from './open-browser';
export { MAX_BODY_BYTES } from './http-util';
