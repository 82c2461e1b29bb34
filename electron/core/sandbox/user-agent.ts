import { APP_NAME, APP_VERSION } from '../version';

/** The User-Agent of the sandbox's calls to a bank. */
export const userAgent = (): string => `${APP_NAME.replace(/\s+/g, '-')}-sandbox/${APP_VERSION}`;
