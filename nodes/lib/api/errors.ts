// The one error type of the API client, the words it says things with, and how a
// transport failure becomes one. Transport errors (axios' included, which carry the
// request's config and headers) are never passed on: only their Node.js error code is read.

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

/** Redirects followed at most; more is a misconfigured service or a loop. */
export const MAX_REDIRECTS = 3;

export function abortedError(): EasyApiError {
  return new EasyApiError('aborted', 'the request was cancelled');
}

/** Where a request failed to get to: the service's host, or the proxy in between. */
export interface Reach {
  host: string;
  /** `http://proxy:3128` when the request went through a proxy (never with credentials). */
  proxy?: string;
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

/** The Node.js error code of a failure, also when a library wrapped it (axios keeps it as `cause`). */
function errorCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const { code } = e as { code?: unknown };
    if (typeof code === 'string' && !/^ERR_(BAD_RESPONSE|BAD_REQUEST|NETWORK)$/.test(code) && code !== 'ERR_FR_REDIRECTION_FAILURE')
      return code;
  }
  return undefined;
}

export function transportError(err: unknown, reach: Reach): EasyApiError {
  // Only the code is read: never the message text, which could quote a header.
  const code = errorCode(err);
  if (code === 'ERR_FR_TOO_MANY_REDIRECTS') {
    return new EasyApiError('invalid_response', `the service redirected more than ${MAX_REDIRECTS} times; check the base URL`);
  }
  if (typeof code === 'string' && /^(CERT_|ERR_TLS_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED)/.test(code)) {
    // TLS runs end to end through a proxy's tunnel: the certificate is the service's
    return new EasyApiError('network', `could not reach ${reach.host}: its TLS certificate was not accepted (${code})`);
  }
  const reason = code ? (NETWORK_REASONS[code] ?? `network error ${code}`) : 'network error';
  // through a proxy every connection is to the proxy: a refused or unresolved one is the proxy's
  const where = reach.proxy ? `the proxy ${reach.proxy} (on the way to ${reach.host})` : reach.host;
  return new EasyApiError('network', `could not reach ${where}: ${reason}`);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 120) return `${Number(seconds.toFixed(1))} s`;
  if (seconds < 120 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86400)} days`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} kB`;
  return `${bytes} bytes`;
}
