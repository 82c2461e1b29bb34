/**
 * The bank's administration (DESIGN.md "Bank endpoints", the Bank page and `bank` CLI): its
 * status, the customers, behaviours, forward mode, the notification prefix and the service JWKS
 * setting. Every change is announced as `bank.changed` with the whole status.
 *
 * Failure model: each input is checked whole before anything is written (settings.ts,
 * customers.ts), so a bad one loses nothing stored and says what is wrong.
 */
import type { z } from 'zod';
import { ConsoleError } from '../../contract/errors';
import {
  type BankStatus,
  type Behaviours,
  type Customer,
  type CustomerView,
  type ForwardSettings,
  type ServiceJwksChange,
  ServiceJwksSetting,
} from '../../contract/schemas/bank';
import { badArgument, firstIssueMessage } from '../common';
import { parseCustomers, toView } from './customers';
import { type BankSettings, checkBehaviours, checkNotifyPrefix } from './settings';
import type { BankState } from './state';
import type { JwksSource } from '../jwt';

/** The status as it is now; service_jwks_url is the client's last URL (status() fills a missing one). */
export function statusNow(state: BankState): BankStatus {
  const s = state.settings.get();
  const j = state.jwks.state();
  const warnings = [state.customers.warning(), state.settings.warning()].filter(
    (w): w is string => w !== null,
  );
  return {
    // Issue 13 item 3: the listener's URL is part of every status, so a `bank.changed` after a
    // settings change never tells the page "not running" while the listener answers.
    url: [...state.servers][0]?.url ?? null,
    notify_path_prefix: s.notify_path_prefix,
    service_jwks_url: j.url,
    service_jwks_setting: s.service_jwks_url,
    jwks: {
      kids: j.kids,
      fetched_at: j.fetched_at,
      stale: j.stale,
      error: j.error,
      rejected: j.rejected,
      duplicates: j.duplicates,
    },
    customers: state.customers.count(),
    behaviours: s.behaviours,
    forward: s.forward,
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** Emits `bank.changed` with the whole status; a listener's or schema's failure never breaks a request. */
export function announce(state: BankState): void {
  try {
    state.options.events.emit('bank.changed', statusNow(state));
  } catch {
    // a listener's or schema's failure never breaks a request
  }
}

/**
 * An explicit service JWKS URL: the bank's own setting first (issue 13 item 6: the Conformance
 * page points it at the runner's JWKS), else what the host says (--service-jwks-url); null when
 * callbacks are judged against every environment's JWKS.
 */
export async function overrideJwksUrl(state: BankState): Promise<string | null> {
  return state.settings.get().service_jwks_url ?? (await state.options.serviceJwksUrl());
}

/**
 * The JWKS callbacks are judged against (issue 26; DESIGN.md "Environments"): an explicit URL
 * alone, named after the environment that publishes there when one does; else every
 * environment's service JWKS, the header's environment changing none of them.
 */
export async function jwksSources(state: BankState): Promise<JwksSource[]> {
  const override = await overrideJwksUrl(state);
  const envs = (await state.options.environmentJwks?.().catch(() => [])) ?? [];
  if (override === null) return envs;
  const owner = envs.find((s) => s.url === override);
  const name =
    owner?.name ??
    (state.settings.get().service_jwks_url ? 'the Bank page’s JWKS URL' : '--service-jwks-url');
  return [{ environment: owner?.environment ?? null, name, url: override, active: true }];
}

/** The service JWKS URL in force for the header's environment: the override, else the active environment's. */
export async function serviceJwksUrl(state: BankState): Promise<string | null> {
  const sources = await jwksSources(state);
  return (sources.find((s) => s.active) ?? sources[0])?.url ?? null;
}

/** The status, after loading the customers again if their last load failed (a vault unlocked since). */
export async function status(state: BankState): Promise<BankStatus> {
  const before = state.customers.count();
  await state.customers.retryLoad();
  if (state.customers.count() !== before) announce(state);
  const s = statusNow(state);
  if (s.service_jwks_url === null) s.service_jwks_url = await serviceJwksUrl(state).catch(() => null);
  return s;
}

export async function saveCustomer(
  state: BankState,
  customer: Customer,
): Promise<z.output<typeof CustomerView>> {
  const saved = await state.customers.save(customer);
  announce(state);
  return toView(saved);
}

export async function removeCustomer(state: BankState, obj: string): Promise<void> {
  const removed = await state.customers.remove(obj);
  if (!removed) throw new ConsoleError('NOT_FOUND', `no customer with obj ${JSON.stringify(obj)}`);
  announce(state);
}

/** Replaces the directory with a `--users` file's content, validated whole first. */
export async function importCustomers(state: BankState, value: unknown): Promise<number> {
  const list = parseCustomers(value);
  await state.customers.replaceAll(list);
  announce(state);
  return list.length;
}

/** Writes one checked setting, announces the change and answers the setting as stored. */
async function changeSetting<K extends keyof BankSettings>(
  state: BankState,
  name: K,
  value: BankSettings[K],
): Promise<BankSettings[K]> {
  const next = await state.settings.update({ [name]: value });
  announce(state);
  return next[name];
}

export async function setBehaviours(
  state: BankState,
  behaviours: z.output<typeof Behaviours>,
): Promise<z.output<typeof Behaviours>> {
  return changeSetting(state, 'behaviours', checkBehaviours(behaviours));
}

/** Forward mode's backend, without a trailing slash; no query, fragment or credentials. */
export async function setForward(
  state: BankState,
  forward: z.output<typeof ForwardSettings>,
): Promise<z.output<typeof ForwardSettings>> {
  const url = forward.url === null ? null : forward.url.replace(/\/+$/, '');
  if (url !== null) {
    const parsed = new URL(url);
    if (parsed.search || parsed.hash || parsed.username || parsed.password) {
      throw badArgument('forward url must have no query, fragment or credentials', 'url');
    }
  }
  return changeSetting(state, 'forward', { url });
}

export async function setNotifyPrefix(state: BankState, prefix: string): Promise<string> {
  return changeSetting(state, 'notify_path_prefix', checkNotifyPrefix(prefix));
}

/** The bank's own service JWKS URL; the answer says what was in force before and after. */
export async function setServiceJwksUrl(state: BankState, wanted: string | null): Promise<ServiceJwksChange> {
  const parsed = ServiceJwksSetting.safeParse({ url: wanted });
  if (!parsed.success) {
    throw badArgument(
      `service JWKS URL ${JSON.stringify(wanted)} ${firstIssueMessage(parsed.error, 'is not valid')}`,
      'url',
    );
  }
  const previousSetting = state.settings.get().service_jwks_url;
  const previousUrl = await serviceJwksUrl(state).catch(() => null);
  await state.settings.update({ service_jwks_url: parsed.data.url });
  // In force for the next callback, not up to a second later.
  const url = await state.jwks.rereadUrl();
  announce(state);
  return { previous_setting: previousSetting, previous_url: previousUrl, setting: parsed.data.url, url };
}
