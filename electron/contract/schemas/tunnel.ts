import { z } from 'zod';

/**
 * The URL at which the service reaches the bank endpoints (DESIGN.md "Command line",
 * `serve --public-url`): what the bank registers as bank_auth_url and as the notification
 * hosts (spec 4.2, 4.3). Paths are appended to it, so no query or fragment; and no
 * user:password, because it is shown, copied and registered with a third party.
 * One rule for the flag, the Bank page and the environments.
 */
export const PublicUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  .refine((value) => !/^https?:\/\/[^/]*@/i.test(value), {
    error: 'must not carry user:password@: it is shown, copied and registered with the service',
  })
  .refine((value) => !/[?#]/.test(value), {
    error: 'must not have a query (?…) or fragment (#…): the bank paths are appended to it',
  })
  .transform((value) => value.replace(/\/+$/, ''));

/** The clients `serve --tunnel` runs; each one the user installed and trusts (issue 14). */
export const TunnelClient = z.enum(['ssh', 'cloudflared', 'ngrok']);
export type TunnelClient = z.infer<typeof TunnelClient>;

/**
 * `--tunnel` as typed: `ssh:[USER@]HOST[:PORT]`, `cloudflared` or `ngrok`. The ssh host is a
 * DNS name or an IP literal (IPv6 in brackets); nothing that ssh could read as an option.
 */
export const TunnelTarget = z
  .string()
  .trim()
  .max(300)
  .regex(
    /^(cloudflared|ngrok|ssh:([A-Za-z0-9._][A-Za-z0-9._-]*@)?([A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?)$/,
    'must be ssh:[USER@]HOST[:PORT], cloudflared or ngrok',
  );

export const TunnelState = z.enum(['starting', 'up', 'down', 'failed', 'stopped']);
export type TunnelState = z.infer<typeof TunnelState>;

export const ProbeOutcome = z.enum(['reachable', 'unreachable', 'foreign', 'no_public_url']);
export type ProbeOutcome = z.infer<typeof ProbeOutcome>;

/** "Test from outside": a one-time marker sent to the public URL and seen (or not) by this listener. */
export const ProbeResult = z.object({
  at: z.string(),
  /** The URL requested (public URL + /.well-known/dets-console/probe/<marker>), null without a public URL. */
  url: z.string().nullable(),
  outcome: ProbeOutcome,
  /** Round trip of the request, when an answer came. */
  rtt_ms: z.number().nullable(),
  /** The HTTP status of the answer, when one came. */
  status: z.number().int().nullable(),
  /** One sentence a person can act on. */
  detail: z.string(),
});
export type ProbeResult = z.infer<typeof ProbeResult>;

export const TunnelInfo = z.object({
  client: TunnelClient,
  /** As given to --tunnel or the Bank page, e.g. `ssh:user@host:2222`. */
  target: z.string(),
  state: TunnelState,
  /** The public URL the client reported (null while not up). */
  url: z.string().nullable(),
  since: z.string(),
  /** Attempts since the tunnel was last up (0 while up). */
  attempts: z.number().int(),
  /** What the client last said when it failed or dropped, one line. */
  last_error: z.string().nullable(),
  /** When the next attempt is due (state down). */
  next_retry_at: z.string().nullable(),
  /** The client process, while one runs. */
  pid: z.number().int().nullable(),
});
export type TunnelInfo = z.infer<typeof TunnelInfo>;

export const PublicUrlSource = z.enum(['flag', 'tunnel', 'environment', 'profile']);

export const TunnelStatus = z.object({
  /** The URL to register with the service, null when none is known. */
  public_url: z.string().nullable(),
  /** Where it came from: --public-url, the running tunnel, the active environment or the Bank page. */
  public_url_source: PublicUrlSource.nullable(),
  /** What to register: bank_auth_url (spec 4.2) and the notification URLs (spec 4.3). */
  register: z.object({ bank_auth_url: z.string(), notification_urls: z.array(z.string()) }).nullable(),
  /** The Bank page's saved public URL (the profile's), null when none. */
  saved_public_url: z.string().nullable(),
  tunnel: TunnelInfo.nullable(),
  /** Where the bank endpoints listen, and the addresses they can be reached on. */
  listener: z.object({
    url: z.string().nullable(),
    tls: z.boolean(),
    host: z.string().nullable(),
    /** With a wildcard host (0.0.0.0, ::) every interface's address; else the host itself. */
    reachable_on: z.array(z.string()),
    loopback_only: z.boolean(),
  }),
  probe: ProbeResult.nullable(),
});
export type TunnelStatus = z.infer<typeof TunnelStatus>;
