// A price list read from a message, checked as a whole: in time order, no duplicate or
// overlapping entry, each entry's end (given, or the next one's start), holes told apart
// from a list's own steps, and prices 1,000× off the rest (a price per MWh among prices
// per kWh). What is wrong is an error naming the entry; what is only odd is a warning.

import { counted, roundAmount } from '../common/format';
import { instantText, MINUTE_MS } from '../time/time';

export type PriceUnit = 'kWh' | 'MWh';

export interface PriceInputOptions {
  /** What the list's numbers are per: kWh (default) or MWh (divided by 1,000). */
  unit?: PriceUnit;
  /** Tibber's field read as the price: `total` (default: energy and taxes, VAT included) or `energy`. */
  tibberPrice?: 'total' | 'energy';
  /** The currency the prices are in, when known (the account's): large-number currencies are not "1,000× off". */
  currency?: string;
}

/** One price of the list: `[from, to)` in epoch ms, `price` per kWh in the list's currency. */
export interface PriceEntry {
  from: number;
  to: number;
  price: number;
}

export interface PriceListInput {
  source: 'power-saver' | 'tibber' | 'nordpool' | 'list';
  unit: PriceUnit;
  /** The currency the message states (Nord Pool's `currency`), else null. */
  currency: string | null;
  entries: PriceEntry[];
  /** The first entry's start and the last one's end. */
  from: number;
  to: number;
  /** Times inside [from, to) with no price: between entries whose ends say so, or Nord Pool's empty hours. */
  gaps: Array<{ from: number; to: number }>;
  /** What looks wrong but may be right (a whole list per MWh read as per kWh), in words. */
  warnings: string[];
  /** The entries came out of time order and were sorted. */
  reordered: boolean;
}

/** A list refused: `message` names the entry and what is wrong; `at` its start, when known. */
export class PriceInputError extends Error {
  readonly at: number | null;
  constructor(message: string, at: number | null) {
    super(message);
    this.name = 'PriceInputError';
    this.at = at;
  }
}

/** An entry as read, before the list is judged: `to` null when the entry gives no end. */
export interface RawEntry {
  from: number;
  to: number | null;
  price: number;
  /** Its path in the message, e.g. `msg.payload.priceData[3]`. */
  where: string;
}

/** Currencies whose prices per kWh are in the tens or hundreds (a price of 50 is no MWh price there). */
const LARGE_NUMBER_CURRENCIES = new Set([
  'HUF',
  'ISK',
  'JPY',
  'KRW',
  'CLP',
  'COP',
  'IDR',
  'VND',
  'IRR',
  'UGX',
  'TZS',
  'KZT',
  'RSD',
  'AMD',
  'MNT',
  'PYG',
  'LBP',
]);
/** An entry this many times the list's 75th percentile (of |price|) is 1,000× off, not a spike. */
const OUTLIER_FACTOR = 300;
/** The least scale the outlier test measures against, so a list of near-zero prices does not flag a normal one. */
const OUTLIER_FLOOR = 0.01;
/** Above this per kWh (75th percentile of |price|), a list looks like prices per MWh. */
const LOOKS_PER_MWH = 20;
/** Below this per kWh (75th percentile of |price|) while read per MWh, a list looks like prices per kWh. */
const LOOKS_PER_KWH = 0.0005;

const at = (ms: number): string => instantText(ms);
const minutes = (ms: number): string => `${Math.round((ms / MINUTE_MS) * 100) / 100} min`;

/** The 75th percentile of |price| (nearest rank). */
function upperQuartile(entries: readonly RawEntry[]): number {
  const abs = Float64Array.from(entries, (e) => Math.abs(e.price)).sort();
  return abs[Math.min(abs.length - 1, Math.ceil(abs.length * 0.75) - 1)];
}

function checkOutliers(entries: readonly RawEntry[], unit: PriceUnit): void {
  if (entries.length < 8) return;
  const scale = upperQuartile(entries);
  const limit = OUTLIER_FACTOR * Math.max(scale, OUTLIER_FLOOR);
  for (const e of entries) {
    if (Math.abs(e.price) > limit) {
      const factor = unit === 'MWh' ? 'per kWh among prices per MWh' : 'per MWh among prices per kWh';
      throw new PriceInputError(
        `${e.where} (${at(e.from)}): ${e.price} per kWh is over ${OUTLIER_FACTOR}× the list's other prices (75 % are at most ${roundAmount(scale)} per kWh): a price ${factor}? The list is refused`,
        e.from,
      );
    }
  }
}

function unitWarnings(entries: readonly RawEntry[], unit: PriceUnit, currency: string | null): string[] {
  const scale = upperQuartile(entries);
  if (unit === 'kWh' && scale > LOOKS_PER_MWH && (currency === null || !LARGE_NUMBER_CURRENCIES.has(currency.toUpperCase()))) {
    return [
      `the prices look 1,000× too high for prices per kWh (75 % are at most ${roundAmount(scale)}): are they per MWh? Set the unit to MWh`,
    ];
  }
  if (unit === 'MWh' && scale < LOOKS_PER_KWH) {
    return [
      `the prices look 1,000× too low for prices per MWh (75 % are at most ${roundAmount(scale * 1000)} per MWh): are they per kWh? Set the unit to kWh`,
    ];
  }
  return [];
}

/**
 * The entries as a checked list. Entries without an end last until the next one starts,
 * unless that is longer than the entries on both sides last: that is a hole (quarter hours
 * 00:00, 00:15, 01:00 leave 00:30-01:00 with no price), an error, since nothing in the list
 * says whether the entry before it lasts 15 minutes or 45. The last entry without an end
 * lasts as long as the one before it (power-saver's rule); a single entry needs its end.
 */
export function checkPriceEntries(
  raw: RawEntry[],
  about: { source: PriceListInput['source']; unit: PriceUnit; currency: string | null },
  currency?: string,
  /** Whether prices are judged (1,000× off, the unit): not for prices already accepted once (a stored list). */
  judgePrices = true,
): PriceListInput {
  let reordered = false;
  for (let i = 1; i < raw.length; i++) {
    if (raw[i].from < raw[i - 1].from) {
      reordered = true;
      break;
    }
  }
  // Stable: of equal starts the first given comes first, so the error names both in order.
  const entries = reordered
    ? raw
        .map((e, i) => ({ e, i }))
        .sort((a, b) => a.e.from - b.e.from || a.i - b.i)
        .map((x) => x.e)
    : raw;
  const n = entries.length;
  for (let i = 1; i < n; i++) {
    if (entries[i].from === entries[i - 1].from) {
      throw new PriceInputError(
        `${entries[i].where} starts at ${at(entries[i].from)}, as ${entries[i - 1].where} does: a duplicate price; send each interval once`,
        entries[i].from,
      );
    }
  }
  const step = (i: number): number => entries[i + 1].from - entries[i].from;
  const length = (i: number): number | null => {
    const e = entries[i];
    if (e.to !== null) return e.to - e.from;
    return i + 1 < n ? step(i) : null;
  };
  const out: PriceEntry[] = new Array<PriceEntry>(n);
  const gaps: Array<{ from: number; to: number }> = [];
  for (let i = 0; i < n; i++) {
    const e = entries[i];
    let to: number;
    if (e.to !== null) {
      to = e.to;
      if (i + 1 < n && to > entries[i + 1].from) {
        throw new PriceInputError(
          `${e.where} (${at(e.from)} to ${at(to)}) overlaps ${entries[i + 1].where}, which starts at ${at(entries[i + 1].from)}`,
          e.from,
        );
      }
      if (i + 1 < n && to < entries[i + 1].from) gaps.push({ from: to, to: entries[i + 1].from });
    } else if (i + 1 < n) {
      const own = step(i);
      const before = i > 0 ? length(i - 1) : null;
      const after = length(i + 1);
      const neighbour = Math.max(before ?? 0, after ?? 0);
      if ((before !== null || after !== null) && own > neighbour) {
        throw new PriceInputError(
          `${e.where} (${at(e.from)}): the next price starts ${minutes(own)} later, where the entries around it last ${minutes(neighbour)}: ` +
            `a hole of ${minutes(own - neighbour)} with no price. Send the whole list, or give each entry its end`,
          e.from,
        );
      }
      to = entries[i + 1].from;
    } else {
      const before = i > 0 ? out[i - 1].to - out[i - 1].from : null;
      if (before === null) throw new PriceInputError(`${e.where} (${at(e.from)}) is the only price and has no end: give its end`, e.from);
      to = e.from + before;
    }
    out[i] = { from: e.from, to, price: e.price };
  }
  if (judgePrices) checkOutliers(entries, about.unit);
  const warnings = judgePrices ? unitWarnings(entries, about.unit, about.currency ?? currency ?? null) : [];
  if (gaps.length > 0) {
    const first = gaps[0];
    warnings.push(`${counted(gaps.length, 'gap')} with no price in the list, the first from ${at(first.from)} to ${at(first.to)}`);
  }
  return {
    source: about.source,
    unit: about.unit,
    currency: about.currency,
    entries: out,
    from: out[0].from,
    to: out[n - 1].to,
    gaps,
    warnings,
    reordered,
  };
}
