// The rest of a month on a price stack, for easy-cost's month-end projection (docs/semantics.md,
// rule 62): from the newest reading to the month's end, the stacked price at each instant at
// the site's use per hour so far; how much of it the list prices, the tariff alone beyond it,
// or nothing; and what was used, in words. The schedule is made once per stack object and month.
import { roundAmount } from '../../engine/common/format';
import type { PriceStack } from '../../engine/prices/price-stack';
import { PriceList, priceList } from '../../engine/prices/price-list';
import { schedule } from '../../engine/prices/price-source';
import { knownUntilText } from './prices-source';

const iso = (ms: number) => new Date(ms).toISOString();

/** The rest of the month on a stack: its energy and net at the use per hour so far, how much of it is on the list, beyond it, unpriced. */
export interface RestOnStack {
  energy: number;
  net: number;
  /** The end of the list's run of prices from the newest reading on (null: the list has no price then). */
  knownUntil: number | null;
  /** Of the rest of the month: time priced by the list, by the tariff alone (beyond: 'fees'), and with no price. */
  listMs: number;
  beyondMs: number;
  unpricedMs: number;
  /** The first instant with no price (null: none), and the energy and net of the rest before it. */
  unpricedFrom: number | null;
  energyBefore: number;
  netBefore: number;
  beyond: 'none' | 'fees';
}

/**
 * The stack's schedule from some instant to the month's end, as sums from each segment on:
 * made once per stack object (StackSource hands out one per change of the list or tariff)
 * and month, so a reading costs a binary search, not a schedule of a month of quarter hours.
 */
interface RestSchedule {
  from: number;
  to: number;
  starts: Float64Array;
  prices: Float64Array; // NaN: no price
  onList: Uint8Array;
  /** From segment k to the end: price × ms of the priced ones, ms on the list, beyond it, unpriced. */
  netAfter: Float64Array;
  listAfter: Float64Array;
  beyondAfter: Float64Array;
  unpricedAfter: Float64Array;
  /** The first unpriced segment at or after k (length: none). */
  nextUnpriced: Int32Array;
}
const restSchedules = new WeakMap<PriceStack, RestSchedule>();

function restSchedule(stack: PriceStack, list: PriceList, from: number, to: number, timezone: string): RestSchedule {
  const kept = restSchedules.get(stack);
  if (kept && kept.to === to && kept.from <= from) return kept;
  // the fees' sensor rules see no sensor value here (the rest is to come): such a rule prices nothing
  const entries = schedule(stack, from, to, { timezone });
  const n = entries.length;
  const r: RestSchedule = {
    from,
    to,
    starts: new Float64Array(n + 1),
    prices: new Float64Array(n),
    onList: new Uint8Array(n),
    netAfter: new Float64Array(n + 1),
    listAfter: new Float64Array(n + 1),
    beyondAfter: new Float64Array(n + 1),
    unpricedAfter: new Float64Array(n + 1),
    nextUnpriced: new Int32Array(n + 1).fill(n),
  };
  r.starts[n] = to;
  for (let k = n - 1; k >= 0; k--) {
    const e = entries[k];
    const ms = e.to - e.from;
    r.starts[k] = e.from;
    r.prices[k] = e.price === null ? NaN : e.price;
    r.onList[k] = list.indexAt(e.from) >= 0 ? 1 : 0;
    r.netAfter[k] = r.netAfter[k + 1] + (e.price === null ? 0 : e.price * ms);
    r.listAfter[k] = r.listAfter[k + 1] + (e.price !== null && r.onList[k] ? ms : 0);
    r.beyondAfter[k] = r.beyondAfter[k + 1] + (e.price !== null && !r.onList[k] ? ms : 0);
    r.unpricedAfter[k] = r.unpricedAfter[k + 1] + (e.price === null ? ms : 0);
    r.nextUnpriced[k] = e.price === null ? k : r.nextUnpriced[k + 1];
  }
  restSchedules.set(stack, r);
  return r;
}

export function restOnStack(stack: PriceStack, from: number, to: number, timezone: string, kwhPerMs: number): RestOnStack {
  const list: PriceList = stack.list instanceof PriceList ? stack.list : priceList(stack.list);
  const rest: RestOnStack = {
    energy: 0,
    net: 0,
    knownUntil: null,
    listMs: 0,
    beyondMs: 0,
    unpricedMs: 0,
    unpricedFrom: null,
    energyBefore: 0,
    netBefore: 0,
    beyond: stack.beyond === 'fees' ? 'fees' : 'none',
  };
  // the run of back-to-back entries that holds the newest reading
  let k = list.indexAt(from);
  if (k >= 0) {
    while (k + 1 < list.length && list.starts[k + 1] === list.ends[k]) k++;
    rest.knownUntil = list.ends[k];
  }
  if (!(from < to)) return rest;
  const r = restSchedule(stack, list, from, to, timezone);
  // the segment holding `from`, and the part of it from `from` on
  let lo = 0;
  let hi = r.prices.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (r.starts[mid] <= from) lo = mid;
    else hi = mid - 1;
  }
  const head = r.starts[lo + 1] - from;
  const headPrice = r.prices[lo];
  const headPriced = headPrice === headPrice;
  const priced = (after: Float64Array) => after[lo + 1];
  const netMs = (headPriced ? headPrice * head : 0) + priced(r.netAfter);
  rest.listMs = (headPriced && r.onList[lo] ? head : 0) + priced(r.listAfter);
  rest.beyondMs = (headPriced && !r.onList[lo] ? head : 0) + priced(r.beyondAfter);
  rest.unpricedMs = (headPriced ? 0 : head) + priced(r.unpricedAfter);
  rest.energy = kwhPerMs * (rest.listMs + rest.beyondMs);
  rest.net = kwhPerMs * netMs;
  const u = headPriced ? r.nextUnpriced[lo + 1] : lo;
  if (u < r.prices.length) {
    rest.unpricedFrom = u === lo ? from : r.starts[u];
    // priced time and price × ms from `from` to the first unpriced segment
    const beforeMs = rest.listMs + rest.beyondMs - (r.listAfter[u] + r.beyondAfter[u]);
    rest.energyBefore = kwhPerMs * beforeMs;
    rest.netBefore = kwhPerMs * (netMs - r.netAfter[u]);
  } else {
    rest.energyBefore = rest.energy;
    rest.netBefore = rest.net;
  }
  return rest;
}

/** What the projection on a stack used, in numbers and words. */
export function stackWords(rest: RestOnStack, enough: boolean, newest: number, timezone: string) {
  const hours = (ms: number) => roundAmount(ms / 3600_000);
  const known = rest.knownUntil === null ? 'the list has no price now' : knownUntilText(rest.knownUntil, newest, timezone);
  let note: string;
  if (!enough) note = 'less than an hour counted this month: no projection yet';
  else if (rest.unpricedMs > 0)
    note =
      `not projected: ${hours(rest.unpricedMs)} h of the rest of the month have no price (${known}; ` +
      (rest.beyond === 'fees'
        ? 'where the list has no price the tariff alone prices, and no rule of it matches there)'
        : 'the prices node gives no price beyond the list)');
  else if (rest.beyondMs > 0)
    note = `the rest of the month at the stacked prices until the list ends (${known}), then at the tariff alone (the prices node's Beyond the list)`;
  else note = `the rest of the month at the stacked prices (${known})`;
  return {
    knownUntil: rest.knownUntil === null ? null : iso(rest.knownUntil),
    knownUntilMs: rest.knownUntil,
    beyond: rest.beyond === 'fees' ? 'tariff' : 'none',
    listHours: hours(rest.listMs),
    beyondHours: hours(rest.beyondMs),
    unpricedHours: hours(rest.unpricedMs),
    unpricedFrom: rest.unpricedFrom === null ? null : iso(rest.unpricedFrom),
    note,
  };
}
