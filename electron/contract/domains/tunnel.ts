import { z } from 'zod';
import { ProbeResult, PublicUrl, SaveSshTunnelInput, TunnelStatus, TunnelTarget } from '../schemas/tunnel';
import { method, NoInput } from './method';

/** `tunnel.*` methods: the road in from the real service (issue 14, DESIGN.md "Command line"). */
export const tunnelMethods = {
  'tunnel.status': method({
    summary:
      'The public URL of the bank endpoints (and where it comes from), what to register with the service, the tunnel, the listener and the last probe.',
    input: NoInput,
    output: TunnelStatus,
  }),
  'tunnel.setPublicUrl': method({
    summary:
      "Save the profile's public URL (Bank page); null removes it. --public-url still wins for its run.",
    input: z.object({ url: PublicUrl.nullable() }),
    output: TunnelStatus,
  }),
  'tunnel.start': method({
    summary:
      'Start a tunnel through a client the user installed: ssh:[USER@]HOST[:PORT], cloudflared or ngrok (waits up to 30 s).',
    input: z.object({ target: TunnelTarget }),
    output: TunnelStatus,
  }),
  'tunnel.stop': method({
    summary: 'Stop the tunnel and its client process.',
    input: NoInput,
    output: TunnelStatus,
  }),
  'tunnel.saveSsh': method({
    summary:
      "Save the ssh tunnel's settings of an environment (default: the active one): identity file and known-hosts file (paths, checked readable; never a key's content), extra ssh options (an argv; options that run commands are refused) and a fixed remote port. The next attempt uses them.",
    input: SaveSshTunnelInput,
    output: TunnelStatus,
  }),
  'tunnel.trustHostKey': method({
    summary:
      'Pin the host key the last ssh attempt was shown (status.host_key, state unknown) in <data-dir>/ssh/known_hosts, after the engineer compared its fingerprint; then start the tunnel again.',
    input: z.object({
      host: z.string().min(1).max(300),
      /** The SHA256 fingerprint the engineer confirmed: the key pinned must still be this one. */
      fingerprint: z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'must be SHA256:<43 base64 characters>'),
    }),
    output: TunnelStatus,
  }),
  'tunnel.unpinHostKey': method({
    summary:
      "Remove a host's pinned keys from <data-dir>/ssh/known_hosts (after its owner confirmed a new key); the next attempt shows the new key to confirm.",
    input: z.object({ host: z.string().min(1).max(300) }),
    output: TunnelStatus,
  }),
  'tunnel.probe': method({
    summary:
      'Test from outside: GET <public URL>/.well-known/dets-console/probe/<marker> and confirm this listener received that marker.',
    input: NoInput,
    output: ProbeResult,
  }),
} as const;

/** `tunnel.*` events. */
export const tunnelEvents = {
  /** The tunnel went up, dropped, came back or stopped, or the public URL changed. */
  'tunnel.changed': TunnelStatus,
  /** A probe finished (on demand or because a tunnel came up). */
  'tunnel.probed': ProbeResult,
} as const;
