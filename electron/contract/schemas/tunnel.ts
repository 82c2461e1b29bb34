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

/**
 * Whether a value looks like key material rather than the path of a key file (issue 26 item 4:
 * the Bank page keeps a PATH to an identity file, never a private key's content). Catches PEM
 * and OpenSSH armour, a public key line, a line break and a long base64 run (48 characters
 * without a slash: no path component is that). One rule for the
 * contract and the core.
 *
 * @example
 * looksLikeKeyMaterial('~/.ssh/id_ed25519'); // false
 * looksLikeKeyMaterial('-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl…'); // true
 */
export function looksLikeKeyMaterial(value: string): boolean {
  return (
    /-----BEGIN|PRIVATE KEY|[\r\n]/.test(value) ||
    /^\s*(ssh-(rsa|ed25519|dss)|ecdsa-sha2-|sk-(ssh|ecdsa))/.test(value) ||
    /[A-Za-z0-9+=]{48,}/.test(value)
  );
}

/** A file path for ssh: absolute or under `~/`, one line, no double quote (ssh's config quoting). */
const SshPath = z
  .string()
  .trim()
  .min(1, 'must not be empty (null clears it)')
  .max(1024)
  .refine((v) => !looksLikeKeyMaterial(v), {
    error:
      'looks like key material, not a file path: give the PATH of the private key file (e.g. ~/.ssh/id_ed25519); the console never stores a key given as text, and nothing was saved',
  })
  .refine((v) => v.startsWith('/') || v.startsWith('~/'), {
    error:
      'must be an absolute path or start with ~/ (a relative path would depend on where the console runs)',
  })
  .refine((v) => !/["\0]/.test(v), { error: 'must not contain a double quote or NUL' });

/**
 * The ssh tunnel's settings of one environment (issue 26 item 4), kept in the environment's
 * settings: an identity file (a path), a known-hosts file of the user's own (beside the one the
 * console keeps in the profile), extra ssh options as an argv (never through a shell; options
 * that run commands are refused, docs/real-environment.md), and a fixed remote port (null: the
 * ssh host picks one, DESIGN.md `-R 0:…`).
 */
export const SshTunnelSettings = z.object({
  identity_file: SshPath.nullable(),
  known_hosts_file: SshPath.nullable(),
  options: z.array(z.string().min(1).max(500)).max(32),
  remote_port: z.number().int().min(1).max(65535).nullable(),
});
export type SshTunnelSettings = z.infer<typeof SshTunnelSettings>;

/** What a new environment's ssh settings are: ssh's own defaults. */
export const NO_SSH_SETTINGS: Readonly<SshTunnelSettings> = Object.freeze({
  identity_file: null,
  known_hosts_file: null,
  options: [],
  remote_port: null,
});

export const SaveSshTunnelInput = SshTunnelSettings.extend({
  /** Default: the active environment. */
  environment_id: z.string().min(1).optional(),
});

/**
 * Why an ssh tunnel failed (issue 26 item 4): one code per thing to do, read from ssh's own
 * words by core/tunnel/ssh-failures.ts (one module). `gateway_ports` comes from the probe: the
 * port was allocated but the public URL does not answer from here.
 */
export const SshFailureCode = z.enum([
  'ssh_not_installed',
  'host_key_unknown',
  'host_key_changed',
  'auth_refused',
  'identity_unusable',
  'forward_refused',
  'remote_port_in_use',
  'gateway_ports',
  'connection_refused',
  'host_unreachable',
  'dns',
  'ssh_failed',
]);
export type SshFailureCode = z.infer<typeof SshFailureCode>;

export const SshFailure = z.object({
  code: SshFailureCode,
  /** What happened, one line. */
  message: z.string(),
  /** What to do about it. */
  action: z.string(),
});
export type SshFailure = z.infer<typeof SshFailure>;

/** One host key as `ssh-keygen -lf` prints it. */
export const HostKeyFingerprint = z.object({
  /** e.g. ED25519, RSA, ECDSA */
  type: z.string(),
  bits: z.number().int(),
  /** `SHA256:<base64 without padding>` */
  fingerprint: z.string(),
  /** The line `ssh-keygen -lf` prints: `256 SHA256:… [host]:port (ED25519)`. */
  line: z.string(),
});
export type HostKeyFingerprint = z.infer<typeof HostKeyFingerprint>;

/**
 * A host key to decide on: `unknown` (fetched from the host, waiting for the engineer to confirm
 * and pin it) or `changed` (a pinned host now shows another key: refused, possible attack).
 */
export const HostKeyOffer = z.object({
  state: z.enum(['unknown', 'changed']),
  /** The host as known_hosts names it: `host` or `[host]:port`. */
  host: z.string(),
  /** The keys the host showed now. */
  keys: z.array(HostKeyFingerprint),
  /** For `changed`: the keys pinned before. */
  pinned: z.array(HostKeyFingerprint),
  /** The known-hosts file the pin goes to (`<data-dir>/ssh/known_hosts`). */
  file: z.string(),
});
export type HostKeyOffer = z.infer<typeof HostKeyOffer>;

/** The ssh side of the tunnel status: the settings in force, who overrides them, what is pinned. */
export const SshTunnelView = z.object({
  environment_id: z.string(),
  settings: SshTunnelSettings,
  /** DETS_SSH_COMMAND when set (it comes first on ssh's command line, so its options win). */
  command_override: z.string().nullable(),
  /** `<data-dir>/ssh/known_hosts`. */
  known_hosts_path: z.string(),
  pinned: z.array(HostKeyFingerprint.extend({ host: z.string() })),
});
export type SshTunnelView = z.infer<typeof SshTunnelView>;

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
  /** ssh only: why it failed or dropped, with what to do (issue 26 item 4). */
  failure: SshFailure.nullable().optional(),
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
  /** A host key waiting for the engineer's confirmation, or refused because it changed (issue 26). */
  host_key: HostKeyOffer.nullable().optional(),
  /** The ssh tunnel's settings for the active environment, and the console's pinned host keys. */
  ssh: SshTunnelView.optional(),
});
export type TunnelStatus = z.infer<typeof TunnelStatus>;
