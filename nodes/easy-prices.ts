// easy-prices: the config node that keeps the price lists (day-ahead spot prices) its nodes
// are sent, and how they are stacked with the account's tariff. easy-tariff, easy-plan and
// easy-cost set to it hand it every price list they receive and price with what it keeps.
// Glue only: the lists, their merge and their store are in lib/runtime/prices.

import { nodeContextStore } from './lib/runtime/account/account-link';
import { PriceBook } from './lib/runtime/prices/price-book';
import { pricesSettings } from './lib/runtime/prices/prices-settings';
import type { PricesNode } from './lib/runtime/prices/prices-link';
import type { NodeAPI, NodeDef } from './lib/runtime/common/red-types';

const STORE_KEY = 'prices';

export = function register(RED: NodeAPI): void {
  function EasyPricesNode(this: PricesNode, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    node.book = null;
    node.settings = null;
    node.settingsError = null;
    try {
      node.settings = pricesSettings(config);
      node.book = new PriceBook({ input: node.settings.input, store: nodeContextStore(node, STORE_KEY), warn: (text) => node.warn(text) });
    } catch (err) {
      // a wrong setting must not stop the runtime: the nodes using it say why
      node.settingsError = err instanceof Error ? err : new Error(String(err));
      node.error(node.settingsError.message);
    }
    node.on('close', (_removed, done) => {
      const book = node.book;
      node.book = null;
      // the kept prices' last save; close() never rejects (a failed save is warned)
      if (book) void book.close().then(done, done);
      else done();
    });
  }
  RED.nodes.registerType('easy-prices', EasyPricesNode);
};
