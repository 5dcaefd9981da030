// EasyClient: the three read-only endpoints of the easy API (issue 3), their paths and
// the validation of what comes back. Transport, deadline, retries and sharing of
// identical requests live in ./http.
import { looksLikeSensorsCsv, parseSensorsCsv } from './csv';
import { EasyApiError, EndpointWords, RawResponse, RequestCore, RetryInfo } from './http';
import { Problem, Tariff, parseTariffs } from './tariff';
import { toEpochMs } from './time';

export { EasyApiError } from './http';
export type { EasyApiErrorCode, RetryInfo } from './http';

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
  /** Told before each retry wait, e.g. to show "retrying in 4 s" in a node status. */
  onRetry?: (info: RetryInfo) => void;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface Sensor {
  id: string;
  name: string;
  value: number;
  unit: string | null;
  interval: number | null;
  /** Epoch ms of the last sent value. */
  timestamp: number;
  /** The timestamp exactly as the service sent it. */
  timestampRaw: string;
}

/** The documented sensor timestamp shape, YYYY-MM-DDThh:mmZ, seconds allowed. */
const SENSOR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?Z$/;

const TARIFF_WORDS: EndpointWords = {
  forbidden: 'this account has no access to tariffs',
  notFound: 'the tariffs endpoint was not found, check the base URL',
};

export class EasyClient {
  /** The base URL in use (never holds credentials: those are refused). */
  readonly baseUrl: string;
  readonly #core: RequestCore;

  constructor(options: EasyClientOptions) {
    if (options === null || typeof options !== 'object') throw new TypeError('EasyClient needs an options object');
    const base = checkBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
    this.baseUrl = base.href;
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
        onRetry: options.onRetry,
      },
      checkToken(options.token),
    );
  }

  /** All tariffs of the account: the valid ones plus the problems of the rest (parseTariffs). */
  async fetchTariffs(options: RequestOptions = {}): Promise<{ tariffs: Tariff[]; problems: Problem[] }> {
    const raw = await this.#core.get('/easy/v1/tariffs.json', TARIFF_WORDS, options.signal);
    const json = parseJsonBody(raw, 'the tariffs answer');
    if (!Array.isArray(json)) throw invalid(`the tariffs answer is ${describeJson(json)}, not a list of tariffs`);
    try {
      return parseTariffs(json);
    } catch {
      // parseTariffs reports problems rather than throwing; this is the never-crash guard.
      throw invalid('the tariffs answer could not be read');
    }
  }

  /** The sensors of one gateway with their last values, from the JSON or the CSV form. */
  async fetchSensors(gatewayId: string, options: RequestOptions = {}): Promise<Sensor[]> {
    const gateway = checkId('gatewayId', gatewayId);
    const raw = await this.#core.get(`/easy/v1/gateways/${encodeURIComponent(gateway)}.json`, gatewayWords(gateway), options.signal);
    const what = `the sensors answer of gateway ${gateway}`;
    let items: unknown;
    if (/\btext\/csv\b/i.test(raw.contentType) || looksLikeSensorsCsv(raw.body)) {
      try {
        items = parseSensorsCsv(raw.body);
      } catch (err) {
        throw invalid(`${what}: ${(err as Error).message}`);
      }
    } else {
      items = parseJsonBody(raw, what);
    }
    if (!Array.isArray(items)) throw invalid(`${what} is ${describeJson(items)}, not a list of sensors`);
    return items.map((item, index) => toSensor(item, index, what));
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
    const what = `the data answer of sensor ${sensor} of gateway ${gateway}`;
    const json = parseJsonBody(raw, what);
    if (!Array.isArray(json)) throw invalid(`${what} is ${describeJson(json)}, not a list of readings`);
    return json.map((row, index) => toReading(row, index, what));
  }
}

function gatewayWords(gateway: string): EndpointWords {
  return {
    forbidden: `this account has no access to gateway ${gateway}`,
    notFound: `gateway ${gateway} not found on this account`,
  };
}

function invalid(message: string): EasyApiError {
  return new EasyApiError('invalid_response', message);
}

function parseJsonBody(raw: RawResponse, what: string): unknown {
  if (raw.body.trim() === '') throw invalid(`${what} is empty`);
  try {
    return JSON.parse(raw.body);
  } catch (err) {
    if (/\btext\/html\b/i.test(raw.contentType) || /^\s*</.test(raw.body)) {
      throw invalid(`${what} is a web page, not data (a wrong base URL, or a login page of the mobile network?)`);
    }
    // V8 says "Unexpected end of JSON input" (or "Unterminated string") when the text stops early.
    const cutOff = /end of JSON input|Unterminated/i.test((err as Error).message);
    throw invalid(cutOff ? `${what} is cut off (incomplete JSON)` : `${what} is not valid JSON`);
  }
}

function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return `the text ${JSON.stringify(value.length > 30 ? `${value.slice(0, 30)}…` : value)}`;
  return value === undefined ? 'missing' : describeJson(value);
}

function toSensor(item: unknown, index: number, what: string): Sensor {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    throw invalid(`${what}: item ${index} is ${describeJson(item)}, not a sensor`);
  }
  const fields = item as Record<string, unknown>;
  const label = typeof fields.id === 'string' ? `sensor ${fields.id}` : `item ${index}`;
  const wrong = (field: string, expected: string) =>
    invalid(`${what}: ${label} has ${field} ${describeValue(fields[field])}, expected ${expected}`);

  if (typeof fields.id !== 'string' || fields.id === '') throw wrong('id', 'a non-empty text');
  if (typeof fields.name !== 'string') throw wrong('name', 'a text');
  const timestampRaw = fields.timestamp;
  const timestamp = typeof timestampRaw === 'string' && SENSOR_TIMESTAMP.test(timestampRaw) ? toEpochMs(timestampRaw) : null;
  if (timestamp === null) throw wrong('timestamp', 'a UTC time like 2020-02-04T12:00Z');
  // Numbers must be numbers: a number sent as text is a different shape from the one
  // documented, and accepting it would hide a broken service (issue 6 treats it as a fault).
  if (!isFiniteNumber(fields.value)) throw wrong('value', 'a number');
  const unit = fields.unit ?? null;
  if (unit !== null && typeof unit !== 'string') throw wrong('unit', 'a text or nothing');
  const interval = fields.interval ?? null;
  if (interval !== null && !(isFiniteNumber(interval) && interval >= 0)) throw wrong('interval', 'a number or nothing');
  return {
    id: fields.id,
    name: fields.name,
    value: fields.value,
    // An empty unit (the CSV form's "") says the same as no unit.
    unit: unit === '' ? null : (unit as string | null),
    interval: interval as number | null,
    timestamp: timestamp as number,
    timestampRaw: timestampRaw as string,
  };
}

function toReading(row: unknown, index: number, what: string): [number, number] {
  if (!Array.isArray(row) || row.length !== 2) {
    throw invalid(`${what}: row ${index} is ${describeJson(row)}${Array.isArray(row) ? ` of ${row.length}` : ''}, expected [timestamp, value]`);
  }
  const [rawTime, value] = row as [unknown, unknown];
  // Only text timestamps: a bare number could be seconds or milliseconds, nobody can tell.
  const at = typeof rawTime === 'string' ? toEpochMs(rawTime) : null;
  if (at === null) throw invalid(`${what}: row ${index} has timestamp ${describeValue(rawTime)}, expected an ISO date and time`);
  if (!isFiniteNumber(value)) throw invalid(`${what}: row ${index} has value ${describeValue(value)}, expected a number`);
  return [at, value];
}

function isFiniteNumber(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
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
