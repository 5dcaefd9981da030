// The admin routes behind the edit dialogs, registered once per runtime from
// easy-account's register function. Each answers JSON built by lib/editor-data; this
// file only decides which credentials a request may use and who may ask:
//   - a token typed in the dialog goes to the base URL typed beside it, and nowhere else;
//     that makes the runtime contact a host of the user's choosing, so it needs
//     `easy-account.write` (someone who may change the account);
//   - with no token (the editor only knows `has_token`), the deployed account node named
//     by `id` answers through its hub with its stored token and deployed base URL: answers
//     shared and cached for the refresh period, so `read` users at any rate cost the
//     service no more than the account's own nodes do.
//   - the proxy typed in the dialog (mode, URL, user, password) is used with a typed token;
//     the stored proxy password only with the deployed proxy URL and user.
// Nothing here ever puts the token or a proxy password into an answer.
// Every POST takes only an `application/json` body from the editor's own origin: Node-RED's
// admin API answers any origin, and a form or text/plain POST needs no preflight, so a
// page the user merely visits could otherwise make the runtime fetch and compute.
import { accountProxy } from '../api/account-config';
import { DEFAULT_BASE_URL, EasyClient, EasyClientOptions } from '../api/client';
import {
  chartData,
  connectionFailed,
  connectionOk,
  EditorRequestError,
  editorError,
  gatewaysOfTariffs,
  httpStatusOf,
  requestedTariff,
  sensorList,
  tariffList,
  zoneList,
} from './editor-data';
import type { AccountHub, TariffSnapshot } from '../runtime/account/hub';
import { isObject } from '../engine/tariff/tariff';
import { planPreview } from '../runtime/plan/plan-planner';
import { peakPreview } from '../runtime/peak/peak-preview';
import { peakSettings } from '../runtime/peak/peak-settings';
import { assertTimeZone, localPeriod, machineTimeZone, toEpochMs } from '../engine/time/time';
import type { NodeAPI, NodeDef } from '../runtime/common/red-types';
import type { AccountNode } from '../runtime/account/account-link';

/** The Express slice the routes use (Node-RED's httpAdmin; no @types/express needed). */
export interface AdminRequest {
  body?: unknown;
  query?: Record<string, unknown>;
  headers?: Record<string, string | string[] | undefined>;
  /** Express's: the admin app's settings (`trust proxy`, from Node-RED's httpServerOptions) and the peer. */
  app?: { get?(name: string): unknown };
  socket?: { remoteAddress?: string };
}
export interface AdminResponse {
  status(code: number): AdminResponse;
  json(body: unknown): void;
}
type Handler = (req: AdminRequest, res: AdminResponse, next: (err?: unknown) => void) => void;
export interface AdminApp {
  get(path: string, ...handlers: Handler[]): unknown;
  post(path: string, ...handlers: Handler[]): unknown;
}
export interface AdminRED extends NodeAPI {
  httpAdmin?: AdminApp;
  auth?: { needsPermission(permission: string): Handler };
  nodes: NodeAPI['nodes'] & { eachNode?(fn: (config: NodeDef) => void): void };
}

/** The permission a request needs when it carries a typed token (and so a typed base URL). */
export const TYPED_TOKEN_PERMISSION = 'easy-account.write';

/**
 * Every route, for the docs and the tests: `permission` for any request, and for one with
 * a typed token TYPED_TOKEN_PERMISSION as well (`typedToken: true`).
 */
export const ADMIN_ROUTES = Object.freeze([
  { method: 'post', path: '/easy-account/test-connection', permission: 'easy-account.read', typedToken: true },
  { method: 'post', path: '/easy-account/tariffs', permission: 'easy-account.read', typedToken: true },
  { method: 'post', path: '/easy-account/schedule', permission: 'easy-tariff.read', typedToken: true },
  { method: 'post', path: '/easy-account/sensors', permission: 'easy-sensors.read', typedToken: true },
  { method: 'post', path: '/easy-account/gateways', permission: 'easy-sensors.read', typedToken: false },
  { method: 'post', path: '/easy-account/peaks', permission: 'easy-peak.read', typedToken: true },
  { method: 'get', path: '/easy-account/timezones', permission: 'easy-account.read', typedToken: false },
] as const);

type RoutePath = (typeof ADMIN_ROUTES)[number]['path'];

/** The editor's stand-in for a stored password; never a token. */
const PASSWORD_PLACEHOLDER = '__PWRD__';
/** A dialog waits for these answers: one attempt, a short deadline. */
const DIALOG_CLIENT = { retries: 0, timeoutMs: 10_000 };

const registeredOn = new WeakSet<object>();

/** Registers the routes on this runtime's admin app unless they already are (redeploys, a second load). */
export function registerAdminRoutes(RED: AdminRED): boolean {
  const app = RED.httpAdmin;
  if (!app || registeredOn.has(app)) return false;
  registeredOn.add(app);
  const guard = (permission: string): Handler => (RED.auth ? RED.auth.needsPermission(permission) : (_q, _s, next) => next());
  const writeGuard = guard(TYPED_TOKEN_PERMISSION);
  const typedTokenGuard: Handler = (req, res, next) => (typedToken(requestBody(req)) ? writeGuard(req, res, next) : next());
  const handlers: Record<RoutePath, (body: Record<string, unknown>) => Promise<unknown>> = {
    '/easy-account/test-connection': (body) => testConnection(RED, body),
    '/easy-account/tariffs': (body) => tariffs(RED, body),
    '/easy-account/schedule': (body) => chart(RED, body),
    '/easy-account/sensors': (body) => sensors(RED, body),
    '/easy-account/gateways': (body) => gateways(RED, body),
    '/easy-account/peaks': (body) => peaks(RED, body),
    '/easy-account/timezones': async () => zoneList(),
  };
  for (const route of ADMIN_ROUTES) {
    const handle = handlers[route.path];
    const guards = route.typedToken ? [guard(route.permission), typedTokenGuard] : [guard(route.permission)];
    if (route.method === 'post') guards.unshift(editorPostGuard);
    app[route.method](route.path, ...guards, (req, res) => {
      handle(requestBody(req)).then(
        (answer) => res.json(answer),
        (err) => {
          const error = editorError(err);
          res.status(httpStatusOf(error)).json({ error });
        },
      );
    });
  }
  return true;
}

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
const editorPostGuard: Handler = (req, res, next) => {
  const refused = foreignPost(req);
  if (!refused) return next();
  res.status(refused.status).json({ error: { code: 'bad_request', message: refused.message } });
};

/** Query and body fields of a request as one record (the body wins). */
function requestBody(req: AdminRequest): Record<string, unknown> {
  return { ...(isObject(req.query) ? req.query : {}), ...(isObject(req.body) ? req.body : {}) };
}

const text = (x: unknown): string => (typeof x === 'string' ? x.trim() : '');

/** The token typed in the dialog, or '' (nothing, or the editor's stand-in for the stored one). */
function typedToken(body: Record<string, unknown>): string {
  const token = text(body.token);
  return token === PASSWORD_PLACEHOLDER ? '' : token;
}

/** The deployed easy-account node with this id, or null. */
function deployedAccount(RED: AdminRED, id: string): AccountNode | null {
  if (!id) return null;
  const node = RED.nodes.getNode(id) as AccountNode | null;
  return node && node.type === 'easy-account' ? node : null;
}

function sameBase(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      return new URL(u).href.replace(/\/+$/, '');
    } catch {
      return u;
    }
  };
  return norm(a) === norm(b);
}

/** What a request may use: a client for the typed token, or the deployed account's hub. */
type Access = { timezone: string; client: EasyClient; hub?: undefined } | { timezone: string; hub: AccountHub; client?: undefined };

/** The client or hub a request may use, and the zone, from what the dialog typed or the deployed node. */
function accessFor(RED: AdminRED, body: Record<string, unknown>): Access {
  const deployed = deployedAccount(RED, text(body.id));
  const typedBase = text(body.baseUrl);
  const token = typedToken(body);
  const timezone = zoneOf(body, deployed);
  if (token) {
    const baseUrl = typedBase || deployed?.baseUrl || DEFAULT_BASE_URL;
    return { client: new EasyClient({ ...DIALOG_CLIENT, baseUrl, token, proxy: typedProxy(body, deployed) }), timezone };
  }
  // an emptied token field (sent as '') is what a deploy would store: no token
  if (body.token === '' || !deployed || !deployed.credentials?.token) {
    throw new EditorRequestError('bad_request', 'no token: type the access token in the account (or deploy the account first)');
  }
  if (typedBase && !sameBase(typedBase, deployed.baseUrl)) {
    // the stored token only ever goes where it was configured to go
    throw new EditorRequestError(
      'bad_request',
      'the base URL differs from the deployed account: type the token again to use it with the new base URL',
    );
  }
  if (body.proxyMode !== undefined && !sameProxy(body, deployed)) {
    throw new EditorRequestError(
      'bad_request',
      'the proxy differs from the deployed account: type the token again to use it with the new proxy',
    );
  }
  if (!deployed.hub) {
    throw new EditorRequestError(
      'bad_request',
      `the deployed account does not work: ${deployed.configError?.message ?? 'it has no connection'}`,
    );
  }
  return { hub: deployed.hub, timezone };
}

/** The proxy fields as the dialog sends them; the deployed account's when it sends none. */
function proxyFields(body: Record<string, unknown>, deployed: AccountNode | null) {
  if (body.proxyMode === undefined) {
    const stored = deployed?.credentials ?? {};
    return {
      proxyMode: deployed?.proxyMode,
      proxyUrl: deployed?.proxyUrl,
      proxyUser: stored.proxyUser,
      proxyPassword: stored.proxyPassword,
    };
  }
  return { proxyMode: body.proxyMode, proxyUrl: body.proxyUrl, proxyUser: body.proxyUser, proxyPassword: body.proxyPassword };
}

function sameProxy(body: Record<string, unknown>, deployed: AccountNode): boolean {
  const typed = proxyFields(body, deployed);
  const kept = proxyFields({}, deployed);
  return (
    (typed.proxyMode || 'env') === (kept.proxyMode || 'env') &&
    text(typed.proxyUrl) === text(kept.proxyUrl) &&
    text(typed.proxyUser) === text(kept.proxyUser ?? '') &&
    // the editor shows the stand-in for a stored password, an empty field for none
    (typed.proxyPassword === PASSWORD_PLACEHOLDER || (!typed.proxyPassword && !kept.proxyPassword))
  );
}

/**
 * EasyClient's proxy for a typed token. The editor's stand-in for the stored proxy
 * password stands for it only beside the deployed proxy URL and user: a stored password
 * is never sent to a proxy typed in the dialog.
 */
function typedProxy(body: Record<string, unknown>, deployed: AccountNode | null): EasyClientOptions['proxy'] {
  const fields = proxyFields(body, deployed);
  if (fields.proxyPassword === PASSWORD_PLACEHOLDER) {
    const stored = proxyFields({}, deployed);
    if (!deployed || text(fields.proxyUrl) !== text(stored.proxyUrl) || text(fields.proxyUser) !== text(stored.proxyUser ?? '')) {
      throw new EditorRequestError('bad_request', 'the proxy differs from the deployed account: type the proxy password again');
    }
    fields.proxyPassword = stored.proxyPassword;
  }
  return accountProxy(fields);
}

function zoneOf(body: Record<string, unknown>, deployed: AccountNode | null): string {
  if (body.timezone === undefined || body.timezone === null) return deployed?.timezone ?? machineTimeZone();
  const zone = text(body.timezone) || machineTimeZone();
  try {
    assertTimeZone(zone);
  } catch (err) {
    throw new EditorRequestError('bad_request', (err as Error).message);
  }
  return zone;
}

async function testConnection(RED: AdminRED, body: Record<string, unknown>) {
  let access: Access;
  try {
    access = accessFor(RED, body);
  } catch (err) {
    // the dialog's own mistakes (no token, a non-http URL) are a 400, not an outcome
    throw err instanceof EditorRequestError ? err : new EditorRequestError('bad_request', editorError(err).message);
  }
  if (access.hub) {
    const snapshot = await access.hub.sharedTariffs();
    return snapshot.error ? connectionFailed(snapshot.error) : connectionOk(snapshot);
  }
  try {
    return connectionOk(await access.client.fetchTariffs());
  } catch (err) {
    return connectionFailed(err);
  }
}

/**
 * The account's tariffs: fetched with a typed token, or the deployed account's shared
 * snapshot, which keeps its last good tariffs (marked stale) when the last fetch failed.
 */
async function fetchTariffs(
  access: Access,
): Promise<{ parsed: Pick<TariffSnapshot, 'tariffs' | 'problems'>; fetchedAt: number | null; stale: boolean; error: unknown }> {
  if (access.client) return { parsed: await access.client.fetchTariffs(), fetchedAt: Date.now(), stale: false, error: null };
  const snapshot = await access.hub.sharedTariffs();
  if (snapshot.error && snapshot.tariffs.length === 0) throw snapshot.error;
  return { parsed: snapshot, fetchedAt: snapshot.fetchedAt, stale: snapshot.error !== null, error: snapshot.error };
}

async function tariffs(RED: AdminRED, body: Record<string, unknown>) {
  const got = await fetchTariffs(accessFor(RED, body));
  return tariffList(got.parsed, got);
}

async function chart(RED: AdminRED, body: Record<string, unknown>) {
  const access = accessFor(RED, body);
  const at = body.at === undefined || body.at === '' ? Date.now() : toEpochMs(body.at);
  if (at === null) throw new EditorRequestError('bad_request', '"at" must be an instant (epoch ms or ISO 8601)');
  const got = await fetchTariffs(access);
  const tariff = requestedTariff(got.parsed, text(body.tariff));
  const data = chartData(tariff, at, access.timezone);
  // easy-plan's dialog: its settings as typed, planned over the chart's week with the base line's sensors
  const plan = isObject(body.plan)
    ? planPreview(tariff, body.plan, at, data.to, { timezone: access.timezone, sensors: data.lines[0].sensors ?? undefined })
    : undefined;
  const answer = plan ? { ...data, plan } : data;
  return got.stale ? { ...answer, stale: true, error: editorError(got.error) } : answer;
}

async function sensors(RED: AdminRED, body: Record<string, unknown>) {
  const gateway = text(body.gateway);
  if (!gateway) throw new EditorRequestError('bad_request', 'no gateway id given');
  const access = accessFor(RED, body);
  if (access.client) return sensorList(gateway, await access.client.fetchSensors(gateway));
  const snapshot = await access.hub.sharedSensors(gateway);
  if (snapshot.error) throw snapshot.error;
  return sensorList(gateway, snapshot.sensors);
}

/**
 * Gateway ids this account has used: the deployed easy-sensors nodes' gateways and the
 * gateways named by sensor rules of the deployed account's tariffs (as last fetched: no
 * request is made). Without an id, every deployed easy-sensors node counts.
 */
async function gateways(RED: AdminRED, body: Record<string, unknown>) {
  const id = text(body.id);
  const found: string[] = [];
  const add = (g: unknown) => {
    if (typeof g === 'string' && g.trim() && !found.includes(g.trim())) found.push(g.trim());
  };
  RED.nodes.eachNode?.((config) => {
    if (config.type === 'easy-sensors' && (!id || config.account === id)) add(config.gateway);
  });
  const kept = deployedAccount(RED, id)?.hub?.tariffs();
  if (kept) gatewaysOfTariffs(kept.tariffs).forEach(add);
  return { gateways: found };
}

/**
 * easy-peak's dialog: this month's peaks of one meter from the archive (the deployed
 * account's, or a typed token's), with the dialog's settings as typed.
 */
async function peaks(RED: AdminRED, body: Record<string, unknown>) {
  const gateway = text(body.gateway);
  if (!gateway) throw new EditorRequestError('bad_request', 'no gateway id given');
  const sensor = text(body.sensor) || 'e1.kwh';
  let settings: ReturnType<typeof peakSettings>;
  try {
    settings = peakSettings(isObject(body.settings) ? body.settings : {});
  } catch (err) {
    throw new EditorRequestError('bad_request', (err as Error).message);
  }
  const access = accessFor(RED, body);
  const now = Date.now();
  const { from } = localPeriod('month', now, { timezone: access.timezone });
  const readings = access.client
    ? await access.client.fetchData(gateway, sensor, from, now)
    : await access.hub.fetchData(gateway, sensor, from, now);
  return { gateway, sensor, ...peakPreview(readings, settings, access.timezone, now) };
}
