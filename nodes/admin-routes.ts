// The admin routes behind the edit dialogs (issue 5), registered once per runtime from
// easy-account's register function. Each answers JSON built by lib/editor-data; this
// file only decides which credentials a request may use:
//   - a token typed in the dialog goes to the base URL typed beside it, and nowhere else;
//   - with no token (the editor only knows `has_token`), the deployed account node named
//     by `id` lends its stored token, but only to its own deployed base URL.
// Nothing here ever puts the token into an answer, and the client follows no redirect.
import { DEFAULT_BASE_URL, EasyClient } from './lib/client';
import {
  chartData, connectionFailed, connectionOk, EditorRequestError, editorError, findTariff, gatewaysOfTariffs,
  httpStatusOf, sensorRows, tariffList, zoneList,
} from './lib/editor-data';
import { isObject } from './lib/tariff';
import { planPreview } from './lib/plan-settings';
import { assertTimeZone, machineTimeZone, toEpochMs } from './lib/time';
import type { AccountNode, NodeAPI, NodeDef } from './red-types';

/** The Express slice the routes use (Node-RED's httpAdmin; no @types/express needed). */
export interface AdminRequest {
  body?: unknown;
  query?: Record<string, unknown>;
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

/** Every route, for the docs, the tests and issue 6's adminAuth sweep. */
export const ADMIN_ROUTES = Object.freeze([
  { method: 'post', path: '/easy-account/test-connection', permission: 'easy-account.read' },
  { method: 'post', path: '/easy-account/tariffs', permission: 'easy-account.read' },
  { method: 'post', path: '/easy-account/schedule', permission: 'easy-tariff.read' },
  { method: 'post', path: '/easy-account/sensors', permission: 'easy-sensors.read' },
  { method: 'post', path: '/easy-account/gateways', permission: 'easy-sensors.read' },
  { method: 'get', path: '/easy-account/timezones', permission: 'easy-account.read' },
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
  const handlers: Record<RoutePath, (body: Record<string, unknown>) => Promise<unknown>> = {
    '/easy-account/test-connection': (body) => testConnection(RED, body),
    '/easy-account/tariffs': (body) => tariffs(RED, body),
    '/easy-account/schedule': (body) => chart(RED, body),
    '/easy-account/sensors': (body) => sensors(RED, body),
    '/easy-account/gateways': (body) => gateways(RED, body),
    '/easy-account/timezones': async () => zoneList(),
  };
  for (const route of ADMIN_ROUTES) {
    const handle = handlers[route.path];
    app[route.method](route.path, guard(route.permission), (req, res) => {
      const body = { ...(isObject(req.query) ? req.query : {}), ...(isObject(req.body) ? req.body : {}) };
      handle(body).then(
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


const text = (x: unknown): string => (typeof x === 'string' ? x.trim() : '');

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

interface Access {
  client: EasyClient;
  timezone: string;
  /** Set when the deployed node's stored token is in use (its hub may have last good data). */
  lending: AccountNode | null;
}

/** The client a request may use, and the zone, from what the dialog typed or the deployed node. */
function accessFor(RED: AdminRED, body: Record<string, unknown>): Access {
  const deployed = deployedAccount(RED, text(body.id));
  const typedBase = text(body.baseUrl);
  const typedToken = text(body.token) === PASSWORD_PLACEHOLDER ? '' : text(body.token);
  const timezone = zoneOf(body, deployed);
  if (typedToken) {
    const baseUrl = typedBase || deployed?.baseUrl || DEFAULT_BASE_URL;
    return { client: new EasyClient({ ...DIALOG_CLIENT, baseUrl, token: typedToken }), timezone, lending: null };
  }
  const stored = deployed?.credentials?.token;
  if (!deployed || !stored) {
    throw new EditorRequestError('bad_request', 'no token: type the access token in the account (or deploy the account first)');
  }
  if (typedBase && !sameBase(typedBase, deployed.baseUrl)) {
    // the stored token only ever goes where it was configured to go
    throw new EditorRequestError('bad_request', 'the base URL differs from the deployed account: type the token again to use it with the new base URL');
  }
  return { client: new EasyClient({ ...DIALOG_CLIENT, baseUrl: deployed.baseUrl, token: stored }), timezone, lending: deployed };
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
  try {
    return connectionOk(await access.client.fetchTariffs());
  } catch (err) {
    return connectionFailed(err);
  }
}

/** The account's tariffs; a deployed account lending its token falls back on its last good ones. */
async function fetchTariffs(access: Access) {
  try {
    const parsed = await access.client.fetchTariffs();
    return { parsed, fetchedAt: Date.now(), stale: false, error: null as unknown };
  } catch (err) {
    const kept = access.lending?.hub?.tariffs();
    if (kept && kept.tariffs.length > 0) return { parsed: kept, fetchedAt: kept.fetchedAt, stale: true, error: err };
    throw err;
  }
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
  const tariff = findTariff(got.parsed.tariffs, text(body.tariff));
  const data = chartData(tariff, at, access.timezone);
  // easy-plan's dialog: its settings as typed, planned over the chart's week with the base line's sensors
  const plan = isObject(body.plan) ? planPreview(tariff, body.plan, at, data.to, { timezone: access.timezone, sensors: data.lines[0].sensors ?? undefined }) : undefined;
  const answer = plan ? { ...data, plan } : data;
  return got.stale ? { ...answer, stale: true, error: editorError(got.error) } : answer;
}

async function sensors(RED: AdminRED, body: Record<string, unknown>) {
  const gateway = text(body.gateway);
  if (!gateway) throw new EditorRequestError('bad_request', 'no gateway id given');
  const access = accessFor(RED, body);
  return { gateway, sensors: sensorRows(await access.client.fetchSensors(gateway)) };
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
