// The admin routes behind the edit dialogs, registered once per runtime from
// easy-account's register function. Each answers JSON built by lib/editor-data; this
// file lists them and who may ask (permissions); admin-access.ts decides which credentials
// a request may use, admin-origin.ts refuses POSTs that are not the editor's own, and the
// routes are by group (admin-tariffs.ts, admin-sensors.ts, admin-peaks.ts):
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
// Every POST takes only an `application/json` body from the editor's own origin (admin-origin.ts).
import { editorError, httpStatusOf, zoneList } from './editor-data';
import { AdminRED, Handler, requestBody, typedToken } from './admin-access';
import { editorPostGuard } from './admin-origin';
import { chart, tariffs, testConnection } from './admin-tariffs';
import { gateways, sensors } from './admin-sensors';
import { peaks } from './admin-peaks';

export type { AdminApp, AdminRED, AdminRequest, AdminResponse } from './admin-access';

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
