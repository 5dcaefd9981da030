// EasyClient: the three read-only endpoints of the easy API and their paths.
// Transport, deadline, retries and sharing of identical requests live in ./http; the
// proxy decision in ./proxy; the checking of what comes back in ./responses.
import { EndpointWords, RequestCore, RetryInfo } from './http';
import { ProxySetting, chooseProxy } from './proxy';
import { Sensor, readReadings, readSensors, readTariffs } from './responses';
import { Problem, Tariff } from '../engine/tariff/tariff';
import { toEpochMs } from '../engine/time/time';

export { EasyApiError } from './http';
export type { EasyApiErrorCode, RetryInfo } from './http';
export type { Sensor } from './responses';

export const DEFAULT_BASE_URL = 'https://api.rayleighconnect.net';

export const CLIENT_DEFAULTS = Object.freeze({
  /** Whole request, connect to last byte; a GSM link can be slow but not this slow. */
  timeoutMs: 15_000,
  /** Retries after the first attempt, for network errors, timeouts, 429 and 5xx. */
  retries: 3,
  /** Far above any real answer (the demo account's sensors are ~3 kB). */
  maxBodyBytes: 2 * 1024 * 1024,
  /** Retry-After beyond this is not obeyed; the client waits this long instead. */
  retryAfterCapMs: 60_000,
  backoffBaseMs: 1_000,
  backoffCapMs: 30_000,
});

export interface EasyClientOptions {
  baseUrl?: string;
  token: string;
  timeoutMs?: number;
  retries?: number;
  maxBodyBytes?: number;
  retryAfterCapMs?: number;
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /**
   * The HTTP proxy: left out, the environment's (HTTPS_PROXY / HTTP_PROXY / ALL_PROXY and
   * NO_PROXY, lower or upper case); `false`, none whatever the environment says; a URL
   * (`http://proxy.example:3128`, user and password in it or beside it), that proxy.
   */
  proxy?: false | string | { url: string; username?: string; password?: string };
  /** Certificates (PEM) to trust for the service instead of Node's list (a private CA, a test's own). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Told before each retry wait, e.g. to show "retrying in 4 s" in a node status. */
  onRetry?: (info: RetryInfo) => void;
  /** Source of the retry waits' jitter, uniform in [0, 1) (default Math.random). */
  random?: () => number;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

const TARIFF_WORDS: EndpointWords = {
  forbidden: 'this account has no access to tariffs',
  notFound: 'the tariffs endpoint was not found, check the base URL',
};

export class EasyClient {
  /** The base URL in use (never holds credentials: those are refused). */
  readonly baseUrl: string;
  /** The proxy requests go through (`http://host:port`, no credentials) and who named it, or null. */
  readonly proxy: { url: string; source: string } | null;
  readonly #core: RequestCore;

  constructor(options: EasyClientOptions) {
    if (options === null || typeof options !== 'object') throw new TypeError('EasyClient needs an options object');
    const base = checkBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
    this.baseUrl = base.href;
    const proxy = chooseProxy(proxySetting(options.proxy), base);
    this.proxy = proxy ? { url: proxy.display, source: proxy.source } : null;
    this.#core = new RequestCore(
      {
        baseUrl: base,
        timeoutMs: positive('timeoutMs', options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs),
        retries: wholeNumber('retries', options.retries ?? CLIENT_DEFAULTS.retries),
        maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes ?? CLIENT_DEFAULTS.maxBodyBytes),
        retryAfterCapMs: wholeNumber('retryAfterCapMs', options.retryAfterCapMs ?? CLIENT_DEFAULTS.retryAfterCapMs),
        backoffBaseMs: wholeNumber('backoffBaseMs', options.backoffBaseMs ?? CLIENT_DEFAULTS.backoffBaseMs),
        backoffCapMs: wholeNumber('backoffCapMs', options.backoffCapMs ?? CLIENT_DEFAULTS.backoffCapMs),
        userAgent: 'node-red-easy (+https://github.com/tariffkit/node-red-easy)',
        proxy,
        ca: options.ca,
        onRetry: options.onRetry,
        random: options.random,
      },
      checkToken(options.token),
    );
  }

  /** All tariffs of the account: the valid ones plus the problems of the rest (parseTariffs). */
  async fetchTariffs(options: RequestOptions = {}): Promise<{ tariffs: Tariff[]; problems: Problem[] }> {
    const raw = await this.#core.get('/easy/v1/tariffs.json', TARIFF_WORDS, options.signal);
    return readTariffs(raw.body, raw.contentType);
  }

  /** The sensors of one gateway with their last values, from the JSON or the CSV form. */
  async fetchSensors(gatewayId: string, options: RequestOptions = {}): Promise<Sensor[]> {
    const gateway = checkId('gatewayId', gatewayId);
    const raw = await this.#core.get(`/easy/v1/gateways/${encodeURIComponent(gateway)}.json`, gatewayWords(gateway), options.signal);
    return readSensors(raw.body, raw.contentType, gateway);
  }

  /**
   * Archival readings of one sensor, `[epochMs, value]` in the service's order. `from`
   * and `to` are instants (epoch ms, Date or ISO string; no offset = UTC) sent as UTC
   * with Z to the second: `from` rounded down, `to` up, so the range is never narrowed.
   * Options may also come fourth when `to` is left out.
   */
  async fetchData(
    gatewayId: string,
    sensorId: string,
    from: unknown,
    to?: unknown,
    options: RequestOptions = {},
  ): Promise<Array<[number, number]>> {
    if (isRequestOptions(to)) {
      // fetchData(gw, sensor, from, { signal }): no Date or instant is a plain object.
      options = to;
      to = undefined;
    }
    const gateway = checkId('gatewayId', gatewayId);
    const sensor = checkId('sensorId', sensorId);
    const fromMs = instant('from', from);
    const query = new URLSearchParams({ from: utcSeconds(Math.floor(fromMs / 1000)) });
    if (to !== undefined && to !== null) {
      const toMs = instant('to', to);
      if (toMs < fromMs) throw new RangeError('fetchData: to is before from');
      query.set('to', utcSeconds(Math.ceil(toMs / 1000)));
    }
    const path = `/easy/v1/gateways/${encodeURIComponent(gateway)}/${encodeURIComponent(sensor)}/data.json?${query}`;
    const words: EndpointWords = {
      forbidden: `this account has no access to the data of gateway ${gateway}`,
      notFound: `sensor ${sensor} of gateway ${gateway} not found on this account`,
    };
    const raw = await this.#core.get(path, words, options.signal);
    return readReadings(raw.body, raw.contentType, `the data answer of sensor ${sensor} of gateway ${gateway}`);
  }
}

function gatewayWords(gateway: string): EndpointWords {
  return {
    forbidden: `this account has no access to gateway ${gateway}`,
    notFound: `gateway ${gateway} not found on this account`,
  };
}

function proxySetting(proxy: EasyClientOptions['proxy']): ProxySetting {
  if (proxy === undefined || proxy === null) return { mode: 'env' };
  if (proxy === false) return { mode: 'none' };
  if (typeof proxy === 'string') return { mode: 'url', url: proxy };
  if (typeof proxy === 'object' && typeof proxy.url === 'string') {
    return { mode: 'url', url: proxy.url, username: proxy.username, password: proxy.password };
  }
  throw new TypeError('proxy must be false, a proxy URL, or { url, username?, password? }');
}

function isRequestOptions(x: unknown): x is RequestOptions {
  return x !== null && typeof x === 'object' && !(x instanceof Date);
}

function utcSeconds(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function instant(what: string, x: unknown): number {
  const ms = toEpochMs(x);
  if (ms === null) throw new TypeError(`fetchData: ${what} must be epoch ms, a Date or an ISO 8601 string`);
  return ms;
}

function checkId(what: string, id: unknown): string {
  if (typeof id !== 'string' || id.trim() === '') throw new TypeError(`${what} must be a non-empty text`);
  // URLs resolve "." and ".." segments even percent-encoded, which would point the
  // request at another path of the API.
  if (id === '.' || id === '..') throw new TypeError(`${what} cannot be "${id}"`);
  return id;
}

function checkBaseUrl(text: unknown): URL {
  if (typeof text !== 'string' || text.trim() === '') throw new TypeError('baseUrl must be a URL such as https://api.rayleighconnect.net');
  // "api.example.net" or "localhost:1880": what is missing is the scheme, say so
  if (!/^[a-z][a-z\d+.-]*:/i.test(text.trim()) || /^[^:/]+:\d/.test(text.trim())) {
    throw new TypeError('baseUrl has no scheme: begin it with https:// (e.g. https://api.rayleighconnect.net)');
  }
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    // Not echoed: a mistyped URL may still hold a user name and password.
    throw new TypeError('baseUrl is not a URL (expected e.g. https://api.rayleighconnect.net)');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new TypeError(`baseUrl must start with https:// or http://, not ${url.protocol}//`);
  }
  if (url.username || url.password) throw new TypeError('baseUrl must not contain a user name or password (the token is given separately)');
  if (url.search || url.hash) throw new TypeError('baseUrl must not have a query (?…) or fragment (#…)');
  return url;
}

function checkToken(token: unknown): string {
  if (typeof token !== 'string' || token.trim() === '') throw new TypeError('an access token is required');
  const trimmed = token.trim();
  // Only visible ASCII can go into a header; the token itself is never quoted back.
  if (!/^[\x21-\x7e]+$/.test(trimmed)) throw new TypeError('the access token contains spaces or characters that cannot be sent');
  return trimmed;
}

function positive(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new TypeError(`${name} must be a number above 0`);
  return value;
}

function wholeNumber(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new TypeError(`${name} must be a whole number, 0 or more`);
  return value;
}
