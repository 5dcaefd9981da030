// Which HTTP proxy a request to the service goes through: the one an account names, or
// the one the environment of Node-RED names (HTTP_PROXY / HTTPS_PROXY / ALL_PROXY and
// NO_PROXY, lower case first, as curl, axios and Node-RED's own http request node read
// them), or none. Decided here, not by axios, so that the decision is the same on every
// Node version and can be named (without credentials) in errors and the log.

/** A proxy to use: where it is, and its user and password (secrets: never shown). */
export interface ProxyChoice {
  url: URL;
  /** `http://host:port` of the proxy: what errors and logs may show. */
  display: string;
  /** Where it came from, for the log: 'HTTPS_PROXY', 'account'… */
  source: string;
  auth?: { username: string; password: string };
}

/** The account's choice: the environment (default), no proxy at all, or this proxy URL. */
export type ProxySetting = { mode: 'env' } | { mode: 'none' } | { mode: 'url'; url: string; username?: string; password?: string };

type Env = Record<string, string | undefined>;

/**
 * A proxy URL as typed (`http://proxy:3128`, `proxy:3128`, `https://u:p@proxy`) checked
 * and split; throws a TypeError in words that never quote a password.
 */
export function parseProxyUrl(text: string, source: string, credentials: { username?: string; password?: string } = {}): ProxyChoice {
  const trimmed = text.trim();
  let url: URL;
  try {
    // a bare host:port means an http proxy, as curl reads it
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`);
  } catch {
    throw new TypeError(`the proxy of ${source} is not a URL (expected e.g. http://proxy.example:3128)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`the proxy of ${source} must be an http:// or https:// proxy, not ${url.protocol}//`);
  }
  if (!url.hostname) throw new TypeError(`the proxy of ${source} has no host name`);
  const username = credentials.username || safeDecode(url.username);
  const password = credentials.password || safeDecode(url.password);
  const display = `${url.protocol}//${url.host}`;
  // the URL kept has no credentials: whatever prints it shows none
  const bare = new URL(display);
  return { url: bare, display, source, ...(username || password ? { auth: { username, password } } : {}) };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The environment's proxy for a request to `target`, or null (none set, or NO_PROXY says no). */
export function proxyFromEnv(target: URL, env: Env = process.env): ProxyChoice | null {
  const scheme = target.protocol.replace(/:$/, '');
  const names = [`${scheme}_proxy`, `${scheme.toUpperCase()}_PROXY`, 'all_proxy', 'ALL_PROXY'];
  const name = names.find((n) => (env[n] ?? '').trim() !== '');
  if (!name) return null;
  if (bypassesProxy(target, env.no_proxy || env.NO_PROXY || '')) return null;
  return parseProxyUrl(env[name] as string, `the environment (${name})`);
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * NO_PROXY: a list (commas or spaces) of host names, domains (`example.com`,
 * `.example.com` and `*.example.com` all match the domain and every name below it), IP
 * addresses, each optionally with `:port`; `*` alone matches every host. No CIDR ranges.
 */
export function bypassesProxy(target: URL, noProxy: string): boolean {
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port || DEFAULT_PORTS[target.protocol] || '';
  for (const raw of noProxy.toLowerCase().split(/[\s,]+/)) {
    if (!raw) continue;
    if (raw === '*') return true;
    let entry = raw;
    let entryPort: string | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(raw);
    if (bracketed) [, entry, entryPort] = bracketed;
    // one colon: host:port; more: a bare IPv6 address, taken whole
    else if (raw.split(':').length === 2) [entry, entryPort] = raw.split(':');
    if (entryPort && entryPort !== port) continue;
    entry = entry.replace(/^\*?\.?/, '');
    if (entry && (host === entry || host.endsWith(`.${entry}`))) return true;
  }
  return false;
}

/** The proxy a client for `baseUrl` uses with this setting, or null for a direct connection. */
export function chooseProxy(setting: ProxySetting, baseUrl: URL, env: Env = process.env): ProxyChoice | null {
  if (setting.mode === 'none') return null;
  if (setting.mode === 'url') return parseProxyUrl(setting.url, 'the account', setting);
  return proxyFromEnv(baseUrl, env);
}
