/** The flags of `dets-console serve` once parsed and checked (serve.ts parseServeFlags). */
import type { CheckedTls, TunnelSpec } from '../../core/tunnel';

/** Every flag of `serve`, validated. */
export interface ServeOptions {
  dataDir: string;
  host: string;
  uiPort: number;
  bankPort: number;
  /** null with --no-sandbox. */
  sandboxPort: number | null;
  /** Where the bank endpoints fetch the service's keys; undefined = the sandbox's JWKS. */
  serviceJwksUrl?: string;
  /** --users: the file, its text and the test customers it holds (checked to be a JSON array). */
  users?: { file: string; text: string; customers: unknown[] };
  open: boolean;
  json: boolean;
  /** --public-url, validated (no trailing slash). */
  publicUrl?: string;
  /** --tunnel, parsed. */
  tunnel?: TunnelSpec;
  /** --tls-cert/--tls-key, read and checked. */
  tls?: CheckedTls;
  /** --team: a team hub (issue 30). */
  team: boolean;
  /** --store: a postgres:// URL for the events and the members. */
  store?: string;
  /** --time-scale: the sandbox's delivery ladder waits and timeouts × F (issue 27). */
  timeScale: number;
}
