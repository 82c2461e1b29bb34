/**
 * The evidence pack: one JSON file to attach to the service's onboarding sign-off, with the
 * walkthrough's steps and times, the keys' RFC 7638 fingerprints and public JWKs, the decoded
 * tokens, the exchanges with the service, the callbacks and notifications the bank endpoints
 * recorded, the sandbox's traces, and a readable Markdown rendering of the same. Redacted as a
 * whole by redact.ts before it is written.
 */
import type { EventDetail } from '../../contract/schemas/events';
import type { KeyInfo } from '../../contract/schemas/keys';
import type { Exchange } from '../../contract/schemas/service';
import type { WalkthroughState } from '../../contract/schemas/walkthrough';
import { decodeCompact } from '../jwt';
import type { GatheredFacts } from './facts';
import { proofsOf, type Proof } from './pack-proof';
import { redactPack, type RedactOptions } from './redact';

export const PACK_FORMAT = 'dets-console/walkthrough-evidence';

export interface PackInput {
  state: WalkthroughState;
  facts: GatheredFacts;
  /** The callback and notification events the steps name, in full. */
  events: EventDetail[];
  app: { name: string; version: string };
  generatedAt: string;
}

function decoded(token: string | null | undefined) {
  if (!token) return null;
  const d = decodeCompact(token);
  return { token, header: d.header, payload: d.payload };
}

function keyEntry(k: KeyInfo) {
  return {
    kid: k.kid,
    alg: k.alg,
    bits: k.bits,
    status: k.status,
    created_at: k.created_at,
    expires: k.expires,
    fingerprint: { method: 'RFC 7638 JWK thumbprint, SHA-256, base64url', value: k.fingerprint },
    public_jwk: k.public_jwk,
  };
}

function exchangeEntry(e: Exchange) {
  return {
    id: e.id,
    at: e.at,
    operation: e.operation,
    request: {
      method: e.request.method,
      url: e.request.url,
      headers: e.request.headers,
      body: e.request.body,
    },
    response: e.response,
    ok: e.ok,
    duration_ms: e.duration_ms,
    error: e.error,
    explanation: e.explanation,
    signing_kid: e.signing_kid ?? null,
    jwk_kid: e.jwk_kid ?? null,
    jwk_guid: e.jwk_guid ?? null,
  };
}

/** The pack as an object (redacted), and its Markdown section. */
export function buildPack(input: PackInput, options: RedactOptions = {}): Record<string, unknown> {
  const { state, facts } = input;
  const since = (at: string) => facts.resetAt === null || Date.parse(at) >= Date.parse(facts.resetAt);
  const kids = new Set<string>(
    [
      facts.env.active_kid,
      facts.composed?.kid,
      facts.rotation?.from_kid,
      facts.rotation?.to_kid,
      ...facts.exchanges.flatMap((e) => [e.signing_kid, e.jwk_kid]),
    ].filter((k): k is string => typeof k === 'string'),
  );
  const exchanges = facts.exchanges.filter((e) => since(e.at)).slice(0, 50);
  const pack = {
    format: PACK_FORMAT,
    version: 1,
    generated_at: input.generatedAt,
    generated_by: `${input.app.name} ${input.app.version}`,
    redaction: {
      private_keys:
        'never included (the vault keeps them); JWK private members and PEM private keys are removed',
      user_secret_keys: 'removed',
      token_signatures: options.fullTokens
        ? 'kept whole (full_tokens)'
        : 'shortened to their first 8 characters',
    },
    environment: state.environment,
    reset_at: state.reset_at,
    progress: { done: state.done, total: state.total },
    steps: state.steps.map((s) => ({
      number: s.number,
      id: s.id,
      title: s.title,
      spec: s.spec,
      state: s.state,
      at: s.at,
      summary: s.summary,
      reason: s.reason,
      fix: s.fix,
      waiting_for: s.waiting_for,
      facts: s.facts,
      event_ids: s.event_ids,
      // Issue 26 item 2: which events (or records) proved the step, each with its time.
      proved_by: proofsOf(s, state, facts, input.events),
      ...(s.service_request ? { service_request: s.service_request } : {}),
    })),
    onboarding: state.onboarding ?? null,
    retry_rehearsal: state.rehearsal ?? null,
    keys: facts.keys.filter((k) => kids.has(k.kid)).map(keyEntry),
    tokens: {
      bank_jwt: facts.composed
        ? { ...decoded(facts.composed.token), kid: facts.composed.kid, composed_at: facts.composed.at }
        : null,
      session_token: facts.progress.session
        ? {
            ...decoded(facts.progress.session.token),
            exchange_id: facts.progress.session.exchange_id,
            checks: facts.progress.session.report?.checks ?? null,
          }
        : null,
    },
    exchanges: exchanges.map(exchangeEntry),
    events: input.events.map((e) => ({
      id: e.id,
      at: e.at,
      kind: e.kind,
      path: e.path,
      status: e.status,
      outcome: e.outcome,
      transaction_id: e.transaction_id,
      failed_check: e.failed_check,
      obj: e.obj,
      sub: e.sub,
      duration_ms: e.duration_ms,
      request: e.request,
      response: e.response,
      checks: e.checks,
      token: e.token,
      jwks: e.jwks,
      forward: e.forward,
    })),
    traces: facts.traces.filter((t) => since(t.at)).slice(0, 20),
    rotation: facts.rotation && since(facts.rotation.finished_at) ? facts.rotation : null,
  };
  const redacted = redactPack(pack, options);
  return { ...redacted, markdown: renderMarkdown(redacted) };
}

const MARK: Record<string, string> = { done: '✓', failed: '✗', pending: '·', waiting: '…' };

/** The readable section: the steps, the keys and the tokens, from the already-redacted pack. */
export function renderMarkdown(pack: ReturnType<typeof redactPack<Record<string, unknown>>>): string {
  const p = pack as {
    generated_at: string;
    generated_by: string;
    environment: WalkthroughState['environment'];
    progress: { done: number; total: number };
    steps: Array<WalkthroughState['steps'][number] & { proved_by?: Proof[] }>;
    keys: Array<ReturnType<typeof keyEntry>>;
    tokens: {
      bank_jwt: { token?: string; header?: unknown; payload?: unknown } | null;
      session_token: { token?: string; payload?: unknown } | null;
    };
  };
  const env = p.environment;
  const lines = [
    `# Onboarding walkthrough: ${env.name}`,
    '',
    `Generated ${p.generated_at} by ${p.generated_by}. Environment ${env.name} (${env.kind}), base URL ${env.base_url ?? '—'}, counterparty_guid ${env.counterparty_guid ?? '—'}, active kid ${env.active_kid ?? '—'}.`,
    '',
    `**${p.progress.done} of ${p.progress.total} steps done.**`,
    '',
    '| # | Step | State | When | What proves it | Proved by |',
    '| --- | --- | --- | --- | --- | --- |',
    ...p.steps.map(
      (s) =>
        `| ${s.number} | ${s.title} (${s.spec}) | ${MARK[s.state] ?? ''} ${s.state} | ${s.at ?? '—'} | ${[s.summary, s.reason ? `Reason: ${s.reason}` : '', s.fix ? `Fix: ${s.fix}` : ''].filter(Boolean).join(' ').replaceAll('|', '\\|')} | ${
          (s.proved_by ?? [])
            .map((x) => `${x.kind} \`${x.id}\` (${x.at ?? '—'})`)
            .join('; ')
            .replaceAll('|', '\\|') || '—'
        } |`,
    ),
    '',
    '## Keys',
    '',
    ...p.keys.flatMap((k) => [
      `- kid \`${k.kid}\` (${k.alg}, ${k.bits} bits, ${k.status}, expires ${k.expires ?? 'never'}), fingerprint \`${k.fingerprint.value}\``,
      '',
      '  ```json',
      `  ${JSON.stringify(k.public_jwk)}`,
      '  ```',
    ]),
    '',
    '## Tokens (signatures shortened)',
    '',
    ...(p.tokens.bank_jwt
      ? [
          'Bank JWT (CX-Authorization):',
          '',
          '```json',
          JSON.stringify({ header: p.tokens.bank_jwt.header, payload: p.tokens.bank_jwt.payload }, null, 2),
          '```',
          '',
        ]
      : []),
    ...(p.tokens.session_token
      ? ['session_token:', '', '```json', JSON.stringify(p.tokens.session_token.payload, null, 2), '```', '']
      : []),
  ];
  return `${lines.join('\n')}\n`;
}
