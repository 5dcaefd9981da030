// A price list (semantics "Price lists and stacks"): instants with a price per kWh, as
// day-ahead markets publish them, at any resolution (15, 30, 60 minutes or mixed), with
// gaps allowed and reported. Built once from plain entries, checked as hostile input
// (every error names the entry), then read by the engine as three typed arrays.
import { describe, instantText, requireEpochMs } from '../time/time';
import { groupDigits } from '../common/format';
import { ownField } from '../common/id-map';
import { MAX_PRICE_LIST_ENTRIES } from '../common/limits';

export { MAX_PRICE_LIST_ENTRIES };

/** One entry as given: `end` defaults to the next entry's start (the last one needs it, or a resolution). */
export interface PriceListEntry {
  start: number | Date | string;
  end?: number | Date | string;
  price: number;
}

export interface PriceListOptions {
  /** The length of an entry without an end and without a next entry (the last one), in ms. */
  resolution?: number;
}

/** A time the list does not price: between two entries, or none at all. */
export interface PriceGap {
  from: number;
  to: number;
}

/**
 * A checked price list: entries in time order, none overlapping, each [start, end) with a
 * finite price per kWh. Immutable: build a new one (priceList) to change it.
 */
export class PriceList {
  /** Entries' starts, ends (exclusive) and prices, in time order: read them, never write. */
  readonly starts: Float64Array;
  readonly ends: Float64Array;
  readonly prices: Float64Array;
  readonly length: number;
  /** The first start and the last end (NaN for an empty list). */
  readonly from: number;
  readonly to: number;
  /** Times between from and to that no entry prices, in order. */
  readonly gaps: readonly PriceGap[];
  /** Every entry's length where all are as long and none has a gap before it (a market's quarter hours), else 0. */
  private readonly step: number;

  constructor(starts: Float64Array, ends: Float64Array, prices: Float64Array) {
    this.starts = starts;
    this.ends = ends;
    this.prices = prices;
    this.length = starts.length;
    this.from = this.length > 0 ? starts[0] : NaN;
    this.to = this.length > 0 ? ends[this.length - 1] : NaN;
    const gaps: PriceGap[] = [];
    for (let k = 1; k < this.length; k++) if (ends[k - 1] < starts[k]) gaps.push({ from: ends[k - 1], to: starts[k] });
    this.gaps = Object.freeze(gaps);
    let step = this.length > 0 ? ends[0] - starts[0] : 0;
    for (let k = 1; k < this.length && step > 0; k++) if (starts[k] !== ends[k - 1] || ends[k] - starts[k] !== step) step = 0;
    this.step = step;
    Object.freeze(this);
  }

  /** The index of the entry pricing `at`, or -1 (before, after, or in a gap). */
  indexAt(at: number): number {
    // entries all as long, one after the other: the entry is found by a division (checked, as float division may round)
    if (this.step > 0) {
      const guess = Math.floor((at - this.from) / this.step);
      if (guess >= 0 && guess < this.length && this.starts[guess] <= at && at < this.ends[guess]) return guess;
    }
    const k = this.firstEndingAfter(at);
    return k < this.length && this.starts[k] <= at ? k : -1;
  }

  /** The index of the first entry whose end is after `at` (length when none): binary search. */
  firstEndingAfter(at: number): number {
    const ends = this.ends;
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid] <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The entries as plain objects (epoch ms), e.g. to store the list and build it again. */
  entries(): Array<{ start: number; end: number; price: number }> {
    const out: Array<{ start: number; end: number; price: number }> = [];
    for (let k = 0; k < this.length; k++) out.push({ start: this.starts[k], end: this.ends[k], price: this.prices[k] });
    return out;
  }

  toJSON(): Array<{ start: number; end: number; price: number }> {
    return this.entries();
  }
}

/**
 * A price list from `[{ start, end?, price }]` (instants as epoch ms, Date or ISO 8601 text;
 * price a finite number per kWh). Entries must be in time order and must not overlap; an
 * entry's end defaults to the next entry's start, the last entry's to its start plus
 * `resolution`. Anything else is a TypeError or RangeError naming the entry. A PriceList
 * is returned as it is.
 */
export function priceList(entries: unknown, options: PriceListOptions = {}): PriceList {
  if (entries instanceof PriceList) return entries;
  if (!Array.isArray(entries))
    throw new TypeError(`a price list must be an array of { start, end?, price } entries, got ${describe(entries)}`);
  const n = entries.length;
  if (n > MAX_PRICE_LIST_ENTRIES) {
    throw new RangeError(
      `the price list has ${groupDigits(n)} entries, more than the ${groupDigits(MAX_PRICE_LIST_ENTRIES)} a list may hold`,
    );
  }
  const resolution = options.resolution;
  if (resolution !== undefined && (typeof resolution !== 'number' || !Number.isFinite(resolution) || resolution <= 0)) {
    throw new RangeError(`resolution must be a positive number of milliseconds, got ${describe(resolution)}`);
  }
  const starts = new Float64Array(n);
  const ends = new Float64Array(n);
  const prices = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const entry: unknown = entries[k];
    const name = `price list entry ${k}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      throw new TypeError(`${name} must be a { start, end?, price } object, got ${describe(entry)}`);
    }
    starts[k] = requireEpochMs(ownField(entry, 'start'), `${name}: start`);
    const price = ownField(entry, 'price');
    if (typeof price !== 'number' || !Number.isFinite(price)) {
      const got = price === undefined ? 'nothing' : typeof price === 'string' ? `the string ${describe(price)}` : describe(price);
      throw new TypeError(`${name} (${instantText(starts[k])}): price must be a finite number per kWh, got ${got}`);
    }
    prices[k] = price;
    const end = ownField(entry, 'end');
    ends[k] = end === undefined || end === null ? NaN : requireEpochMs(end, `${name}: end`);
  }
  for (let k = 0; k < n; k++) {
    const at = instantText(starts[k]);
    if (k + 1 < n && !(starts[k + 1] > starts[k])) {
      const what = starts[k + 1] === starts[k] ? 'starts at the same instant as' : 'starts before';
      throw new RangeError(
        `price list entry ${k + 1} (${instantText(starts[k + 1])}) ${what} entry ${k} (${at}): entries must be in time order, each instant once`,
      );
    }
    if (ends[k] !== ends[k]) {
      if (k + 1 < n) ends[k] = starts[k + 1];
      else if (resolution !== undefined) ends[k] = starts[k] + resolution;
      else throw new TypeError(`price list entry ${k} (${at}), the last, needs an end (or give the list's resolution)`);
    }
    if (!(ends[k] > starts[k])) throw new RangeError(`price list entry ${k} (${at}) ends (${instantText(ends[k])}) before it starts`);
    if (k + 1 < n && ends[k] > starts[k + 1]) {
      throw new RangeError(
        `price list entry ${k} (${at}) ends after entry ${k + 1} starts (${instantText(starts[k + 1])}): entries must not overlap`,
      );
    }
  }
  return new PriceList(starts, ends, prices);
}
