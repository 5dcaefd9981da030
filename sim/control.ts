// The simulator's control routes: who may use them (loopback only, JSON bodies only, see
// controlRefusal) and the answers served instead of the demo account's.
import type * as http from 'http';
import { errorReply, Reply } from './routes';

/**
 * Answers served instead of the demo account's, verbatim, whatever they contain (hostile
 * ids, wrong shapes): `tariffs` for the tariffs endpoint, `sensors` by gateway id for the
 * sensors endpoint, `data` by "gateway/sensor" for the data endpoint. Ids are looked up in
 * Maps, so "__proto__" and "constructor" are ids like any other. Faults still apply.
 */
export interface ServedAnswers {
  tariffs?: unknown;
  sensors?: Record<string, unknown>;
  data?: Record<string, unknown>;
}

export function isLoopback(address: string | undefined): boolean {
  return !!address && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));
}

/** Host names a request to the control routes may carry: this machine, by name or address. */
const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;

/**
 * Why a control request is refused, or null. Any web page open in a browser on this
 * machine can send a request to loopback: a "simple" cross-origin POST (text/plain, a
 * form) or a GET reaches the server without asking first. So the control routes change
 * nothing on GET, take state changes only as a JSON body (which a page of another origin
 * cannot send without a CORS preflight this server never grants), take no query
 * parameters, and answer only requests addressed to a loopback host name (a DNS-rebound
 * name of another site is refused).
 */
export function controlRefusal(req: http.IncomingMessage, url: URL): Reply | null {
  if (!isLoopback(req.socket.remoteAddress)) return errorReply(403, 'forbidden', 'simulator control is loopback only');
  if (!LOOPBACK_HOST.test(String(req.headers.host ?? ''))) {
    return errorReply(403, 'forbidden', 'simulator control answers only requests to localhost or a loopback address');
  }
  if (url.search !== '') return errorReply(400, 'bad_request', 'simulator control takes no query parameters: POST a JSON body');
  if (req.method === 'POST' && !/^application\/json\s*(;|$)/i.test(String(req.headers['content-type'] ?? ''))) {
    return errorReply(415, 'unsupported_media_type', 'simulator control accepts only JSON bodies (Content-Type: application/json)', {
      Accept: 'application/json',
    });
  }
  return null;
}

/** The JSON body of a control request; `empty` when there is none. */
export async function readJsonBody<T>(req: http.IncomingMessage, empty: T): Promise<T> {
  const body = await readBody(req);
  return body.trim() ? (JSON.parse(body) as T) : empty;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export interface Served {
  tariffs: unknown;
  sensors: Map<string, unknown>;
  data: Map<string, unknown>;
}

/** Own entries only, into Maps: a JSON key "__proto__" is an id, not a prototype. */
export function servedAnswers(a: ServedAnswers | null): Served {
  const entries = (x: unknown) => new Map(x !== null && typeof x === 'object' && !Array.isArray(x) ? Object.entries(x) : []);
  if (a !== null && (typeof a !== 'object' || Array.isArray(a)))
    throw new TypeError('answers must be an object { tariffs?, sensors?, data? } or null');
  return { tariffs: a?.tariffs, sensors: entries(a?.sensors), data: entries(a?.data) };
}

/** What the control route shows: the served answers as JSON (a null-prototype record keeps "__proto__" an ordinary key). */
export function answersJson(served: Served): ServedAnswers {
  const record = (m: Map<string, unknown>) => {
    const out = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of m) out[k] = v;
    return out;
  };
  return { tariffs: served.tariffs, sensors: record(served.sensors), data: record(served.data) };
}
