/**
 * The sandbox's operations, written once: the ConsoleApi methods (through the Sandbox facade)
 * and the HTTP routes (service-routes.ts, control-routes.ts) both call these, so the desktop,
 * the CLI and a bank's CI see the same behaviour.
 *
 * Each change validates everything first, then applies it in memory synchronously, then
 * persists and announces it (`sandbox.changed`); a refused request changes nothing. The
 * authenticate path (the one benchmarked) only reads: no state write, no trace.
 */
import type {
  Counterparty,
  NotifyResult,
  SandboxChange,
  SandboxSettings,
  SandboxStatus,
  SignInResult,
  Trace,
} from '../../contract/schemas/sandbox';
import { NotifyInput, OnboardInput, UpdateCounterpartyInput } from '../../contract/schemas/sandbox';
import { DeliveriesInput, type Delivery } from '../../contract/schemas/delivery';
import { invalidArgument } from '../common';
import type { EventHub } from '../event-hub';
import { SIGN_IN_FLOW } from '../jwt';
import { BankJwtVerifier } from './bank-jwt';
import { DeliveryEngine } from './delivery';
import { badRequest, notFound, unauthorized } from './errors';
import { newGuid, parseGuid } from './guid';
import { checkRegistrableJwk } from './jwk-rules';
import { runNotify } from './notify';
import { Registry } from './registry';
import { applySettings, DEFAULT_SETTINGS } from './settings';
import { runSignIn } from './sign-in-flow';
import { SigningKeys } from './signing-keys';
import { StateStore } from './state-store';
import { TraceLog } from './trace-log';
import type { SecretSealer } from '../vault';

export interface EngineOptions {
  dataDir: string;
  events: EventHub;
  sealer?: SecretSealer;
  now?: () => number;
  /** `--time-scale F` (0 < F ≤ 1): every wait of the delivery ladder and every delivery timeout × F. */
  timeScale?: number;
}

const clone = <T>(value: T): T => structuredClone(value);

export class SandboxEngine {
  readonly now: () => number;
  /** The base URL of this sandbox's listener, for status events (null when not listening). */
  url: string | null = null;
  private settings: SandboxSettings = DEFAULT_SETTINGS;
  private readonly verifier = new BankJwtVerifier();
  /** Notifications on the service's ladder (delivery/engine.ts); set once the state is loaded. */
  private deliveryEngine: DeliveryEngine | null = null;

  private constructor(
    private readonly events: EventHub,
    private readonly store: StateStore,
    private readonly keys: SigningKeys,
    private readonly registry: Registry,
    private readonly traceLog: TraceLog,
    now: () => number,
  ) {
    this.now = now;
  }

  /** Loads the state (STATE_DAMAGED when the file is unusable) and the signing key. */
  static async create(options: EngineOptions): Promise<SandboxEngine> {
    const now = options.now ?? Date.now;
    const { store, state } = await StateStore.open(options.dataDir);
    const settings = state?.settings ?? DEFAULT_SETTINGS;
    let loaded: Awaited<ReturnType<typeof SigningKeys.load>>;
    try {
      loaded = await SigningKeys.load(state?.keys ?? [], {
        sealer: options.sealer,
        nowMs: now(),
        graceSeconds: settings.key_grace_seconds,
      });
    } catch (err) {
      await store.close();
      throw err;
    }
    const engine = new SandboxEngine(
      options.events,
      store,
      loaded.keys,
      new Registry(state?.counterparties ?? []),
      new TraceLog(state?.traces ?? []),
      now,
    );
    engine.settings = settings;
    engine.deliveryEngine = engine.openDeliveries(options);
    for (const message of loaded.notices) engine.notice('warning', message);
    if (!options.sealer) {
      engine.notice(
        'warning',
        `No vault is open: the sandbox's signing key (kid ${loaded.keys.activeKid}) lives in memory only, and a restart ` +
          'publishes a new key. Banks that cached the sandbox JWKS must fetch it again after a restart.',
      );
    }
    try {
      if (!state?.settings) await store.saveSettings(settings);
      if (loaded.changed || state === null) await store.saveKeys(loaded.keys.toStored(now()));
    } catch (err) {
      await engine.deliveryEngine.close();
      await store.close();
      throw err;
    }
    return engine;
  }

  /** The deliveries of this profile, resumed; each change is announced (`sandbox.delivery`). */
  private openDeliveries(options: EngineOptions): DeliveryEngine {
    return DeliveryEngine.open({
      dataDir: options.dataDir,
      settings: () => this.settings,
      timeScale: options.timeScale,
      now: this.now,
      onChange: (d) => this.events.emit('sandbox.attempted', d),
      // Issue 27 item 3: an escalation is an event of its own (the header's indicator listens to
      // it), and a notice in the status bar says it in words.
      onEscalated: (d) => {
        this.events.emit('sandbox.escalated', d);
        this.notice(
          'warning',
          `Notification ${d.event} ${d.transaction_id} escalated to manual processing after ${d.attempts.filter((a) => !a.copy).length} attempts: ${d.url} never answered 2xx (delivery ${d.delivery_id}).`,
        );
      },
      onProblem: (message) => this.notice('error', message),
    });
  }

  private get deliveries(): DeliveryEngine {
    if (!this.deliveryEngine) throw new Error('the sandbox is not loaded');
    return this.deliveryEngine;
  }

  /** GET /sandbox/v1/deliveries/{id}; NOT_FOUND when unknown. */
  delivery(id: unknown): Delivery {
    const guid = parseGuid('delivery_id', id);
    const d = this.deliveries.get(guid);
    if (!d) throw notFound(`no delivery ${guid}: it never existed here, or it was trimmed`);
    return d;
  }

  /** GET /sandbox/v1/deliveries: the newest 500, newest first, filtered. */
  listDeliveries(input: unknown): Delivery[] {
    const parsed = DeliveriesInput.safeParse(input ?? {});
    if (!parsed.success) throw invalidArgument(parsed.error, 'deliveries');
    return this.deliveries.list(parsed.data);
  }

  // ------------------------------------------------------------------------ reading

  status(): Omit<SandboxStatus, 'url'> {
    return {
      key_persistence: this.keys.persistence,
      keys: this.keys.status(this.now()),
      counterparties: this.registry.list().map(clone),
      settings: { ...this.settings },
    };
  }

  currentSettings(): SandboxSettings {
    return { ...this.settings };
  }

  /** The JWK set of spec 4.1 #3. */
  jwks(): { keys: object[] } {
    return this.keys.jwks(this.now());
  }

  counterparty(guid: unknown, name = 'counterparty_guid'): Counterparty {
    return clone(this.registry.require(parseGuid(name, guid)));
  }

  traces(query: { counterparty_guid?: string; limit?: number } = {}): Trace[] {
    const guid =
      query.counterparty_guid === undefined
        ? undefined
        : parseGuid('counterparty_guid', query.counterparty_guid);
    const limit = query.limit;
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 1000)) {
      throw badRequest('limit must be a whole number from 1 to 1000', 'limit');
    }
    return this.traceLog.list({ counterparty_guid: guid, limit }).map(clone);
  }

  // ----------------------------------------------------------- service endpoints (/api/v1)

  /**
   * Spec 4.1 #2: checks the bank's JWT for the counterparty and answers a session_token signed
   * by the sandbox (claims flow, obj, sub from the bank's JWT, iat, exp = iat + token TTL).
   * The hot path: reads only.
   */
  async authenticate(
    counterpartyGuid: string,
    token: string | undefined,
  ): Promise<{ session_token: string }> {
    const cp = this.registry.require(parseGuid('counterparty_guid', counterpartyGuid));
    const verdict = await this.verifier.verify(cp, token, this.now(), this.settings.max_lifetime_seconds);
    if (!verdict.ok) throw unauthorized(verdict.detail, verdict.rule);
    const session_token = await this.signServiceToken({ obj: verdict.claims.obj, sub: verdict.claims.sub });
    return { session_token };
  }

  /** GET /api/v1/counterparty/{guid}/jwk (the public guide): the registered keys. */
  async listJwks(
    counterpartyGuid: string,
    token: string | undefined,
  ): Promise<Array<{ guid: string; data: object }>> {
    const cp = this.registry.require(parseGuid('counterparty_guid', counterpartyGuid));
    await this.requireBankJwt(cp, token);
    return cp.jwks.map((r) => ({ guid: r.jwk_guid, data: clone(r.jwk) }));
  }

  /**
   * PUT .../jwk/{jwk_guid} (spec 4.1 #1) and POST .../jwk (the guide): registers a bank's new
   * public JWK. The request must itself carry a valid CX-Authorization from a key already
   * registered for the counterparty, and the body must be `{"data": JWK}`.
   */
  async registerJwk(
    counterpartyGuid: string,
    token: string | undefined,
    body: unknown,
    target: { via: 'put'; jwk_guid: string } | { via: 'post' },
  ): Promise<{ jwk_guid: string }> {
    const cp = this.registry.require(parseGuid('counterparty_guid', counterpartyGuid));
    const jwkGuid = target.via === 'put' ? parseGuid('jwk_guid', target.jwk_guid) : newGuid();
    await this.requireBankJwt(cp, token);
    const jwk = await checkRegistrableJwk(dataOf(body), 'data');
    this.registry.register(cp, jwkGuid, jwk, target.via, this.now());
    await this.commit('counterparties', this.store.saveCounterparty(cp));
    return { jwk_guid: jwkGuid };
  }

  private async requireBankJwt(cp: Counterparty, token: string | undefined): Promise<void> {
    const verdict = await this.verifier.verify(cp, token, this.now(), this.settings.max_lifetime_seconds);
    if (!verdict.ok) throw unauthorized(verdict.detail, verdict.rule);
  }

  // -------------------------------------------------------- sandbox controls (/sandbox/v1)

  /** Onboarding stand-in: a counterparty with its initial public JWK and bank URLs. */
  async onboard(input: unknown): Promise<{ counterparty_guid: string; jwk_guid: string }> {
    const parsed = OnboardInput.safeParse(input);
    if (!parsed.success) throw invalidArgument(parsed.error, 'onboarding');
    const data = parsed.data;
    const jwk = await checkRegistrableJwk(data.jwk, 'jwk');
    const counterpartyGuid = data.counterparty_guid?.toLowerCase() ?? newGuid();
    const jwkGuid = data.jwk_guid?.toLowerCase() ?? newGuid();
    const nowMs = this.now();
    const cp: Counterparty = {
      counterparty_guid: counterpartyGuid,
      created_at: new Date(nowMs).toISOString(),
      bank_auth_url: data.bank_auth_url ?? null,
      bank_sender_url: data.bank_sender_url ?? null,
      bank_receiver_url: data.bank_receiver_url ?? null,
      jwks: [],
    };
    this.registry.register(cp, jwkGuid, jwk, 'onboarding', nowMs);
    this.registry.add(cp);
    await this.commit('counterparties', this.store.saveCounterparty(cp));
    return { counterparty_guid: counterpartyGuid, jwk_guid: jwkGuid };
  }

  async updateCounterparty(input: unknown): Promise<Counterparty> {
    const parsed = UpdateCounterpartyInput.safeParse(input);
    if (!parsed.success) throw invalidArgument(parsed.error, 'counterparty update');
    const cp = this.registry.require(parsed.data.counterparty_guid.toLowerCase());
    this.registry.updateUrls(cp, parsed.data);
    await this.commit('counterparties', this.store.saveCounterparty(cp));
    return clone(cp);
  }

  /** Removes a counterparty and its registered JWKs (its traces stay, as history, capped). */
  async deleteCounterparty(guid: unknown): Promise<{ deleted: string }> {
    const cp = this.registry.remove(parseGuid('counterparty_guid', guid));
    await this.commit('counterparties', this.store.deleteCounterparty(cp.counterparty_guid));
    return { deleted: cp.counterparty_guid };
  }

  /** Spec 4.4 with the token as CX-Authorization; records and announces the trace. */
  async signIn(counterpartyGuid: unknown, token: string | undefined): Promise<SignInResult> {
    const cp = this.registry.require(parseGuid('counterparty_guid', counterpartyGuid));
    const result = await runSignIn(
      {
        verifier: this.verifier,
        settings: () => this.settings,
        now: this.now,
        signServiceToken: (claims) => this.signServiceToken(claims),
      },
      cp,
      token,
    );
    await this.record(result.trace);
    return result;
  }

  async notify(input: unknown): Promise<NotifyResult> {
    const parsed = NotifyInput.safeParse(input);
    if (!parsed.success) throw invalidArgument(parsed.error, 'notification');
    const cp = this.registry.require(parsed.data.counterparty_guid.toLowerCase());
    const result = await runNotify(
      { settings: () => this.settings, now: this.now, deliveries: this.deliveries },
      cp,
      parsed.data,
    );
    await this.record(result.trace);
    return result;
  }

  async rotateKey(): Promise<string> {
    const kid = await this.keys.rotate(this.now(), this.settings.key_grace_seconds);
    await this.commit('keys', this.store.saveKeys(this.keys.toStored(this.now())));
    return kid;
  }

  async updateSettings(partial: unknown): Promise<SandboxSettings> {
    this.settings = applySettings(this.settings, partial);
    await this.commit('settings', this.store.saveSettings(this.settings));
    return { ...this.settings };
  }

  /** A service JWT (spec 2.4): flow sign-in, obj, sub, iat, exp; signed with the active key. */
  signServiceToken(claims: { obj: string; sub: string; iat?: number; exp?: number }): Promise<string> {
    const iat = claims.iat ?? Math.floor(this.now() / 1000);
    const exp = claims.exp ?? iat + this.settings.token_ttl_seconds;
    return this.keys.sign({ flow: SIGN_IN_FLOW, obj: claims.obj, sub: claims.sub, iat, exp });
  }

  // ---------------------------------------------------------------------- state

  /** Waits for every pending write. */
  flush(): Promise<void> {
    return this.store.flush();
  }

  /** Stops the ladder (attempts in flight finish), waits for every pending write, gives the database back. */
  async close(): Promise<void> {
    await this.deliveryEngine?.close();
    await this.store.close();
  }

  /**
   * Waits for a change's write (asked synchronously after the in-memory change, so writes
   * reach the database in the order the changes were made), then announces it.
   */
  private async commit(changed: SandboxChange['changed'], written: Promise<void>): Promise<void> {
    await written;
    // What changed and the sizes, never the lists: O(1) whatever the number of counterparties;
    // a listener that needs the lists asks for sandbox.status.
    this.events.emit('sandbox.changed', {
      url: this.url,
      changed,
      counterparty_count: this.registry.count(),
      key_count: this.keys.count(this.now()),
    });
  }

  /** Keeps a trace (a failed write is reported, not thrown: the caller still gets its result). */
  private async record(trace: Trace): Promise<void> {
    this.traceLog.add(trace);
    try {
      await this.store.addTrace(trace);
    } catch (err) {
      this.notice(
        'error',
        `a sandbox trace could not be stored: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    this.events.emit('sandbox.traced', trace);
  }

  private notice(level: 'info' | 'warning' | 'error', message: string): void {
    this.events.emit('app.noticed', { at: new Date(this.now()).toISOString(), level, message });
  }
}

/** The JWK inside a `{"data": JWK}` body, or BAD_ARGUMENT saying what the body should be. */
function dataOf(body: unknown): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('the body must be a JSON object {"data": JWK}', 'data');
  }
  const record = body as Record<string, unknown>;
  if (!Object.hasOwn(record, 'data')) {
    const bare = 'kty' in record ? ': it looks like a bare JWK; wrap it as {"data": {…}}' : '';
    throw badRequest(`data is missing: the body must be {"data": JWK} (spec 2.1)${bare}`, 'data');
  }
  return record.data;
}
