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
