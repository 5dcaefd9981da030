// Price lists as Node-RED users already have them, read into one form: instants with a price
// per kWh. The shapes are the peers' own (docs/prices.md, "Lists from anywhere"):
// power-saver's `priceData` (the output of its ps-receive-price) and its `today`/`tomorrow`
// input, Tibber's `priceInfo` (node-red-contrib-tibber-api's tibber-query answer, the
// priceInfo object, or a bare list of its entries), Home Assistant's Nord Pool sensor
// (`raw_today`/`raw_tomorrow` of an events: state or current state node), and a plain
// `[{ start, end?, price }]`. Everything is data from outside: own fields only, capped,
// numbers must be JSON numbers, and a wrong entry is an error naming it.

import { ownField } from '../common/id-map';
import { MAX_PRICE_ENTRIES } from '../common/limits';
import { describe, instantText, toEpochMs } from '../time/time';
import { checkPriceEntries, PriceInputError, type PriceInputOptions, type PriceListInput, type RawEntry } from './price-checks';

export { PriceInputError, type PriceInputOptions, type PriceListInput, type PriceEntry, type PriceUnit } from './price-checks';

/** Where a list came from, as the result says it. */
export type ListFormat = 'power-saver' | 'tibber' | 'nordpool' | 'list';

interface Located {
  source: ListFormat;
  /** The lists of the message, in order (today then tomorrow), each with the path it is at. */
  lists: Array<{ path: string; items: unknown }>;
  /** The field read as the price of an entry, and as its start. */
  priceField: string;
  startField: string;
  /** Entries whose price is null stand for "no price" here (Nord Pool's junk hours). */
  nullIsGap: boolean;
  /** The unit the source states, when it does (Nord Pool's unit_of_measurement). */
  statedUnit: string | null;
  currency: string | null;
}

const isList = Array.isArray as (x: unknown) => x is unknown[];

/** The Nord Pool attributes object of a Home Assistant message, wherever the HA node put it. */
function nordPoolAttributes(msg: unknown): { at: string; attributes: unknown } | null {
  const candidates: Array<[string, unknown]> = [
    ['data.new_state.attributes', ownField(ownField(ownField(msg, 'data'), 'new_state'), 'attributes')],
    ['data.attributes', ownField(ownField(msg, 'data'), 'attributes')],
    ['payload.attributes', ownField(ownField(msg, 'payload'), 'attributes')],
    ['payload', ownField(msg, 'payload')],
  ];
  for (const [at, attributes] of candidates) {
    if (ownField(attributes, 'raw_today') !== undefined || ownField(attributes, 'raw_tomorrow') !== undefined) {
      return { at, attributes };
    }
  }
  return null;
}

/** Tibber's priceInfo, wherever a tibber-query (or a GraphQL answer) put it. */
function tibberPriceInfo(payload: unknown): { at: string; info: unknown } | null {
  const viewer = ownField(payload, 'viewer') ?? ownField(ownField(payload, 'data'), 'viewer');
  const prefix = ownField(payload, 'viewer') !== undefined ? 'payload.viewer' : 'payload.data.viewer';
  if (viewer !== undefined) {
    const homes = ownField(viewer, 'homes');
    if (isList(homes)) {
      return {
        at: `${prefix}.homes[0].currentSubscription.priceInfo`,
        info: ownField(ownField(homes[0], 'currentSubscription'), 'priceInfo'),
      };
    }
    const home = ownField(viewer, 'home');
    if (home !== undefined)
      return { at: `${prefix}.home.currentSubscription.priceInfo`, info: ownField(ownField(home, 'currentSubscription'), 'priceInfo') };
  }
  const info = ownField(payload, 'priceInfo');
  if (info !== undefined) return { at: 'payload.priceInfo', info };
  const sub = ownField(ownField(payload, 'currentSubscription'), 'priceInfo');
  if (sub !== undefined) return { at: 'payload.currentSubscription.priceInfo', info: sub };
  return null;
}

function textOrNull(x: unknown): string | null {
  return typeof x === 'string' && x.length > 0 && x.length <= 40 ? x : null;
}

function dayLists(obj: unknown, at: string, names: readonly string[]): Array<{ path: string; items: unknown }> {
  const lists: Array<{ path: string; items: unknown }> = [];
  for (const name of names) {
    const items = ownField(obj, name);
    if (items !== undefined && items !== null) lists.push({ path: `${at}.${name}`, items });
  }
  return lists;
}

/** Which format a message is in, and where its lists are; null when none is recognised. */
function locate(msg: unknown, options: PriceInputOptions): Located | null {
  const payload = ownField(msg, 'payload');
  const nordPool = nordPoolAttributes(msg);
  if (nordPool !== null) {
    const unit = textOrNull(ownField(nordPool.attributes, 'unit_of_measurement')) ?? textOrNull(ownField(nordPool.attributes, 'unit'));
    return {
      source: 'nordpool',
      lists: dayLists(nordPool.attributes, `msg.${nordPool.at}`, ['raw_today', 'raw_tomorrow']),
      priceField: 'value',
      startField: 'start',
      nullIsGap: true,
      statedUnit: unit,
      currency: textOrNull(ownField(nordPool.attributes, 'currency')),
    };
  }
  const tibber = tibberPriceInfo(payload);
  if (tibber !== null) {
    return {
      source: 'tibber',
      lists: dayLists(tibber.info, `msg.${tibber.at}`, ['today', 'tomorrow']),
      priceField: options.tibberPrice ?? 'total',
      startField: 'startsAt',
      nullIsGap: false,
      statedUnit: null,
      currency: null,
    };
  }
  const priceData = ownField(payload, 'priceData');
  if (priceData !== undefined) {
    return {
      source: 'power-saver',
      lists: [{ path: 'msg.payload.priceData', items: priceData }],
      priceField: 'value',
      startField: 'start',
      nullIsGap: false,
      statedUnit: null,
      currency: null,
    };
  }
  if (ownField(payload, 'today') !== undefined || ownField(payload, 'tomorrow') !== undefined) {
    const today = ownField(payload, 'today');
    const first = isList(today) && today.length > 0 ? today[0] : undefined;
    const tibberEntries = ownField(first, 'startsAt') !== undefined;
    return {
      source: tibberEntries ? 'tibber' : 'power-saver',
      lists: dayLists(payload, 'msg.payload', ['today', 'tomorrow']),
      priceField: tibberEntries ? (options.tibberPrice ?? 'total') : 'value',
      startField: tibberEntries ? 'startsAt' : 'start',
      nullIsGap: false,
      statedUnit: null,
      currency: null,
    };
  }
  if (isList(payload)) {
    const first = payload.length > 0 ? payload[0] : undefined;
    if (ownField(first, 'startsAt') !== undefined) {
      return {
        source: 'tibber',
        lists: [{ path: 'msg.payload', items: payload }],
        priceField: options.tibberPrice ?? 'total',
        startField: 'startsAt',
        nullIsGap: false,
        statedUnit: null,
        currency: null,
      };
    }
    // a plain list is one whose first entry has a start: other arrays (readings) are no price list
    if (ownField(first, 'start') === undefined) return null;
    const priceField = ownField(first, 'price') === undefined && ownField(first, 'value') !== undefined ? 'value' : 'price';
    return {
      source: 'list',
      lists: [{ path: 'msg.payload', items: payload }],
      priceField,
      startField: 'start',
      nullIsGap: false,
      statedUnit: null,
      currency: null,
    };
  }
  return null;
}

/**
 * Whether a message carries a price list in a format readPriceList knows (which may still
 * be wrong inside): the nodes hand such messages to their prices node, and treat any other
 * as they always did. Cheap: it looks at a few fields, never at the entries.
 */
export function carriesPriceList(msg: unknown): boolean {
  return locate(msg, {}) !== null;
}

/** The unit a source states ("NOK/kWh", "EUR/MWh", "kWh") as the setting's word, or null. */
function unitOf(stated: string): 'kWh' | 'MWh' | 'other' {
  const tail = stated
    .slice(stated.lastIndexOf('/') + 1)
    .trim()
    .toLowerCase();
  return tail === 'kwh' ? 'kWh' : tail === 'mwh' ? 'MWh' : 'other';
}

/**
 * The price list a message carries, in any of the formats above, checked: instants
 * (`from`, `to`, epoch ms) and prices per kWh in the unit set (`unit`, per kWh by default),
 * sorted. Throws a PriceInputError naming the entry (its path in the message, its start)
 * for a price that is no JSON number, a start that is no instant, a duplicate or
 * overlapping entry, a hole between entries that carry no `end`, an entry 1,000× off the
 * rest of the list, or a list longer than MAX_PRICE_ENTRIES; a whole list that looks
 * 1,000× off (per MWh read as per kWh) is a warning in the result.
 */
export function readPriceList(msg: unknown, options: PriceInputOptions = {}): PriceListInput {
  const found = locate(msg, options);
  if (found === null) {
    throw new PriceInputError(
      'no price list in the message: expected msg.payload.priceData (power-saver), a Tibber priceInfo (today/tomorrow of { startsAt, total }), ' +
        'a Home Assistant Nord Pool state (attributes raw_today/raw_tomorrow) or msg.payload = [{ start, end?, price }]',
      null,
    );
  }
  if (found.statedUnit !== null && options.unit !== undefined) {
    const stated = unitOf(found.statedUnit);
    if (stated !== 'other' && stated !== options.unit) {
      throw new PriceInputError(
        `the list says its prices are per ${stated} (${describe(found.statedUnit)}), the setting says per ${options.unit}: set the unit to ${stated}`,
        null,
      );
    }
  }
  const unit = options.unit ?? (found.statedUnit !== null && unitOf(found.statedUnit) === 'MWh' ? 'MWh' : 'kWh');
  const raw: RawEntry[] = [];
  for (const { path, items } of found.lists) {
    if (!isList(items)) throw new PriceInputError(`${path} must be a list of prices, got ${describe(items)}`, null);
    if (raw.length + items.length > MAX_PRICE_ENTRIES) {
      throw new PriceInputError(
        `too many prices: ${raw.length + items.length} entries, at most ${MAX_PRICE_ENTRIES} a message (62 days of quarter hours are 5,952)`,
        null,
      );
    }
    for (let i = 0; i < items.length; i++) {
      const entry = items[i];
      const where = `${path}[${i}]`;
      if (typeof entry !== 'object' || entry === null || isList(entry))
        throw new PriceInputError(`${where} must be an object with a start and a price, got ${describe(entry)}`, null);
      const startValue = ownField(entry, found.startField);
      const from = toEpochMs(startValue);
      if (from === null)
        throw new PriceInputError(`${where}.${found.startField} must be an ISO 8601 time or epoch ms, got ${describe(startValue)}`, null);
      const endValue = ownField(entry, 'end');
      let to: number | null = null;
      if (endValue !== undefined && endValue !== null) {
        to = toEpochMs(endValue);
        if (to === null) throw new PriceInputError(`${where}.end must be an ISO 8601 time or epoch ms, got ${describe(endValue)}`, from);
        if (to <= from)
          throw new PriceInputError(`${where}.end (${instantText(to)}) must come after its start (${instantText(from)})`, from);
      }
      const price = ownField(entry, found.priceField);
      if (price === null && found.nullIsGap) continue; // Nord Pool's "no price this hour": a gap, reported
      if (typeof price !== 'number' || !Number.isFinite(price)) {
        const hint = typeof price === 'string' ? ' (a number, not text)' : '';
        throw new PriceInputError(`${where}.${found.priceField} must be a number${hint}, got ${describe(price)}`, from);
      }
      raw.push({ from, to, price: unit === 'MWh' ? price / 1000 : price, where });
    }
  }
  if (raw.length === 0) throw new PriceInputError('the message holds no prices (every list is empty)', null);
  return checkPriceEntries(raw, { source: found.source, unit, currency: found.currency }, options.currency);
}
