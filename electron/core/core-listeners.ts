/**
 * Where the console's listeners are (DESIGN.md "hosts"): the base URLs a host reports
 * (setListeners, app.info) and the bank listener's address the tunnel points at. One object,
 * so the services that need them read what is true now, not what was true when they were built.
 */
import { derivedJwksUrl } from './common';
import type { ListenerUrls } from './core-types';

/** The bank listener's address, for the tunnel's client. */
export interface BankAddress {
  url: string;
  host: string;
  port: number;
}

/**
 * The listeners of one core.
 *
 * @example
 * const listeners = new Listeners();
 * listeners.set({ sandbox: 'http://127.0.0.1:4100' });
 * listeners.sandboxJwksUrl(); // 'http://127.0.0.1:4100' + JWKS_PATH
 */
export class Listeners {
  #urls: ListenerUrls = {};
  /** Set once the bank listens; null before. */
  bank: BankAddress | null = null;

  /** Adds or replaces the given base URLs. */
  set(urls: ListenerUrls): void {
    this.#urls = { ...this.#urls, ...urls };
  }

  /** A copy of the base URLs as they are now. */
  urls(): ListenerUrls {
    return { ...this.#urls };
  }

  /** The sandbox's base URL, or null when it does not listen. */
  get sandbox(): string | null {
    return this.#urls.sandbox ?? null;
  }

  /** The bank listens at `address`: its URL is reported and the tunnel points at it. */
  bankListening(address: BankAddress): void {
    this.set({ bank: address.url });
    this.bank = address;
  }

  /** The sandbox's JWKS URL, the bank's last resort for the service's keys. */
  sandboxJwksUrl(): string | null {
    return this.#urls.sandbox ? derivedJwksUrl(this.#urls.sandbox) : null;
  }
}
