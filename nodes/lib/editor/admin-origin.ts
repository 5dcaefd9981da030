// Every POST of the admin routes takes only an `application/json` body from the editor's
// own origin: Node-RED's admin API answers any origin, and a form or text/plain POST needs
// no preflight, so a page the user merely visits could otherwise make the runtime fetch and
// compute (docs/network.md, "Behind a reverse proxy").
import type { AdminRequest, Handler } from './admin-access';

const header = (req: AdminRequest, name: string): string => {
  const value = req.headers?.[name];
  return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim();
};

/**
 * Why a POST is not the editor's own JSON request, or null when it is: a body other than
 * `application/json` (415), or a browser saying it comes from another site (403): its
 * Sec-Fetch-Site (`cross-site`, `same-site`), or an Origin that is not the editor's.
 * The Host header is no judge on its own, since a reverse proxy rewrites it (nginx's
 * default, Apache without ProxyPreserveHost): a browser's `Sec-Fetch-Site: same-origin`
 * is taken as it is (a page cannot forge it), and an Origin is the editor's when its host
 * is the request's Host, the X-Forwarded-Host of a proxy the admin app trusts (Node-RED's
 * `httpServerOptions: { 'trust proxy': … }`), or a loopback name for the same loopback
 * port. No Origin at all is a client that is no browser page (curl, a script), which
 * Node-RED's own authentication alone governs (docs/network.md, "Behind a reverse proxy").
 */
function foreignPost(req: AdminRequest): { status: 403 | 415; message: string } | null {
  const type = header(req, 'content-type').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    return { status: 415, message: `expected an application/json body, got ${type ? JSON.stringify(type) : 'none'}` };
  }
  const site = header(req, 'sec-fetch-site').toLowerCase();
  if (site === 'cross-site' || site === 'same-site') return NOT_THE_EDITOR;
  if (site === 'same-origin') return null;
  const origin = header(req, 'origin');
  if (!origin) return null;
  const from = hostOf(origin);
  if (from === null) return NOT_THE_EDITOR;
  const hosts = [header(req, 'host'), ...(trustsProxy(req) ? [header(req, 'x-forwarded-host').split(',')[0].trim()] : [])];
  return hosts.some((host) => host && sameHost(from, host.toLowerCase())) ? null : NOT_THE_EDITOR;
}

const NOT_THE_EDITOR = { status: 403 as const, message: "only the editor's own origin may ask this" };

/** An Origin's host[:port], lower case, or null for `null` and what is no http(s) URL. */
function hostOf(origin: string): string | null {
  try {
    const url = new URL(origin);
    return /^https?:$/.test(url.protocol) && url.host ? url.host.toLowerCase() : null;
  } catch {
    return null;
  }
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/** The same host and port, where each loopback name of this machine is one host. */
function sameHost(a: string, b: string): boolean {
  if (a === b) return true;
  const split = (h: string) => {
    const m = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(h);
    return m ? { name: m[1], port: m[2] ?? '' } : null;
  };
  const x = split(a);
  const y = split(b);
  return Boolean(x && y && x.port === y.port && LOOPBACK.test(x.name) && LOOPBACK.test(y.name));
}

/** Whether the admin app trusts the proxy this request came through (Express's compiled `trust proxy`). */
function trustsProxy(req: AdminRequest): boolean {
  const trust = req.app?.get?.('trust proxy fn');
  if (typeof trust !== 'function') return false;
  try {
    return trust(req.socket?.remoteAddress ?? '', 0) === true;
  } catch {
    return false;
  }
}

/** Refuses a POST that is not the editor's own JSON request before any other work. */
export const editorPostGuard: Handler = (req, res, next) => {
  const refused = foreignPost(req);
  if (!refused) return next();
  res.status(refused.status).json({ error: { code: 'bad_request', message: refused.message } });
};
