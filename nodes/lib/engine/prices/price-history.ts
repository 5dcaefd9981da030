// The prices a site has been sent, kept as one list (docs/nodes.md, "easy prices"): each new
// list laid over what was known (it wins where it has a price, the old prices stay where it
// has none: today's list and tomorrow's merged), days older than the history let go, and the
// whole as one compact line of text for the context store (runs of back-to-back entries of
// one length: a start, the length, the prices), read back as hostile data.

import { DAY_MS, instantText, isNearNow } from '../time/time';
import { MAX_PRICE_LIST_ENTRIES } from '../common/limits';
import { checkPriceEntries, PriceEntry, PriceInputError, RawEntry } from './price-checks';
import { isBeyondStoredAhead } from '../common/stored-checks';

/** Days of prices kept before now: a month's bill and the month before it, late readings and the archive (62). */
export const HISTORY_DAYS = 62;
/** Entries kept at most: what one engine list may hold (62 days of 5-minute prices are 17,856); beyond, the oldest go first. */
export const MAX_HISTORY_ENTRIES = MAX_PRICE_LIST_ENTRIES;
/** The longest stored line read back (20,000 prices of ~10 characters, with room); a longer one is dropped unread. */
export const MAX_HISTORY_CHARS = 400_000;

/**
 * `incoming` laid over `kept` (both sorted, none overlapping): every kept entry is cut
 * where an incoming one covers it, what is left of it stays; then entries ending before
 * `keepFrom` are let go and at most MAX_HISTORY_ENTRIES stay (the newest). Linear.
 */
export function mergePrices(kept: readonly PriceEntry[], incoming: readonly PriceEntry[], keepFrom: number): PriceEntry[] {
  // what is left of the kept entries where no incoming one covers them
  const left: PriceEntry[] = [];
  let j = 0;
  for (const old of kept) {
    while (j < incoming.length && incoming[j].to <= old.from) j++;
    let from = old.from;
    for (let k = j; k < incoming.length && incoming[k].from < old.to; k++) {
      if (incoming[k].from > from) left.push({ from, to: incoming[k].from, price: old.price });
      from = Math.max(from, incoming[k].to);
    }
    if (from < old.to) left.push({ from, to: old.to, price: old.price });
  }
  // both sorted and apart: merged in time order
  const out: PriceEntry[] = [];
  let a = 0;
  let b = 0;
  while (a < left.length || b < incoming.length) {
    const next = b >= incoming.length || (a < left.length && left[a].from < incoming[b].from) ? left[a++] : incoming[b++];
    if (next.to > keepFrom) out.push(next);
  }
  return out.length > MAX_HISTORY_ENTRIES ? out.slice(out.length - MAX_HISTORY_ENTRIES) : out;
}

/** The instant before which prices are let go, `now` being the clock's. */
export function historyStart(now: number): number {
  return now - HISTORY_DAYS * DAY_MS;
}

/**
 * The entries as one line: `start/length:p,p,p;start/length:p` (epoch ms, ms, prices as
 * JavaScript writes them, exact), each run of back-to-back entries of one length once.
 * Two days of quarter hours take ~1.5 kB, 62 days ~45 kB.
 */
export function encodePrices(entries: readonly PriceEntry[]): string {
  const runs: string[] = [];
  let k = 0;
  while (k < entries.length) {
    const start = entries[k].from;
    const length = entries[k].to - start;
    const prices = [String(entries[k].price)];
    let m = k + 1;
    while (m < entries.length && entries[m].from === entries[m - 1].to && entries[m].to - entries[m].from === length) {
      prices.push(String(entries[m].price));
      m++;
    }
    runs.push(`${start}/${length}:${prices.join(',')}`);
    k = m;
  }
  return runs.join(';');
}

/** Stored prices that start more than MAX_STORED_AHEAD_MS ahead of the clock: how many, the first one's start. */
export interface AheadDropped {
  count: number;
  from: number;
}

/**
 * A stored line read back: the entries, or null and why (not a line of this shape, too long,
 * instants not near now, entries overlapping or out of order). Checked as a list from a
 * message is, so a tampered store cannot hold what a message could not bring. Prices that
 * start more than a year ahead of `now` (MAX_STORED_AHEAD_MS) are left out and counted in
 * `ahead`; nearer ones are kept, as every store keeps what a later clock stored.
 */
export function decodePrices(
  line: unknown,
  now: number,
): { entries: PriceEntry[]; problem: null; ahead: AheadDropped | null } | { entries: null; problem: string } {
  if (typeof line !== 'string') return { entries: null, problem: 'not a line of text' };
  if (line.length > MAX_HISTORY_CHARS) return { entries: null, problem: `longer than ${MAX_HISTORY_CHARS} characters` };
  if (line === '') return { entries: [], problem: null, ahead: null };
  const raw: RawEntry[] = [];
  let ahead: AheadDropped | null = null;
  for (const run of line.split(';')) {
    const m = /^(-?\d{1,16})\/(\d{1,12}):([-+0-9.eE,]{1,400000})$/.exec(run);
    if (!m) return { entries: null, problem: `a run that is not "start/length:prices" (${JSON.stringify(run.slice(0, 40))})` };
    const start = Number(m[1]);
    const length = Number(m[2]);
    if (!isNearNow(start, now) || length <= 0 || length > DAY_MS)
      return { entries: null, problem: `a run at ${instantText(start)} of ${length} ms` };
    const prices = m[3].split(',');
    if (raw.length + prices.length > MAX_HISTORY_ENTRIES) return { entries: null, problem: `more than ${MAX_HISTORY_ENTRIES} prices` };
    for (let i = 0; i < prices.length; i++) {
      const price = Number(prices[i]);
      if (prices[i] === '' || !Number.isFinite(price))
        return { entries: null, problem: `a price that is not a number at ${instantText(start + i * length)}` };
      // stored state's rule: up to a year ahead it was kept under a later clock (this one behind); further, let go
      if (isBeyondStoredAhead(start + i * length, now)) {
        ahead ??= { count: 0, from: start + i * length };
        ahead.count++;
        continue;
      }
      raw.push({
        from: start + i * length,
        to: start + (i + 1) * length,
        price,
        // the checks' messages add the instant; formatting it for every entry held the event loop
        where: `stored price ${raw.length + 1}`,
      });
    }
  }
  try {
    // sorted, no duplicates or overlaps; gaps are allowed (kept lists may have them)
    const entries = checkPriceEntries(raw, { source: 'list', unit: 'kWh', currency: null }, undefined, false).entries;
    return { entries, problem: null, ahead };
  } catch (e) {
    return { entries: null, problem: e instanceof PriceInputError ? e.message : String(e) };
  }
}
