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
// The transport is axios (./transport): proxies, compression, redirects; which proxy is
// decided by ./proxy.
import { PaceTimer } from '../engine/time/long-timer';
import { EasyApiError, Reach, abortedError, formatDuration, transportError } from './errors';
import type { ProxyChoice } from './proxy';
import { Transport } from './transport';

export { EasyApiError, abortedError, formatDuration } from './errors';
export type { EasyApiErrorCode } from './errors';

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
  /** The proxy every request goes through, or null (direct). */
  proxy: ProxyChoice | null;
  /** Certificates (PEM) trusted for the service instead of Node's list. */
  ca?: string | Buffer | Array<string | Buffer>;
  onRetry?: (info: RetryInfo) => void;
  /** Source of jitter in [0, 1); injectable so tests can pin the bounds. */
  random?: () => number;
}

interface SharedRequest {
  promise: Promise<RawResponse>;
  controller: AbortController;
  waiters: number;
}

export class RequestCore {
  readonly #token: string;
  readonly #transport: Transport;
  readonly #reach: Reach;
  readonly #headers: Record<string, string>;
  readonly #inFlight = new Map<string, SharedRequest>();
  readonly #options: RequestCoreOptions;

  constructor(options: RequestCoreOptions, token: string) {
    this.#options = options;
    this.#token = token;
    this.#reach = { host: options.baseUrl.hostname, ...(options.proxy ? { proxy: options.proxy.display } : {}) };
    this.#transport = new Transport({ proxy: options.proxy, ca: options.ca, maxBodyBytes: options.maxBodyBytes, reach: this.#reach });
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
    const { timeoutMs } = this.#options;
    const deadline = new AbortController();
    let timedOut = false;
    const timer = new PaceTimer(); // a request's deadline is a pace: a step of the wall clock changes nothing
    timer.after(timeoutMs, () => {
      timedOut = true;
      deadline.abort();
    });
    const cancel = () => deadline.abort();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const response = await this.#transport.get(
        new URL(url),
        { ...this.#headers, Authorization: `Bearer ${this.#token}` },
        deadline.signal,
      );
      const { status, contentType } = response;
      if (status >= 200 && status < 300) return { status, contentType, body: response.body };
      throw statusError(status, words, response.retryAfter, this.#reach, response.redirectedTo);
    } catch (err) {
      // a cancel or the deadline also cuts the connection: named by why, not by how
      if (signal.aborted) throw abortedError();
      if (timedOut) throw new EasyApiError('timeout', `the service did not answer within ${formatDuration(timeoutMs)}`);
      if (err instanceof EasyApiError) throw err;
      throw transportError(err, this.#reach);
    } finally {
      timer.cancel();
      signal.removeEventListener('abort', cancel);
    }
  }
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

function statusError(status: number, words: EndpointWords, retryAfter: unknown, reach: Reach, redirectedTo?: string): EasyApiError {
  if (redirectedTo && (status === 401 || status === 403)) {
    // the token is not carried to another host: its refusal says nothing about the token
    return new EasyApiError(
      status === 401 ? 'unauthorized' : 'forbidden',
      `the service redirected to ${redirectedTo}, where the token is not sent (${status}); check the base URL`,
      { status },
    );
  }
  if (status === 401) return new EasyApiError('unauthorized', 'the access token was rejected (401)', { status });
  if (status === 403) return new EasyApiError('forbidden', `${words.forbidden} (403)`, { status });
  if (status === 404) return new EasyApiError('not_found', `${words.notFound} (404)`, { status });
  if (status === 407) {
    const proxy = reach.proxy ?? 'a proxy on the way';
    return new EasyApiError('network', `the proxy ${proxy} wants a user name and password, or refused the ones given (407)`, { status });
  }
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    const wait = retryAfterMs === undefined ? '' : `, it asks to wait ${formatDuration(retryAfterMs)}`;
    return new EasyApiError('rate_limited', `the service is limiting requests (429)${wait}`, { status, retryAfterMs });
  }
  if (status === 408) return new EasyApiError('timeout', 'the service timed out waiting for the request (408)', { status });
  if (status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    // a proxy answers 502/503/504 itself when it cannot reach the service
    const who = reach.proxy ? `the service or the proxy ${reach.proxy}` : 'the service';
    return new EasyApiError('server', `${who} has a problem on its side (${status})`, { status, retryAfterMs });
  }
  if (status >= 300 && status < 400) {
    return new EasyApiError(
      'invalid_response',
      `the service answered with a redirect (${status}) that could not be followed; check the base URL`,
      {
        status,
      },
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

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const timer = new PaceTimer();
    timer.after(ms, done);
    const onAbort = () => {
      timer.cancel();
      reject(abortedError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
