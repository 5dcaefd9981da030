// How easy-tariff, easy-plan and easy-cost attach to their easy-prices config node: find
// it and its book, or learn in words why not. Without a prices node a node prices its
// account tariff alone, as it always did.

import { carriesPriceList } from '../../engine/prices/price-inputs';
import type { Node, NodeAPI } from '../common/red-types';
import type { PriceBook } from './price-book';
import type { PricesSettings } from './prices-settings';

/** The easy-prices config node as its users see it (nodes/easy-prices.ts). */
export interface PricesNode extends Node {
  /** null when its settings cannot work (settingsError says why). */
  book: PriceBook | null;
  settings: PricesSettings | null;
  settingsError: Error | null;
}

export interface PricesLink {
  book: PriceBook | null;
  settings: PricesSettings | null;
  /** Why a node set to use prices has none (a missing node, wrong settings), for its status and errors. */
  problem: string | null;
}

/** The node's prices, none when it is set to none (an empty id). */
export function linkPrices(RED: NodeAPI, pricesId: unknown): PricesLink {
  if (typeof pricesId !== 'string' || pricesId === '') return { book: null, settings: null, problem: null };
  const node = RED.nodes.getNode(pricesId) as PricesNode | null;
  if (!node) return { book: null, settings: null, problem: 'the easy-prices node set is not deployed' };
  if (!node.book || !node.settings)
    return { book: null, settings: null, problem: `prices: ${node.settingsError?.message ?? 'not available'}` };
  return { book: node.book, settings: node.settings, problem: null };
}

/**
 * A price list arriving at a node (easy-tariff, easy-plan, easy-cost): handed to its prices
 * node. Returns false for any other message (the node handles it as it always did); throws
 * an Error in words when the list is wrong (naming the entry; the kept prices unchanged) or
 * the node has no prices node to keep it. Warnings of the list (a unit that looks 1,000×
 * off, gaps) go to `warn`, once per list.
 */
export function takePriceList(link: PricesLink, msg: unknown, warn: (text: string) => void): boolean {
  if (!carriesPriceList(msg)) return false;
  if (link.problem !== null) throw new Error(`a price list came, but ${link.problem}`);
  if (link.book === null)
    throw new Error('a price list came, but this node uses no prices node: set Prices in its dialog to keep and price with spot prices');
  const { list } = link.book.accept(msg);
  for (const text of list.warnings) warn(`price list from ${list.source}: ${text}`);
  return true;
}
