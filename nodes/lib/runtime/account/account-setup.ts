// What an easy-account config node is made of: its base URL and zone, one EasyClient
// (when a token is set) and the AccountHub that shares it among the account's nodes.
import { accountProxy, accountTuning, plainHttpWarning } from '../../api/account-config';
import { CLIENT_DEFAULTS, DEFAULT_BASE_URL, EasyClient } from '../../api/client';
import { machineTimeZone } from '../../engine/time/time';
import { AccountHub, HubStore } from './hub';

export { machineTimeZone };

/** Tariff nodes of the account refresh at most once a minute (flow-file tuning may lower it, for tests). */
export const DEFAULT_MIN_REFRESH_MS = 60_000;

export interface AccountBasics {
  baseUrl: string;
  timezone: string;
}

/** The base URL and zone a config asks for (the machine's zone when none is set). */
export function accountBasics(config: Record<string, unknown>): AccountBasics {
  return {
    baseUrl: String(config.baseUrl || DEFAULT_BASE_URL).trim(),
    timezone: String(config.timezone || '').trim() || machineTimeZone(),
  };
}

export interface AccountParts {
  hub: AccountHub;
  minRefreshMs: number;
  /** The proxy the account's requests go through (no credentials) and who named it, or null. */
  proxy: { url: string; source: string } | null;
}

/** Builds the account's client and hub; throws in words on a bad zone, URL, proxy or tuning. */
export function createAccount(
  basics: AccountBasics,
  config: Record<string, unknown>,
  credentials: Record<string, string | undefined> | undefined,
  store: HubStore,
  warn: (text: string) => void,
): AccountParts {
  const warning = plainHttpWarning(basics.baseUrl);
  if (warning) warn(warning);
  // timeoutMs, retries, backoff…: flow-file only (api/account-config.ts), defaults otherwise
  const { retryMs, minRefreshMs, ...tuning } = accountTuning(config);
  const token = credentials?.token;
  const proxy = accountProxy({ ...config, proxyUser: credentials?.proxyUser, proxyPassword: credentials?.proxyPassword });
  const client = token ? new EasyClient({ baseUrl: basics.baseUrl, token, proxy, ...tuning }) : null;
  // first answers are waited for as long as one request may take, then the kept data prices
  const firstAnswerWaitMs = tuning.timeoutMs || CLIENT_DEFAULTS.timeoutMs;
  const hub = new AccountHub({ client, timezone: basics.timezone, store, retryMs, firstAnswerWaitMs, warn });
  return { hub, minRefreshMs: minRefreshMs ?? DEFAULT_MIN_REFRESH_MS, proxy: client?.proxy ?? null };
}
