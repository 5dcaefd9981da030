// easy-account: the config node. Builds one EasyClient and one AccountHub per account
// and hands the hub persistence through the node's own context (default store), so
// the last good tariffs survive a restart. Nodes register with it like core MQTT's broker.

import type { HubStore } from './lib/runtime/account/hub';
import { accountBasics, createAccount, DEFAULT_MIN_REFRESH_MS, machineTimeZone } from './lib/runtime/account/account-setup';
import { AdminRED, registerAdminRoutes } from './lib/editor/admin-routes';
import type { NodeAPI, NodeDef, NodeStatus } from './lib/runtime/common/red-types';
import type { AccountNode } from './lib/runtime/account/account-link';

const STORE_KEY = 'lastGoodTariffs';

/**
 * The last good tariffs per account and base URL within this process as well: with no
 * context store configured Node-RED deletes a node's context whenever the node stops,
 * so without this a redeploy while offline would lose them. A persistent store is what
 * carries them across a restart.
 */
const lastGoodInProcess = new Map<string, unknown>();

/**
 * The hub's store in the node's context. What is kept is tied to the base URL, so an
 * account pointed at another service never prices from the old one's tariffs.
 */
function contextStore(node: AccountNode): HubStore {
  const context = node.context();
  const key = `${node.id} ${node.baseUrl}`;
  return {
    load: () =>
      new Promise((resolve, reject) =>
        context.get(STORE_KEY, (err, kept) => {
          if (err) return reject(err);
          const k = kept as { baseUrl?: unknown; lastGood?: unknown } | undefined;
          resolve(k?.baseUrl === node.baseUrl ? k.lastGood : lastGoodInProcess.get(key));
        }),
      ),
    save: (lastGood) => {
      lastGoodInProcess.set(key, lastGood);
      return new Promise((resolve, reject) =>
        context.set(STORE_KEY, { baseUrl: node.baseUrl, lastGood }, (err) => (err ? reject(err) : resolve())),
      );
    },
  };
}

export = function register(RED: NodeAPI): void {
  // the edit dialogs' routes: once per runtime, whatever the number of accounts or deploys
  registerAdminRoutes(RED as AdminRED);
  function EasyAccountNode(this: AccountNode, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const basics = accountBasics(config);
    node.baseUrl = basics.baseUrl;
    node.timezone = basics.timezone;
    node.users = {};
    node.hub = null;
    node.configError = null;
    node.minRefreshMs = DEFAULT_MIN_REFRESH_MS;
    node.proxyMode = config.proxyMode;
    node.proxyUrl = config.proxyUrl;

    try {
      const parts = createAccount(basics, config, node.credentials, contextStore(node), (text) => node.warn(text));
      node.hub = parts.hub;
      node.minRefreshMs = parts.minRefreshMs;
      // which way the requests go, once per deploy (never a user name or password)
      if (parts.proxy) node.log(`requests go through the proxy ${parts.proxy.url} (set by ${parts.proxy.source})`);
    } catch (err) {
      // a bad zone or URL must not stop the runtime: the users show it and report it
      node.configError = err instanceof Error ? err : new Error(String(err));
      node.error(node.configError.message);
    }

    const configStatus = (): NodeStatus | null =>
      node.configError ? { fill: 'red', shape: 'ring', text: shortConfigError(node.configError) } : null;

    node.registerUser = (user) => {
      node.users[user.id] = user;
      const status = configStatus();
      if (status) user.status(status);
    };
    node.deregisterUser = (user) => {
      delete node.users[user.id];
    };

    node.on('close', (removed, done) => {
      if (removed) lastGoodInProcess.delete(`${node.id} ${node.baseUrl}`);
      const hub = node.hub;
      node.hub = null;
      if (!hub) return done();
      // close() never rejects: it only waits for aborted requests to settle
      void hub.close().then(done, done);
    });
  }

  RED.nodes.registerType('easy-account', EasyAccountNode, {
    credentials: { token: { type: 'password' }, proxyUser: { type: 'text' }, proxyPassword: { type: 'password' } },
    // the editor shows the zone an empty time zone stands for (RED.settings.easyAccountMachineTimezone);
    // read when the editor asks, so a Node-RED without our nodes never loads the zone data
    settings: {
      easyAccountMachineTimezone: {
        get value() {
          return machineTimeZone();
        },
        exportable: true,
      },
    },
  });
};

function shortConfigError(err: Error): string {
  if (/proxy/.test(err.message)) return 'bad proxy';
  if (/time zone/.test(err.message)) return 'bad time zone';
  if (/baseUrl/.test(err.message)) return 'bad base URL';
  if (/token/.test(err.message)) return 'bad token';
  if (/^account setting/.test(err.message)) return 'bad account setting';
  return 'account error';
}
