// Fault switches of the simulator: their type, defaults, validation, parsing from
// query strings / CLI flags, and the body mangling. sim/README.md documents each one.

export type Endpoint = 'tariffs' | 'sensors' | 'data';
export const ENDPOINTS: Endpoint[] = ['tariffs', 'sensors', 'data'];

/** How many of the next in-scope requests a fault hits: a count (0 = off) or every one. */
export type Times = number | 'all';

/** What a 200 body turns into. */
export type BodyFault =
  | 'malformed' // not parseable: JSON with single quotes; CSV with an unclosed quote
  | 'truncated' // a complete HTTP response whose body stops half way
  | 'cut' // full Content-Length announced, half the body sent, then the connection closes
  | 'object' // an object {"data": [...]} where the array belongs
  | 'missing-fields' // each item lacks a required field (tariff: rules, sensor: value, data row: value)
  | 'string-numbers' // numbers sent as strings (tariff vat and prices, sensor value, data value)
  | 'huge' // hugeBytes of valid JSON: the real items repeated
  | 'gzip-bomb'; // a gzip answer (~1/1000 of hugeBytes on the wire) that inflates to hugeBytes of spaces
export const BODY_FAULTS: BodyFault[] = [
  'malformed',
  'truncated',
  'cut',
  'object',
  'missing-fields',
  'string-numbers',
  'huge',
  'gzip-bomb',
];

export interface Faults {
  /** Endpoints the request faults (latency ... body) hit: 'all', one endpoint or a list (kept as a list). */
  scope: 'all' | Endpoint | Endpoint[];
  /** Added before answering (or dropping). */
  latencyMs: number;
  /** Destroy the socket without any response. */
  drop: Times;
  /** Answer 429 ... */
  rateLimit: Times;
  /** ... with this Retry-After: a number of seconds, or any string sent verbatim (an HTTP date, garbage); null = no header. */
  retryAfter: number | string | null;
  /** Answer serverErrorStatus ... */
  serverError: Times;
  serverErrorStatus: number;
  /** Mangle the body of otherwise successful responses ... */
  body: BodyFault | null;
  /** ... this many times (default every time while `body` is set). */
  bodyTimes: Times;
  /** Size of the 'huge' body, and of the 'gzip-bomb' body once inflated, in bytes. */
  hugeBytes: number;
  /** These tokens now get 401 everywhere (scope does not apply). */
  revokedTokens: string[];
  /** These gateways now get 404 on sensors and data (scope does not apply). */
  removedGateways: string[];
  /** Every token now gets 403 on tariffs (scope does not apply). */
  tariffsRemoved: boolean;
  /** Sensors answers use the CSV form even when `.json` was asked for. */
  sensorsCsv: boolean;
  /** Answer 302 with this Location instead of the request (a moved base URL); null = off. */
  redirectTo: string | null;
  /** Compress answers with gzip when the request accepts it (Accept-Encoding), as a real service does. */
  gzip: boolean;
  /** Send the body of an answer in 10 pieces spread over this many ms (a slow link that is never idle for long). */
  trickleMs: number;
}

export const DEFAULT_FAULTS: Readonly<Faults> = Object.freeze({
  scope: 'all',
  latencyMs: 0,
  drop: 0,
  rateLimit: 0,
  retryAfter: 1,
  serverError: 0,
  serverErrorStatus: 503,
  body: null,
  bodyTimes: 'all',
  hugeBytes: 5 * 1024 * 1024,
  revokedTokens: [],
  removedGateways: [],
  tariffsRemoved: false,
  sensorsCsv: false,
  redirectTo: null,
  gzip: false,
  trickleMs: 0,
} as Faults);

const TIMES_KEYS = ['drop', 'rateLimit', 'serverError', 'bodyTimes'] as const;
const LIST_KEYS = ['revokedTokens', 'removedGateways'] as const;

function fail(key: string, message: string): never {
  throw new TypeError(`fault ${key}: ${message}`);
}

function checkTimes(key: string, value: unknown): Times {
  if (value === 'all') return 'all';
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  return fail(key, `expected a whole number >= 0 or "all", got ${JSON.stringify(value)}`);
}

function checkNumber(key: string, value: unknown, min: number, max = Infinity): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max) return value;
  return fail(key, `expected a number from ${min}${max === Infinity ? '' : ` to ${max}`}, got ${JSON.stringify(value)}`);
}

/** A complete, checked Faults; throws a TypeError naming the first bad switch. */
export function normaliseFaults(input: Record<string, unknown>): Faults {
  for (const key of Object.keys(input)) {
    if (!(key in DEFAULT_FAULTS)) fail(key, `unknown switch (known: ${Object.keys(DEFAULT_FAULTS).join(', ')})`);
  }
  const f = { ...DEFAULT_FAULTS, ...input } as Record<string, unknown>;
  const scope =
    f.scope === 'all'
      ? 'all'
      : typeof f.scope === 'string'
        ? [f.scope]
        : Array.isArray(f.scope)
          ? f.scope
          : fail('scope', 'expected "all", an endpoint or a list of endpoints');
  if (scope !== 'all')
    for (const e of scope)
      if (!ENDPOINTS.includes(e)) fail('scope', `unknown endpoint ${JSON.stringify(e)} (known: ${ENDPOINTS.join(', ')})`);
  const out: Faults = {
    scope: scope === 'all' ? 'all' : [...scope],
    latencyMs: checkNumber('latencyMs', f.latencyMs, 0),
    drop: 0,
    rateLimit: 0,
    retryAfter: f.retryAfter === null || typeof f.retryAfter === 'string' ? f.retryAfter : checkNumber('retryAfter', f.retryAfter, 0),
    serverError: 0,
    serverErrorStatus: checkNumber('serverErrorStatus', f.serverErrorStatus, 500, 599),
    body:
      f.body === null || BODY_FAULTS.includes(f.body as BodyFault)
        ? (f.body as BodyFault | null)
        : fail('body', `expected null or one of ${BODY_FAULTS.join(', ')}`),
    bodyTimes: 'all',
    hugeBytes: checkNumber('hugeBytes', f.hugeBytes, 0),
    revokedTokens: [],
    removedGateways: [],
    tariffsRemoved: typeof f.tariffsRemoved === 'boolean' ? f.tariffsRemoved : fail('tariffsRemoved', 'expected true or false'),
    sensorsCsv: typeof f.sensorsCsv === 'boolean' ? f.sensorsCsv : fail('sensorsCsv', 'expected true or false'),
    redirectTo: f.redirectTo === null || typeof f.redirectTo === 'string' ? f.redirectTo : fail('redirectTo', 'expected null or a URL'),
    gzip: typeof f.gzip === 'boolean' ? f.gzip : fail('gzip', 'expected true or false'),
    trickleMs: checkNumber('trickleMs', f.trickleMs, 0),
  };
  for (const key of TIMES_KEYS) out[key] = checkTimes(key, f[key]);
  for (const key of LIST_KEYS) {
    const list = f[key];
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) fail(key, 'expected a list of strings');
    out[key] = [...list];
  }
  return out;
}

/**
 * Switches from text pairs (a query string, CLI flags, env): numbers and true/false are
 * converted, lists are comma separated, `null` is null. Keys may be camelCase or kebab-case.
 */
export function faultsFromEntries(entries: Array<[string, string]>): Partial<Faults> {
  const out: Record<string, unknown> = {};
  for (const [rawKey, text] of entries) {
    const key = rawKey.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
    if (key === 'scope') out.scope = text === 'all' ? 'all' : text.split(',').filter(Boolean);
    else if ((LIST_KEYS as readonly string[]).includes(key)) out[key] = text.split(',').filter(Boolean);
    else if (text === 'null') out[key] = null;
    else if (text === 'true' || text === 'false') out[key] = text === 'true';
    else if (key !== 'retryAfter' && key !== 'body' && text.trim() !== '' && Number.isFinite(Number(text))) out[key] = Number(text);
    // retryAfter stays text unless it is a plain count of seconds.
    else if (key === 'retryAfter' && /^\d+$/.test(text)) out[key] = Number(text);
    else out[key] = text;
  }
  return out as Partial<Faults>;
}

// ---------------------------------------------------------------------------------------
// Body mangling

/** The field each endpoint's items lose under 'missing-fields'. */
function dropRequiredField(endpoint: Endpoint, item: unknown): unknown {
  if (endpoint === 'data' && Array.isArray(item)) return item.slice(0, 1);
  const copy = { ...(item as Record<string, unknown>) };
  delete copy[endpoint === 'tariffs' ? 'rules' : 'value'];
  return copy;
}

function stringifyNumbers(endpoint: Endpoint, item: unknown): unknown {
  if (endpoint === 'data' && Array.isArray(item)) return [item[0], String(item[1])];
  const copy = { ...(item as Record<string, unknown>) };
  if (endpoint === 'sensors') copy.value = String(copy.value);
  else {
    copy.vat = String(copy.vat);
    copy.rules = (copy.rules as Array<Record<string, unknown>>).map((rule) => ({ ...rule, price: String(rule.price) }));
  }
  return copy;
}

/** `target` bytes (at least) of valid JSON: the real items repeated. */
function hugeJson(items: unknown[], target: number): string {
  const unit = items.map((item) => JSON.stringify(item)).join(',') || '0';
  const repeats = Math.max(1, Math.ceil(target / (unit.length + 1)));
  return `[${new Array(repeats).fill(unit).join(',')}]`;
}

/**
 * The body a fault turns a 200 body into. `cutAfter`: send only this many characters of
 * the original body, then close the connection.
 */
export function applyBodyFault(
  fault: BodyFault,
  endpoint: Endpoint,
  body: string,
  isCsv: boolean,
  hugeBytes: number,
): { body: string; cutAfter?: number } {
  const half = Math.floor(body.length / 2);
  if (fault === 'cut') return { body, cutAfter: half };
  if (fault === 'truncated') return { body: body.slice(0, half) };
  if (isCsv) {
    // CSV has no shapes to break; a malformed CSV has an unclosed quote, other faults leave it.
    return fault === 'malformed' ? { body: `${body}"unclosed,quote\n` } : { body };
  }
  if (fault === 'malformed') return { body: body.replace(/"/g, "'") };
  const items = JSON.parse(body) as unknown[];
  if (fault === 'object') return { body: JSON.stringify({ data: items }) };
  if (fault === 'missing-fields') return { body: JSON.stringify(items.map((item) => dropRequiredField(endpoint, item))) };
  if (fault === 'string-numbers') return { body: JSON.stringify(items.map((item) => stringifyNumbers(endpoint, item))) };
  return { body: hugeJson(items, hugeBytes) };
}
