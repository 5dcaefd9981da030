// Which credentials an admin route's request may use (the rules: admin-routes.ts's header),
// and the Express slice the routes use: a token typed in the dialog goes to the base URL and
// proxy typed beside it, and nowhere else; with no token the deployed account node named by
// `id` answers through its hub, with its stored token, base URL and proxy only. Nothing here
// ever puts the token or a proxy password into an answer.
import { accountProxy } from '../api/account-config';
import { DEFAULT_BASE_URL, EasyClient, EasyClientOptions } from '../api/client';
import { EditorRequestError } from './editor-data';
import type { AccountHub } from '../runtime/account/hub';
import { isObject } from '../engine/tariff/tariff';
import { assertTimeZone, machineTimeZone } from '../engine/time/time';
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
export type Handler = (req: AdminRequest, res: AdminResponse, next: (err?: unknown) => void) => void;
export interface AdminApp {
  get(path: string, ...handlers: Handler[]): unknown;
  post(path: string, ...handlers: Handler[]): unknown;
}
export interface AdminRED extends NodeAPI {
  httpAdmin?: AdminApp;
  auth?: { needsPermission(permission: string): Handler };
  nodes: NodeAPI['nodes'] & { eachNode?(fn: (config: NodeDef) => void): void };
}

/** The editor's stand-in for a stored password; never a token. */
const PASSWORD_PLACEHOLDER = '__PWRD__';
/** A dialog waits for these answers: one attempt, a short deadline. */
const DIALOG_CLIENT = { retries: 0, timeoutMs: 10_000 };

/** Query and body fields of a request as one record (the body wins). */
export function requestBody(req: AdminRequest): Record<string, unknown> {
  return { ...(isObject(req.query) ? req.query : {}), ...(isObject(req.body) ? req.body : {}) };
}

export const text = (x: unknown): string => (typeof x === 'string' ? x.trim() : '');

/** The token typed in the dialog, or '' (nothing, or the editor's stand-in for the stored one). */
export function typedToken(body: Record<string, unknown>): string {
  const token = text(body.token);
  return token === PASSWORD_PLACEHOLDER ? '' : token;
}

/** The deployed easy-account node with this id, or null. */
export function deployedAccount(RED: AdminRED, id: string): AccountNode | null {
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
export type Access = { timezone: string; client: EasyClient; hub?: undefined } | { timezone: string; hub: AccountHub; client?: undefined };

/** The client or hub a request may use, and the zone, from what the dialog typed or the deployed node. */
export function accessFor(RED: AdminRED, body: Record<string, unknown>): Access {
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
