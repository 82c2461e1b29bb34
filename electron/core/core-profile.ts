/**
 * The profile's owner and the notices it holds for the first caller (DESIGN.md "Storage"): the
 * owner's claim comes before anything opens the database, a recovery asked for from the UI runs
 * right after, and what the recovery says waits for the first dispatch, when a host listens.
 */
import type { Notice } from '../contract/schemas/app';
import type { CoreOptions } from './core-types';
import type { EventHub } from './event-hub';
import { claimProfile, recoverIfRequested, recoveryWaitLine, type ProfileClaim } from './store';

/** What opening a profile leaves: the owner's claim (null for a one-shot command) and notices to tell. */
export interface OpenedProfile {
  claim: ProfileClaim | null;
  notices: HeldNotices;
}

/**
 * Claims the profile for its owner and runs a requested recovery.
 *
 * A second owner is refused here (CONFLICT, naming the first), and one started during a
 * `store recover` waits for it. A recovery asked for from the UI (events.requestRecovery) runs
 * before anything opens the database; the owners (and a browser-mode core) run it, the
 * one-shot CLI commands leave it to them. An owner runs it under its own claim; without one,
 * the recovery claims the profile.
 *
 * @example
 * const { claim, notices } = await openProfile(options, log);
 */
export async function openProfile(options: CoreOptions, log: (line: string) => void): Promise<OpenedProfile> {
  const { dataDir } = options;
  const role = options.owner ?? (options.host === 'desktop' ? 'desktop app' : null);
  const claim: ProfileClaim | null = role
    ? await claimProfile(dataDir, role, {
        onWait: (r) => log(recoveryWaitLine(r)),
        ...(options.stopWaiting ? { signal: options.stopWaiting } : {}),
      })
    : null;
  const recovered =
    claim || options.host !== 'cli'
      ? await recoverIfRequested(dataDir, log, { claimed: claim !== null })
      : null;
  const notices = new HeldNotices();
  if (recovered) notices.hold(recovered);
  return { claim, notices };
}

/**
 * Notices told on the next dispatch: emitted before it, so a page that just connected sees them.
 *
 * @example
 * notices.hold(notice);
 * notices.flush(events); // emits 'app.noticed' for each, once
 */
export class HeldNotices {
  readonly #held: Notice[] = [];

  hold(notice: Notice): void {
    this.#held.push(notice);
  }

  flush(events: EventHub): void {
    for (const notice of this.#held.splice(0)) events.emit('app.noticed', notice);
  }
}
