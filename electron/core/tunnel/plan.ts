/**
 * The shapes a tunnel client's plan is made of (issue 14): what clients.ts and ssh-plan.ts
 * build and attempt.ts runs.
 */
import type { SshFailure, SshTunnelSettings, TunnelClient } from '../../contract/schemas/tunnel';

export type TunnelSpec =
  | { client: 'ssh'; target: string; user: string | null; host: string; port: number | null }
  | { client: 'cloudflared'; target: 'cloudflared' }
  | { client: 'ngrok'; target: 'ngrok' };

/** Where the tunnel leads: the bank endpoints listener. */
export interface TunnelOrigin {
  /** The address the client connects to (loopback when the listener is on a wildcard address). */
  host: string;
  port: number;
  tls: boolean;
}

/** What one output line told the runner. */
export type LineVerdict =
  | { kind: 'url'; url: string }
  /** ngrok's local API address, to read the URL from when no log line carries it. */
  | { kind: 'api'; addr: string }
  /** Something the client said; `failure` when it is an error worth naming. */
  | { kind: 'said'; text: string; failure: boolean }
  | null;

export interface ClientPlan {
  client: TunnelClient;
  /** The name messages start with: the client, or DETS_SSH_COMMAND's program. */
  name: string;
  command: string;
  args: string[];
  /** Installation hint for "not found". */
  notFoundHint: string;
  /** Said when no URL comes in time. */
  slowHint?: string;
  read(line: string, stream: 'stdout' | 'stderr'): LineVerdict;
  /**
   * ssh only: what its words mean when it failed (`lines`: what it said; `notFound`: it could
   * not be started). One reader of ssh's stderr: ssh-failures.ts.
   */
  diagnose?(lines: readonly string[], notFound: boolean): SshFailure;
}

/** The environment's ssh settings and the console's pinned known-hosts file (issue 26 item 4). */
export interface SshRun {
  settings: SshTunnelSettings;
  /** `<data-dir>/ssh/known_hosts`. */
  pinnedFile: string;
}
