/**
 * Acknowledged notifications' retention, the user's setting (store/notification-retention.ts):
 * applied when the store opens and then every RETENTION_EVERY_MS, so it keeps holding while
 * the console runs.
 */
import { createNotificationRetention, type NotificationRetentionService } from './store';

/** How often the notification retention is applied again while the console runs. */
export const RETENTION_EVERY_MS = 10 * 60 * 1000;

/**
 * The retention service of one profile and its timer: started once the store is open, stopped
 * on close.
 *
 * @example
 * const retention = new RetentionTimer(dataDir);
 * retention.start(); // applies now, then every 10 minutes (unref'd: it never keeps Node alive)
 * await retention.close();
 */
export class RetentionTimer {
  #service: NotificationRetentionService | null = null;
  #timer: NodeJS.Timeout | null = null;

  constructor(private readonly dataDir: string) {}

  /** The retention service, opened on first use. */
  get service(): NotificationRetentionService {
    return (this.#service ??= createNotificationRetention({ dataDir: this.dataDir }));
  }

  /** Applies the rule now and every RETENTION_EVERY_MS from then on; a failed pass waits for the next. */
  start(): void {
    const run = () => void this.service.apply().catch(() => undefined);
    run();
    this.#timer ??= setInterval(run, RETENTION_EVERY_MS);
    this.#timer.unref();
  }

  /** Stops the timer and closes the service. */
  async close(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.service.close();
  }
}
