// The re-run of docs/power-saver.md's Lowest Price comparison (npm run compare:power-saver
// prints it, test/lib/power-saver-rerun.test.ts holds the page to it): the price lists and
// settings of power-saver 5.2.2's own Lowest Price tests (bench/power-saver-cases.ts), each
// planned as its node does (one price a minute, periods found from the start times in
// Europe/Oslo, bench/peer-lowest-price.ts) and by cheapestWindows on a tariff of one rule
// a price slot, both against a brute force of the window's minutes.
import * as fs from 'fs';
import * as path from 'path';
import { DateTime, FixedOffsetZone, Settings } from 'luxon';
import { cheapestWindows } from '../nodes/lib/engine/plan/plan';
import { doPlanning, periods, PeerConfig } from './peer-lowest-price';
import { FIXTURES, LOWEST_PRICE_CASES, LowestPriceCase, MINUTE, pad, sameCost, Switch } from './power-saver-cases';

/** Where power-saver's tests run (their fixtures are Norwegian prices with +01:00/+02:00). */
const PEER_ZONE = 'Europe/Oslo';

/** How the two planners' choices in one window relate. */
export type WindowOutcome = 'same' | 'tie' | 'semantics' | 'ours worse' | 'peer worse';

export interface WindowRow {
  test: string;
  window: string;
  minutes: number;
  oursOptimal: boolean;
  peerOptimal: boolean;
  outcome: WindowOutcome;
  /** Cost of 1 kW (price × hours) of ours, the peer's and the reference. */
  ours: number;
  peer: number;
  best: number;
  /** The on times of each (local hh:mm), easy plan's then power-saver's: where they differ. */
  oursBlocks: string[];
  peerBlocks: string[];
  /** Whether the port planned the window as power-saver's own test expects (null: the test states no schedule). */
  peerAsItsTest: boolean | null;
  /** The case, the window's instants and its prices a minute (for planning the same window elsewhere: the node). */
  case: LowestPriceCase;
  fromMs: number;
  toMs: number;
  values: number[];
  /** The minutes power-saver has on. */
  peerMinutes: number;
}

interface Minutes {
  starts: string[];
  ms: number[];
  values: number[];
}

/** A price list one price a minute, as power-saver's handle-input.js expands it. */
function perMinute(priceData: PriceData): Minutes {
  const out: Minutes = { starts: [], ms: [], values: [] };
  priceData.forEach((d, i) => {
    const start = DateTime.fromISO(d.start);
    const end = DateTime.fromISO(d.end ?? priceData[i + 1].start);
    for (let ms = start.toMillis(); ms < end.toMillis(); ms += MINUTE) {
      out.starts.push(DateTime.fromMillis(ms, { zone: start.zone }).toISO()!);
      out.ms.push(ms);
      out.values.push(d.value);
    }
  });
  return out;
}

/**
 * The price list as a tariff: one rule a price slot, at its UTC time of day and ISO
 * weekday (a list spans less than a week), planned in UTC.
 */
function slotTariff(priceData: PriceData) {
  const rules = priceData.map((d, k) => {
    const from = new Date(Date.parse(d.start));
    const to = new Date(Date.parse(d.end ?? priceData[k + 1].start));
    return {
      priority: k + 1,
      price: d.value,
      time_start: `${pad(from.getUTCHours())}:${pad(from.getUTCMinutes())}`,
      time_end: `${pad(to.getUTCHours())}:${pad(to.getUTCMinutes())}`,
      weekdays: [from.getUTCDay() === 0 ? 7 : from.getUTCDay()],
    };
  });
  return { id: 'ps', name: 'power-saver fixture', vat: 0, currency: 'NOK', rules };
}

const costOf = (values: number[], on: boolean[]) => on.reduce((sum, v, i) => sum + (v ? values[i] : 0), 0) / 60;
const countOf = (on: boolean[]) => on.filter(Boolean).length;

/** The least cost of `count` minutes among `usable` ones, in any number of blocks: the cheapest minutes. */
function bestSplit(values: number[], usable: (i: number) => boolean, count: number): { count: number; cost: number } {
  const prices = values.filter((_, i) => usable(i)).sort((a, b) => a - b);
  const n = Math.min(count, prices.length);
  return { count: n, cost: prices.slice(0, n).reduce((s, v) => s + v, 0) / 60 };
}

/** Every block of `count` minutes (all of them usable) tried: the least cost, or null when none fits. */
function bestBlock(values: number[], usable: (i: number) => boolean, count: number): number | null {
  let best: number | null = null;
  for (let i = 0; i + count <= values.length; i++) {
    let sum = 0;
    let ok = true;
    for (let j = i; j < i + count; j++) {
      ok = ok && usable(j);
      sum += values[j];
    }
    if (ok && (best === null || sum < best)) best = sum;
  }
  return best === null ? null : best / 60;
}

/** The longest run of usable minutes (the earliest of equals): its length and cost. */
function longestUsable(values: number[], usable: (i: number) => boolean): { count: number; cost: number } {
  let best = { count: 0, cost: 0 };
  for (let i = 0; i < values.length; i++) {
    let j = i;
    while (j < values.length && usable(j)) j++;
    if (j - i > best.count) best = { count: j - i, cost: values.slice(i, j).reduce((s, v) => s + v, 0) / 60 };
  }
  return best;
}

/**
 * The optimum of a window under each planner's own rule. Without a price limit both
 * plan min(minutesOn, window) minutes at least cost. Split with maxPrice: both never use a
 * minute above it. One block with maxPrice: power-saver plans the cheapest block and drops
 * it when its average is above maxPrice; easy plan plans the cheapest block of minutes at
 * or below maxPrice, else the longest stretch of them (docs/semantics.md rules 28, 29).
 */
function optimum(values: number[], c: LowestPriceCase, rule: 'ours' | 'peer'): { count: number; cost: number } {
  const max = c.maxPrice;
  const all = () => true;
  const count = Math.min(c.minutesOn, values.length);
  if (!c.doNotSplit) return bestSplit(values, max === null ? all : (i) => values[i] <= max, count);
  if (max === null) return { count, cost: bestBlock(values, all, count)! };
  if (rule === 'peer') {
    const cost = bestBlock(values, all, count)!;
    return cost / (count / 60) <= max ? { count, cost } : { count: 0, cost: 0 };
  }
  const usable = (i: number) => values[i] <= max;
  const cost = bestBlock(values, usable, count);
  return cost === null ? longestUsable(values, usable) : { count, cost };
}

type PriceData = Array<{ start: string; end?: string; value: number }>;

/**
 * The zone power-saver's node reads a fixture's times in (luxon's default): Europe/Oslo,
 * where its tests run; as the one offset all the list's times have when they have one
 * (no fixture spans a DST change), which reads the same hours and minutes without asking
 * Intl for Oslo's offset 100,000 times (seconds, in a unit test).
 */
function peerZone(priceData: PriceData) {
  const offsets = new Set(priceData.map((d) => DateTime.fromISO(d.start, { zone: PEER_ZONE }).offset));
  return offsets.size === 1 ? FixedOffsetZone.instance([...offsets][0]) : PEER_ZONE;
}

/** One case's windows: the peer's periods, planned by the peer and by cheapestWindows. */
function lowestPriceCase(c: LowestPriceCase): WindowRow[] {
  const data = JSON.parse(fs.readFileSync(path.join(FIXTURES, c.file), 'utf8')) as { priceData: PriceData };
  Settings.defaultZone = peerZone(data.priceData);
  const minutes = perMinute(data.priceData);
  const [fromHour, fromMinute] = c.from.split(':').map(Number);
  const [toHour, toMinute] = c.to.split(':').map(Number);
  const node: PeerConfig = {
    fromHour,
    fromMinute,
    toHour,
    toMinute,
    minutesOn: c.minutesOn,
    doNotSplit: c.doNotSplit,
    maxPrice: c.maxPrice,
    outputOutsidePeriod: false,
    outputIfNoSchedule: false,
  };
  const priceData = minutes.starts.map((start, i) => ({ start, value: minutes.values[i] }));
  const peerOnOff = doPlanning(node, priceData);
  const { startIndexes, endIndexes } = periods(node, priceData);
  const tariff = slotTariff(data.priceData);
  const expected = expectedSchedule(c);
  return startIndexes.map((s, k) => {
    const e = endIndexes[k];
    const values = minutes.values.slice(s, e + 1);
    const peerOn = peerOnOff.slice(s, e + 1).map((v) => v === true);
    const plan = cheapestWindows(tariff, {
      timezone: 'UTC',
      from: minutes.ms[s],
      to: minutes.ms[e] + MINUTE,
      duration: c.minutesOn * MINUTE,
      contiguous: c.doNotSplit,
      ...(c.maxPrice === null ? {} : { maxPrice: c.maxPrice }),
    });
    const oursOn = values.map((_, i) => {
      const at = minutes.ms[s + i];
      return plan.slots.some((slot) => slot.from <= at && at + MINUTE <= slot.to);
    });
    // ours on the minute grid: its run time is whole minutes of the window
    const onGrid = countOf(oursOn) * MINUTE === plan.planned;
    const oursCost = onGrid ? costOf(values, oursOn) : plan.costPerKw.net;
    const peerCost = costOf(values, peerOn);
    const fits = (rule: 'ours' | 'peer', count: number, cost: number) => {
      const best = optimum(values, c, rule);
      return best.count === count && sameCost(best.cost, cost);
    };
    const oursOptimal = fits('ours', plan.planned / MINUTE, oursCost);
    const peerOptimal = fits('peer', countOf(peerOn), peerCost);
    const rulesDiffer = c.doNotSplit && c.maxPrice !== null;
    const same = onGrid && oursOn.every((v, i) => v === peerOn[i]);
    const outcome: WindowOutcome = same
      ? 'same'
      : rulesDiffer
        ? 'semantics'
        : oursOptimal && peerOptimal
          ? 'tie'
          : oursOptimal
            ? 'peer worse'
            : 'ours worse';
    const best = optimum(values, c, 'ours').cost;
    return {
      test: c.test,
      window: `${minutes.starts[s].slice(0, 16)}–${DateTime.fromMillis(minutes.ms[e] + MINUTE)
        .toISO()!
        .slice(11, 16)}`,
      minutes: values.length,
      oursOptimal,
      peerOptimal,
      outcome,
      ours: oursCost,
      peer: peerCost,
      best,
      oursBlocks: onGrid ? blocksOf(oursOn, minutes.ms.slice(s, e + 1)) : ['off the minute grid'],
      peerBlocks: blocksOf(peerOn, minutes.ms.slice(s, e + 1)),
      peerAsItsTest: expected && asItsTest(expected, peerOn, minutes.ms.slice(s, e + 1)),
      case: c,
      fromMs: minutes.ms[s],
      toMs: minutes.ms[e] + MINUTE,
      values,
      peerMinutes: countOf(peerOn),
    };
  });
}

function expectedSchedule(c: LowestPriceCase): Switch[] | null {
  if (c.schedule) return c.schedule;
  if (!c.expected) return null;
  const result = JSON.parse(fs.readFileSync(path.join(FIXTURES, c.expected), 'utf8')) as {
    schedule?: Switch[];
    payload?: { schedule: Switch[] };
  };
  return result.schedule ?? result.payload!.schedule;
}

/**
 * Whether a window's on/off minutes are what a test's schedule says, where it says
 * something (the three-days test's schedule begins at its second price list's midnight).
 */
function asItsTest(schedule: Switch[], on: boolean[], ms: number[]): boolean | null {
  const stated = on.map((_, i) => valueAt(schedule, ms[i]));
  if (stated.every((v) => v === undefined)) return null;
  return on.every((v, i) => stated[i] === undefined || stated[i] === v);
}

/** A schedule's value at an instant: its last switch at or before it. */
function valueAt(schedule: Switch[], at: number): boolean | undefined {
  let value: boolean | undefined;
  for (const entry of schedule) if (Date.parse(entry.time) <= at) value = entry.value;
  return value;
}

/** The on runs of a window's minutes as local times ("04:40–05:30"). */
function blocksOf(on: boolean[], ms: number[]): string[] {
  const clock = (at: number) => DateTime.fromMillis(at).toFormat('HH:mm');
  const out: string[] = [];
  for (let i = 0; i < on.length; i++) {
    if (!on[i]) continue;
    let j = i;
    while (j < on.length && on[j]) j++;
    out.push(`${clock(ms[i])}–${clock(ms[j - 1] + MINUTE)}`);
    i = j;
  }
  return out;
}

export interface LowestPriceSummary {
  windows: number;
  /** Windows whose schedule power-saver's tests state, and those the port plans as they expect. */
  statedByTests: number;
  peerAsItsTests: number;
  oursOptimal: number;
  peerOptimal: number;
  outcomes: Record<WindowOutcome, number>;
  rows: WindowRow[];
}

/** Every Lowest Price window of the fixtures (luxon's default zone set to Oslo's meanwhile, as the peer's tests run). */
export function lowestPriceRerun(): LowestPriceSummary {
  const zone = Settings.defaultZone;
  try {
    const rows = LOWEST_PRICE_CASES.flatMap(lowestPriceCase);
    const outcomes: Record<WindowOutcome, number> = { same: 0, tie: 0, semantics: 0, 'ours worse': 0, 'peer worse': 0 };
    rows.forEach((r) => outcomes[r.outcome]++);
    return {
      windows: rows.length,
      statedByTests: rows.filter((r) => r.peerAsItsTest !== null).length,
      peerAsItsTests: rows.filter((r) => r.peerAsItsTest === true).length,
      oursOptimal: rows.filter((r) => r.oursOptimal).length,
      peerOptimal: rows.filter((r) => r.peerOptimal).length,
      outcomes,
      rows,
    };
  } finally {
    Settings.defaultZone = zone;
  }
}
