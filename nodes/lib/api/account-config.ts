// The plain-http check the config node (and the editor, later) share.

/** True for hosts whose traffic never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The warning for a token that would travel unencrypted (plain http to another
 * machine), or null. A base URL that does not parse gets none: EasyClient refuses it.
 */
export function plainHttpWarning(baseUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return null;
  return `base URL ${url.origin} uses plain http: the access token travels unencrypted`;
}

/**
 * Advanced tuning an easy-account node may carry in the flow file (not shown in the
 * editor): the client's deadline and retries, and the account's first retry after a
 * failed tariff fetch, and the floor of its tariff nodes' refresh (`minRefreshMs`, one
 * minute unless set). For slow links, and for tests that need faults to play out in
 * milliseconds. Absent or empty = the default; a bad value is a configuration error.
 */
export const TUNING_KEYS = ['timeoutMs', 'retries', 'backoffBaseMs', 'backoffCapMs', 'retryAfterCapMs', 'retryMs', 'minRefreshMs'] as const;
export type AccountTuning = Partial<Record<(typeof TUNING_KEYS)[number], number>>;

export function accountTuning(config: Record<string, unknown>): AccountTuning {
  const tuning: AccountTuning = {};
  for (const key of TUNING_KEYS) {
    const raw = config[key];
    if (raw === undefined || raw === null || raw === '') continue;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || ((key === 'retryMs' || key === 'minRefreshMs') && value === 0)) {
      throw new TypeError(`account setting ${key} must be a number of ${key === 'retries' ? 'retries' : 'ms'}, got ${JSON.stringify(raw)}`);
    }
    tuning[key] = value;
  }
  return tuning;
}

/** The proxy fields of an account: mode and URL in the flow, user and password as credentials. */
export interface AccountProxyFields {
  proxyMode?: unknown;
  proxyUrl?: unknown;
  proxyUser?: unknown;
  proxyPassword?: unknown;
}

/**
 * EasyClient's `proxy` option from an account's fields (undefined = the environment's).
 * Throws in words on a bad mode, a missing URL, or a URL holding a user name or password
 * (those would sit in the flow file in clear: they go in the encrypted fields).
 */
export function accountProxy(fields: AccountProxyFields): undefined | false | { url: string; username?: string; password?: string } {
  const mode = fields.proxyMode === undefined || fields.proxyMode === null || fields.proxyMode === '' ? 'env' : fields.proxyMode;
  if (mode === 'env') return undefined;
  if (mode === 'none') return false;
  if (mode !== 'url')
    throw new TypeError(`account setting proxyMode must be env, none or url, got ${JSON.stringify(String(mode).slice(0, 20))}`);
  const url = typeof fields.proxyUrl === 'string' ? fields.proxyUrl.trim() : '';
  if (!url) throw new TypeError('the proxy of the account has no URL (type one, or use the environment or no proxy)');
  if (/^(?:[a-z][a-z0-9+.-]*:\/\/)?[^/?#]*@/i.test(url)) {
    throw new TypeError(
      'the proxy URL of the account must not hold a user name or password: use its user and password fields, which are kept encrypted',
    );
  }
  const text = (x: unknown) => (typeof x === 'string' && x !== '' ? x : undefined);
  return { url, username: text(fields.proxyUser), password: text(fields.proxyPassword) };
}
