// The request core under EasyClient: one GET with a total deadline, retries with capped
// backoff, Retry-After, a size limit, sharing of identical in-flight requests, and
// errors a Node-RED user can read. It knows nothing about the endpoints' payloads.
//
// Secrets: the token lives in a #private field (not enumerable, not shown by
// util.inspect) and only ever goes into the Authorization header of the outgoing
// request. Transport errors are never passed on as they are: every failure becomes a
// fresh EasyApiError built from our own words plus the status, the host name or a
// Node.js error code.
//
// Transport is Node's own http/https: one GET, no redirects, text bodies. An HTTP
// library would add ~20 MB of memory and ~100 ms of start-up to every Node-RED on a Pi.
import * as http from 'http';
import * as https from 'https';
import { LongTimer } from '../engine/long-timer';

export type EasyApiErrorCode =
  'unauthorized' | 'forbidden' | 'not_found' | 'rate_limited' | 'server' | 'network' | 'timeout' | 'invalid_response' | 'aborted';

const RETRYABLE_CODES: ReadonlySet<EasyApiErrorCode> = new Set(['rate_limited', 'server', 'network', 'timeout']);

export class EasyApiError extends Error {
  readonly code: EasyApiErrorCode;
  /** HTTP status of the answer, when there was one. */
  readonly status?: number;
  /** Whether trying again later may help (the client already did, `attempts` times). */
  readonly retryable: boolean;
  /** How many requests were made before giving up (1 = no retry). */
  readonly attempts: number;
  /** The wait the service asked for with Retry-After, in ms, before any cap. */
  readonly retryAfterMs?: number;

  constructor(code: EasyApiErrorCode, message: string, details: { status?: number; attempts?: number; retryAfterMs?: number } = {}) {
    super(message);
    this.name = 'EasyApiError';
    this.code = code;
    if (details.status !== undefined) this.status = details.status;
    this.retryable = RETRYABLE_CODES.has(code);
    this.attempts = details.attempts ?? 1;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }
}

/** What a 403 or 404 means on one endpoint, in the user's words. */
export interface EndpointWords {
  forbidden: string;
  notFound: string;
}

export interface RawResponse {
  status: number;
  contentType: string;
  body: string;
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  error: EasyApiError;
}

export interface RequestCoreOptions {
  baseUrl: URL;
  timeoutMs: number;
  retries: number;
  maxBodyBytes: number;
  retryAfterCapMs: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  userAgent: string;
  onRetry?: (info: RetryInfo) => void;
  /** Source of jitter in [0, 1); injectable so tests can pin the bounds. */
  random?: () => number;
}

interface SharedRequest {
  promise: Promise<RawResponse>;
  controller: AbortController;
  waiters: number;
}

export function abortedError(): EasyApiError {
  return new EasyApiError('aborted', 'the request was cancelled');
}

export class RequestCore {
  readonly #token: string;
  readonly #agents: { 'http:': http.Agent; 'https:': https.Agent };
  readonly #headers: Record<string, string>;
  readonly #inFlight = new Map<string, SharedRequest>();
  readonly #options: RequestCoreOptions;

  constructor(options: RequestCoreOptions, token: string) {
    this.#options = options;
    this.#token = token;
    // No keep-alive: requests are minutes apart, and a closed account must leave no
    // sockets behind.
    this.#agents = { 'http:': new http.Agent({ keepAlive: false }), 'https:': new https.Agent({ keepAlive: false }) };
    this.#headers = { Accept: 'application/json, text/csv;q=0.5', 'User-Agent': options.userAgent };
  }

  /**
   * GET a path below the base URL. Identical concurrent GETs share one request; a
   * caller's abort rejects that caller at once, and the shared request is only
   * cancelled when every caller has gone.
   */
  get(pathAndQuery: string, words: EndpointWords, signal?: AbortSignal): Promise<RawResponse> {
    if (signal?.aborted) return Promise.reject(abortedError());
    const url = joinUrl(this.#options.baseUrl, pathAndQuery);
    const key = `GET ${url}`;
    let shared = this.#inFlight.get(key);
    if (!shared) {
      const controller = new AbortController();
      const promise = this.#withRetries(url, words, controller.signal);
      const created: SharedRequest = { promise, controller, waiters: 0 };
      const forget = () => {
        if (this.#inFlight.get(key) === created) this.#inFlight.delete(key);
      };
      // Handles the rejection too, so a request every caller left is never "unhandled".
      promise.then(forget, forget);
      this.#inFlight.set(key, created);
      shared = created;
    }
    return this.#wait(shared, key, signal);
  }

  #wait(shared: SharedRequest, key: string, signal?: AbortSignal): Promise<RawResponse> {
    shared.waiters++;
    return new Promise<RawResponse>((resolve, reject) => {
      const onAbort = () => {
        shared.waiters--;
        if (shared.waiters === 0) {
          shared.controller.abort();
          if (this.#inFlight.get(key) === shared) this.#inFlight.delete(key);
        }
        reject(abortedError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      shared.promise.then(
        (response) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(response);
        },
        (err) => {
          signal?.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }

  async #withRetries(url: string, words: EndpointWords, signal: AbortSignal): Promise<RawResponse> {
    const { retries, onRetry } = this.#options;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#attempt(url, words, signal);
      } catch (err) {
        const error = err as EasyApiError;
        if (!error.retryable || attempt > retries) throw attempt > 1 ? afterAttempts(error, attempt) : error;
        const delayMs = this.#delayBefore(attempt + 1, error);
        try {
          onRetry?.({ attempt, delayMs, error });
        } catch {
          // A faulty status callback must not end the request or escape as unhandled.
        }
        await sleep(delayMs, signal);
      }
    }
  }

  /** Wait before `attempt` (2 = first retry): Retry-After when given, capped; else backoff. */
  #delayBefore(attempt: number, error: EasyApiError): number {
    const { backoffBaseMs, backoffCapMs, retryAfterCapMs, random = Math.random } = this.#options;
    if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, retryAfterCapMs);
    const ceiling = Math.min(backoffCapMs, backoffBaseMs * 2 ** (attempt - 2));
    // "Equal jitter": at least half the step, so waits still grow, spread over the rest
    // so that many gateways that lost the link together do not come back in lockstep.
    return ceiling / 2 + random() * (ceiling / 2);
  }

  async #attempt(url: string, words: EndpointWords, signal: AbortSignal): Promise<RawResponse> {
    if (signal.aborted) throw abortedError();
    const { timeoutMs, maxBodyBytes } = this.#options;
    const deadline = new AbortController();
    let timedOut = false;
    const timer = new LongTimer();
    timer.arm(Date.now() + timeoutMs, () => {
      timedOut = true;
      deadline.abort();
    });
    const cancel = () => deadline.abort();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const target = new URL(url);
      const agent = target.protocol === 'https:' ? this.#agents['https:'] : this.#agents['http:'];
      const response = await getText(target, {
        agent,
        signal: deadline.signal,
        headers: { ...this.#headers, Authorization: `Bearer ${this.#token}` },
        maxBodyBytes,
        host: this.#options.baseUrl.hostname,
      });
      const contentType = String(response.headers['content-type'] ?? '');
      if (response.status >= 200 && response.status < 300) return { status: response.status, contentType, body: response.body };
      throw statusError(response.status, words, response.headers['retry-after']);
    } catch (err) {
      // a cancel or the deadline also cuts the connection: named by why, not by how
      if (signal.aborted) throw abortedError();
      if (timedOut) throw new EasyApiError('timeout', `the service did not answer within ${formatDuration(timeoutMs)}`);
      if (err instanceof EasyApiError) throw err;
      throw transportError(err, this.#options.baseUrl.hostname);
    } finally {
      timer.cancel();
      signal.removeEventListener('abort', cancel);
    }
  }
}

interface TextResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One GET with Node's http/https. Redirects are never followed (a redirect to another
 * host would carry the Authorization header there; the documented service does not
 * redirect). The body is read as UTF-8 text, as it is, so broken JSON is the client's to
 * name; a body over `maxBodyBytes` (announced or received) ends the request.
 */
function getText(
  target: URL,
  opts: { agent: http.Agent; signal: AbortSignal; headers: Record<string, string>; maxBodyBytes: number; host: string },
): Promise<TextResponse> {
  const tooLarge = () => new EasyApiError('invalid_response', `the answer was larger than the ${formatBytes(opts.maxBodyBytes)} limit`);
  const dropped = () => new EasyApiError('network', `could not reach ${opts.host}: the connection was dropped mid-answer`);
  return new Promise<TextResponse>((resolve, reject) => {
    const client = target.protocol === 'https:' ? https : http;
    const req = client.get(target, { agent: opts.agent, headers: opts.headers, signal: opts.signal }, (res) => {
      const fail = (err: Error) => {
        res.destroy();
        reject(err);
      };
      if (Number(res.headers['content-length']) > opts.maxBodyBytes) return fail(tooLarge());
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > opts.maxBodyBytes) fail(tooLarge());
        else chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      // Cut mid-answer: 'error' (ECONNRESET) or a close before the end; the abort of a
      // deadline or a caller lands here too and is named by the caller from its signal.
      res.on('error', () => reject(dropped()));
      res.on('close', () => {
        if (!res.complete) reject(dropped());
      });
    });
    req.on('error', reject);
  });
}

function joinUrl(base: URL, pathAndQuery: string): string {
  return base.origin + base.pathname.replace(/\/+$/, '') + pathAndQuery;
}

function afterAttempts(error: EasyApiError, attempts: number): EasyApiError {
  return new EasyApiError(error.code, `${error.message} (gave up after ${attempts} attempts)`, {
    status: error.status,
    attempts,
    retryAfterMs: error.retryAfterMs,
  });
}

function statusError(status: number, words: EndpointWords, retryAfter: unknown): EasyApiError {
  if (status === 401) return new EasyApiError('unauthorized', 'the access token was rejected (401)', { status });
  if (status === 403) return new EasyApiError('forbidden', `${words.forbidden} (403)`, { status });
  if (status === 404) return new EasyApiError('not_found', `${words.notFound} (404)`, { status });
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    const wait = retryAfterMs === undefined ? '' : `, it asks to wait ${formatDuration(retryAfterMs)}`;
    return new EasyApiError('rate_limited', `the service is limiting requests (429)${wait}`, { status, retryAfterMs });
  }
  if (status === 408) return new EasyApiError('timeout', 'the service timed out waiting for the request (408)', { status });
  if (status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    return new EasyApiError('server', `the service has a problem on its side (${status})`, { status, retryAfterMs });
  }
  if (status >= 300 && status < 400) {
    return new EasyApiError(
      'invalid_response',
      `the service answered with a redirect (${status}); redirects are not followed so the token is not sent elsewhere, check the base URL`,
      { status },
    );
  }
  return new EasyApiError('invalid_response', `the service refused the request (${status})`, { status });
}

/** Retry-After as ms from now: delay-seconds or an HTTP date; undefined if absent or unreadable. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // HTTP dates start with the day name ("Sun, 06 Nov 1994 08:49:37 GMT"); Date.parse
  // alone would also take "-5" or "1.5" as dates.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

const NETWORK_REASONS: Record<string, string> = {
  ENOTFOUND: 'DNS lookup failed',
  EAI_AGAIN: 'DNS lookup failed (temporary)',
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'the connection was dropped',
  EPIPE: 'the connection was dropped',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network down',
};

function transportError(err: unknown, host: string): EasyApiError {
  // Only the code is read: never the message text, which could quote a header.
  const { code } = (err ?? {}) as { code?: unknown };
  if (typeof code === 'string' && /^(CERT_|ERR_TLS_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code)) {
    return new EasyApiError('network', `could not reach ${host}: its TLS certificate was not accepted (${code})`);
  }
  const reason = typeof code === 'string' ? (NETWORK_REASONS[code] ?? `network error ${code}`) : 'network error';
  return new EasyApiError('network', `could not reach ${host}: ${reason}`);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const timer = new LongTimer();
    timer.arm(Date.now() + ms, done);
    const onAbort = () => {
      timer.cancel();
      reject(abortedError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 120) return `${Number(seconds.toFixed(1))} s`;
  if (seconds < 120 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} days`;
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} kB`;
  return `${bytes} bytes`;
}
