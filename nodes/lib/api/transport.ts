// One GET through axios, the package's HTTP library: proxies (CONNECT tunnels for
// https), compressed answers, redirects. What axios is asked for, and why:
// - adapter 'http' (Node's http/https underneath), responseType 'stream': the body is read
//   here and counted AFTER decompression, so a small gzip answer that inflates to
//   gigabytes is cut at the size limit, one 16 kB chunk past it at most; a body announced
//   larger than the limit is refused before it is read.
// - validateStatus accepting every status: the caller names each one in the user's words.
// - maxRedirects MAX_REDIRECTS; axios and follow-redirects drop Authorization (and cookies)
//   on any redirect that leaves the origin, and a redirect from https to http is refused
//   here: the token is never sent to another host, nor unencrypted.
// - proxy: always given (a proxy or false), never read by axios from the environment:
//   ./proxy decides, the same on every Node version.
// - no timeout of axios: the caller's deadline aborts through the signal and covers the
//   whole request, connect to last byte, redirects and proxy included.
// axios is loaded at the first request (`import()`), not with the package: a Node-RED
// that installs the package but deploys none of its nodes never loads it.
import * as http from 'http';
import * as https from 'https';
import type { AxiosInstance } from 'axios';
import type { Readable } from 'stream';
import { EasyApiError, MAX_REDIRECTS, Reach, formatBytes } from './errors';
import type { ProxyChoice } from './proxy';

export interface TextResponse {
  status: number;
  contentType: string;
  retryAfter: string | undefined;
  body: string;
  /** The origin that answered differs from the one asked (a redirect to another host). */
  redirectedTo?: string;
}

export interface TransportOptions {
  proxy: ProxyChoice | null;
  /** Certificates (PEM) trusted for the service instead of Node's list, e.g. a test's own. */
  ca?: string | Buffer | Array<string | Buffer>;
  maxBodyBytes: number;
  reach: Reach;
}

let loading: Promise<AxiosInstance> | undefined;

/** The package's own axios instance: nothing set on the shared `axios` object (interceptors) applies to it. */
function axiosInstance(): Promise<AxiosInstance> {
  loading ??= import('axios').then((m) => m.default.create({ adapter: 'http', transformResponse: [], transformRequest: [] }));
  return loading;
}

export class Transport {
  readonly #agents: { http: http.Agent; https: https.Agent };
  readonly #options: TransportOptions;

  constructor(options: TransportOptions) {
    this.#options = options;
    // No keep-alive: requests are minutes apart, and a closed account must leave no
    // sockets behind. The https agent's TLS options also apply inside a proxy's tunnel.
    this.#agents = {
      http: new http.Agent({ keepAlive: false }),
      https: new https.Agent({ keepAlive: false, ...(options.ca ? { ca: options.ca } : {}) }),
    };
  }

  /** One GET of `target` with `headers`; rejects with an EasyApiError or a transport error to be named by the caller. */
  async get(target: URL, headers: Record<string, string>, signal: AbortSignal): Promise<TextResponse> {
    const { proxy, maxBodyBytes } = this.#options;
    const client = await axiosInstance();
    let downgrade = false;
    let lastUrl = target.href;
    const response = await client
      .request<Readable>({
        url: target.href,
        method: 'GET',
        headers: { ...headers, 'Accept-Encoding': 'gzip, deflate, br' },
        responseType: 'stream',
        decompress: true,
        maxContentLength: -1, // counted below, after decompression
        maxRedirects: MAX_REDIRECTS,
        beforeRedirect: (options, _response, request) => {
          if (new URL(request.url).protocol === 'https:' && options.protocol === 'http:') {
            downgrade = true;
            throw new Error('redirect from https to http refused');
          }
          lastUrl = String(options.href);
        },
        validateStatus: () => true,
        proxy: proxy ? axiosProxy(proxy) : false,
        httpAgent: this.#agents.http,
        httpsAgent: this.#agents.https,
        signal,
      })
      .catch((err: unknown) => {
        if (downgrade) {
          throw new EasyApiError(
            'invalid_response',
            'the service redirected from https to plain http; not followed, so the token never travels unencrypted (check the base URL)',
          );
        }
        throw err;
      });
    const stream = response.data;
    const header = (name: string): string | undefined => {
      const value = response.headers[name] as unknown;
      return value === undefined || value === null ? undefined : String(value);
    };
    const final = new URL(lastUrl);
    const redirectedTo = final.origin === target.origin ? undefined : final.host;
    const answer = { status: response.status, contentType: header('content-type') ?? '', retryAfter: header('retry-after'), redirectedTo };
    if (response.status < 200 || response.status >= 300) {
      // the words come from the status: the body is not read
      stream.destroy();
      return { ...answer, body: '' };
    }
    if (Number(header('content-length')) > maxBodyBytes) {
      stream.destroy();
      throw tooLarge(maxBodyBytes);
    }
    return { ...answer, body: await readCapped(stream, maxBodyBytes, this.#options.reach) };
  }
}

function axiosProxy(proxy: ProxyChoice): { protocol: string; host: string; port: number; auth?: { username: string; password: string } } {
  const { url } = proxy;
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  return { protocol: url.protocol, host: url.hostname.replace(/^\[|\]$/g, ''), port, ...(proxy.auth ? { auth: proxy.auth } : {}) };
}

function tooLarge(maxBodyBytes: number): EasyApiError {
  return new EasyApiError('invalid_response', `the answer was larger than the ${formatBytes(maxBodyBytes)} limit`);
}

/**
 * The (decompressed) body as UTF-8 text, as it is, so broken JSON is the client's to name.
 * Past `maxBodyBytes` the stream is destroyed: nothing more is read or inflated.
 */
function readCapped(stream: Readable, maxBodyBytes: number, reach: Reach): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      finish();
    };
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size <= maxBodyBytes) return void chunks.push(chunk);
      settle(() => reject(tooLarge(maxBodyBytes)));
      chunks.length = 0;
      stream.destroy();
    });
    stream.on('end', () => settle(() => resolve(Buffer.concat(chunks).toString('utf8'))));
    // Cut mid-answer: 'error' (ECONNRESET) or a close before the end; the abort of a
    // deadline or a caller lands here too and is named by the caller from its signal.
    stream.on('error', (err: { code?: unknown }) => settle(() => reject(bodyError(err, reach))));
    stream.on('close', () => settle(() => reject(dropped(reach))));
  });
}

function dropped(reach: Reach): EasyApiError {
  return new EasyApiError('network', `could not reach ${reach.host}: the connection was dropped mid-answer`);
}

function bodyError(err: { code?: unknown }, reach: Reach): EasyApiError {
  // zlib's codes (Z_DATA_ERROR, Z_BUF_ERROR) and brotli's (ERR__ERROR_…): the bytes arrived, the compression is broken
  if (typeof err?.code === 'string' && /^(Z_|ERR__ERROR)/.test(err.code)) {
    return new EasyApiError('invalid_response', 'the answer was compressed (gzip, deflate or br) but could not be decompressed');
  }
  return dropped(reach);
}
