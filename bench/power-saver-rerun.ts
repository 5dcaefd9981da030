// The re-run of docs/power-saver.md's comparison (npm run compare:power-saver prints it,
// test/lib/power-saver-rerun.test.ts holds the doc to it):
// - Lowest Price: the price lists and settings of power-saver 5.2.2's own Lowest Price
//   tests (test/fixtures/power-saver/), each planned as its node does (one price a minute,
//   periods found from the start times in Europe/Oslo, bench/peer-lowest-price.ts) and by
//   cheapestWindows on a tariff of one rule a price slot, both against a brute force of
//   the window's minutes.
// - Best Save: generated minute prices and settings, planned by power-saver's Best Save
//   (bench/peer-best-save.ts) and by savingOffWindows, both scored by power-saver's own
//   rule against a brute force over every on/off assignment of the minutes.
import * as fs from 'fs';
import * as path from 'path';
import fc from 'fast-check';
import { DateTime, FixedOffsetZone, Settings } from 'luxon';
import { cheapestWindows } from '../nodes/lib/engine/plan/plan';
import { savingOffWindows } from '../nodes/lib/engine/plan/plan-saving';
import { doPlanning, periods, PeerConfig } from './peer-lowest-price';
import { calculate, isOnOffSequencesOk } from './peer-best-save';

const MINUTE = 60_000;
/** Where power-saver's tests run (their fixtures are Norwegian prices with +01:00/+02:00). */
const PEER_ZONE = 'Europe/Oslo';
/** Costs compare to this relative tolerance (sums of the same prices in another order). */
const EPS = 1e-9;

const ROOT = fs.existsSync(path.join(__dirname, '..', 'package.json')) ? path.join(__dirname, '..') : path.join(__dirname, '..', '..');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'power-saver');

export interface LowestPriceCase {
  /** The power-saver test it comes from. */
  test: string;
  file: string;
  from: string;
  to: string;
  minutesOn: number;
  doNotSplit: boolean;
  maxPrice: number | null;
}

/**
 * The Lowest Price tests of power-saver 5.2.2 that plan a fixture's price list, one entry
 * per distinct price list and settings (variants that change only the outputs outside the
 * period or with no schedule plan the same windows; "0 hours on" plans nothing).
 */
export const LOWEST_PRICE_CASES: LowestPriceCase[] = [
  {
    test: 'continuous schedule',
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 240,
    doNotSplit: true,
    maxPrice: null,
  },
  {
    test: 'splitted schedule',
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 360,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: 'negative prices continuous',
    file: 'negative-prices.json',
    from: '00:00',
    to: '00:00',
    minutesOn: 300,
    doNotSplit: true,
    maxPrice: null,
  },
  {
    test: 'negative prices splitted',
    file: 'negative-prices.json',
    from: '00:00',
    to: '00:00',
    minutesOn: 300,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: 'continuous, max price ok',
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 240,
    doNotSplit: true,
    maxPrice: 1.0,
  },
  {
    test: 'continuous, max price too high',
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 240,
    doNotSplit: true,
    maxPrice: 0.23,
  },
  {
    test: 'splitted, max price',
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 360,
    doNotSplit: false,
    maxPrice: 0.51,
  },
  { test: 'all day 00-00', file: 'converted-prices.json', from: '00:00', to: '00:00', minutesOn: 480, doNotSplit: false, maxPrice: null },
  { test: 'all day 10-10', file: 'converted-prices.json', from: '10:00', to: '10:00', minutesOn: 600, doNotSplit: false, maxPrice: null },
  { test: '1 hour on', file: 'converted-prices.json', from: '10:00', to: '20:00', minutesOn: 60, doNotSplit: true, maxPrice: null },
  { test: '24 hours on', file: 'converted-prices.json', from: '10:00', to: '20:00', minutesOn: 1440, doNotSplit: true, maxPrice: null },
  {
    test: 'hours on > period',
    file: 'converted-prices.json',
    from: '17:00',
    to: '22:00',
    minutesOn: 360,
    doNotSplit: true,
    maxPrice: null,
  },
  {
    test: 'period end on hour 0, 12 hours',
    file: 'tibber-data-end-0.json',
    from: '16:00',
    to: '00:00',
    minutesOn: 180,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: 'period end on hour 0, 24 hours',
    file: 'tibber-data-end-0-24h.json',
    from: '16:00',
    to: '00:00',
    minutesOn: 180,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: 'missing end',
    file: 'lowest-price-input-missing-end.json',
    from: '22:00',
    to: '08:00',
    minutesOn: 180,
    doNotSplit: true,
    maxPrice: null,
  },
  {
    test: 'send/replan commands',
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 180,
    doNotSplit: true,
    maxPrice: 2,
  },
  {
    test: 'three days (19-07)',
    file: 'nordpool-3-days-prices.json',
    from: '19:00',
    to: '07:00',
    minutesOn: 60,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: 'bug 184',
    file: 'lowest-price-bug184-input.json',
    from: '20:00',
    to: '05:00',
    minutesOn: 240,
    doNotSplit: false,
    maxPrice: null,
  },
  { test: 'bug 231 a', file: 'bug-231-input.json', from: '00:41', to: '08:41', minutesOn: 50, doNotSplit: false, maxPrice: null },
  { test: 'bug 231 b', file: 'bug-231-input.json', from: '04:30', to: '05:30', minutesOn: 50, doNotSplit: false, maxPrice: null },
  {
    test: 'bug 231 stale context, day 1',
    file: 'bug-231-day1.json',
    from: '20:00',
    to: '05:00',
    minutesOn: 180,
    doNotSplit: true,
    maxPrice: 0.3,
  },
  {
    test: 'bug 231 stale context, day 2',
    file: 'bug-231-day2.json',
    from: '20:00',
    to: '05:00',
    minutesOn: 180,
    doNotSplit: true,
    maxPrice: 0.3,
  },
];

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

const pad = (n: number) => String(n).padStart(2, '0');

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
const sameCost = (a: number, b: number) => Math.abs(a - b) <= EPS * Math.max(1, Math.abs(a), Math.abs(b));

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
    };
  });
}

export interface LowestPriceSummary {
  windows: number;
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
      oursOptimal: rows.filter((r) => r.oursOptimal).length,
      peerOptimal: rows.filter((r) => r.peerOptimal).length,
      outcomes,
      rows,
    };
  } finally {
    Settings.defaultZone = zone;
  }
}

export interface BestSaveCase {
  values: number[];
  maxMinutesOff: number;
  minMinutesOff: number;
  recoveryPercentage: number;
  recoveryMaxMinutes: number | null;
  minSaving: number;
}

/**
 * Generated Best Save settings on 4–12 minutes of prices: multiples of 0.05 from −0.2 to
 * 1 (differences not exact in binary, ties, negative prices), any longest and shortest
 * time off, recoveries of 0–100 % with or without a cap, least savings of 0, 0.05, 0.1;
 * fast-check's sample of a fixed seed: the same cases on every run and machine.
 */
export function bestSaveCases(count: number, seed = 29): BestSaveCase[] {
  const arb = fc
    .record({
      values: fc.array(fc.integer({ min: -4, max: 20 }), { minLength: 4, maxLength: 12 }),
      maxShare: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
      minShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { freq: 1 }),
      recoveryPercentage: fc.constantFrom(0, 0, 20, 50, 100),
      recoveryMaxMinutes: fc.constantFrom(null, null, 1, 2, 3),
      minSaving: fc.constantFrom(0, 0, 0.05, 0.1),
    })
    .map(({ values, maxShare, minShare, ...rest }) => {
      const maxMinutesOff = 1 + Math.floor(maxShare * (values.length - 1));
      return {
        values: values.map((k) => k * 0.05),
        maxMinutesOff,
        minMinutesOff: minShare === null ? 0 : 1 + Math.floor(minShare * maxMinutesOff),
        ...rest,
      };
    });
  return fc.sample(arb, { seed, numRuns: count });
}

/** The maximal off runs of an on/off plan: [first minute, length]. */
function offRuns(onOff: boolean[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let i = 0; i < onOff.length; i++) {
    if (onOff[i]) continue;
    let j = i;
    while (j < onOff.length && !onOff[j]) j++;
    runs.push([i, j - i]);
    i = j;
  }
  return runs;
}

/** What an off run saves as power-saver sums it: Σ (price − price when back on), minute by minute, per kW. */
function runSaving(values: number[], m: number, c: number): number {
  const last = values.length - 1;
  let saving = 0;
  for (let o = 0; o < c; o++) saving += values[m + o] - values[m + c >= last ? last : m + c];
  return saving;
}

/**
 * power-saver's own rule: its sequence check (isOnOffSequencesOk) and, for every off run,
 * the filter its search puts on a sequence (back on by the last minute, more than
 * minSaving a minute in all, more than minSaving at the first minute). The plan's saving
 * (per kW and minute), or null when the rule refuses the plan.
 */
export function peerRuleSaving(k: BestSaveCase, onOff: boolean[]): number | null {
  const { values, minSaving } = k;
  const last = values.length - 1;
  if (!isOnOffSequencesOk(onOff, k.maxMinutesOff, k.minMinutesOff, k.recoveryPercentage, k.recoveryMaxMinutes)) return null;
  let total = 0;
  for (const [m, c] of offRuns(onOff)) {
    const saving = runSaving(values, m, c);
    if (!(saving > minSaving * c && m + c <= last && values[m] > values[m + c] + minSaving)) return null;
    total += saving;
  }
  return total;
}

/**
 * easy plan's rule (docs/semantics.md rule 36) by the minute: every off minute saves more
 * than 0 and at least minSaving (to 12 significant digits), runs of minMinutesOff to
 * maxMinutesOff, then on at least max(1 min, the recovery rounded up, at most its cap),
 * inside the window.
 */
export function oursRuleSaving(k: BestSaveCase, onOff: boolean[]): number | null {
  const { values, minSaving } = k;
  let scale = minSaving;
  for (const v of values) scale = Math.max(scale, Math.abs(v));
  scale *= 1e-12;
  const runs = offRuns(onOff);
  let total = 0;
  for (let r = 0; r < runs.length; r++) {
    const [m, c] = runs[r];
    if (c > k.maxMinutesOff || c < k.minMinutesOff) return null;
    const recovery = Math.min(Math.ceil((c * k.recoveryPercentage) / 100), k.recoveryMaxMinutes ?? Infinity);
    const onUntil = m + c + Math.max(1, recovery);
    if (onUntil > values.length || (r + 1 < runs.length && runs[r + 1][0] < onUntil)) return null;
    for (let o = 0; o < c; o++) {
      const save = values[m + o] - values[m + c];
      if (!(save > scale) || save < minSaving - scale) return null;
    }
    total += runSaving(values, m, c);
  }
  return total;
}

/** The most a rule lets a plan save: every on/off assignment of the minutes tried. */
export function bruteForce(k: BestSaveCase, rule: (k: BestSaveCase, onOff: boolean[]) => number | null): number {
  const n = k.values.length;
  let best = 0;
  for (let bits = 0; bits < 1 << n; bits++) {
    const saving = rule(
      k,
      k.values.map((_, i) => !(bits & (1 << i))),
    );
    if (saving !== null && saving > best) best = saving;
  }
  return best;
}

/** savingOffWindows on a case: a tariff of one rule a minute from Monday 00:00 UTC; the plan minute by minute (null when off the minute grid). */
export function oursBestSave(k: BestSaveCase): boolean[] | null {
  const from = Date.parse('2026-01-05T00:00:00Z');
  const rules = k.values.map((price, i) => ({ priority: i + 1, price, time_start: `00:${pad(i)}`, time_end: `00:${pad(i + 1)}` }));
  const plan = savingOffWindows(
    { id: 'bs', name: 'best save', vat: 0, currency: 'NOK', rules },
    {
      timezone: 'UTC',
      from,
      to: from + k.values.length * MINUTE,
      maxOffInRow: k.maxMinutesOff * MINUTE,
      minOffInRow: k.minMinutesOff * MINUTE,
      minOnBetween: MINUTE,
      minSaving: k.minSaving,
      recoveryPercent: k.recoveryPercentage,
      ...(k.recoveryMaxMinutes === null ? {} : { recoveryMax: k.recoveryMaxMinutes * MINUTE }),
    },
  );
  if (plan.slots.some((s) => (s.from - from) % MINUTE !== 0 || (s.to - from) % MINUTE !== 0)) return null;
  return k.values.map((_, i) => !plan.slots.some((s) => s.from <= from + i * MINUTE && from + (i + 1) * MINUTE <= s.to));
}

export interface BestSaveSummary {
  cases: number;
  /** Plans power-saver's rule accepts, at its brute-force optimum. */
  oursOptimal: number;
  peerOptimal: number;
  /** Plans power-saver's rule refuses (an off run saving exactly minSaving: "more than" there, "at least" here). */
  oursRefused: number;
  peerRefused: number;
  /** Cases where the two rules' optima save the same, and the plans at it there. */
  sameOptimum: number;
  oursOptimalWhereSame: number;
  peerOptimalWhereSame: number;
  /** Plans at easy plan's own rule's brute-force optimum. */
  oursOptimalOwnRule: number;
}

/** The Best Save comparison on `count` generated cases. */
export function bestSaveRerun(count: number, seed = 29): BestSaveSummary {
  const s: BestSaveSummary = {
    cases: count,
    oursOptimal: 0,
    peerOptimal: 0,
    oursRefused: 0,
    peerRefused: 0,
    sameOptimum: 0,
    oursOptimalWhereSame: 0,
    peerOptimalWhereSame: 0,
    oursOptimalOwnRule: 0,
  };
  const optimal = (best: number, got: number | null) => got !== null && sameCost(best, got);
  for (const k of bestSaveCases(count, seed)) {
    const best = bruteForce(k, peerRuleSaving);
    const ownBest = bruteForce(k, oursRuleSaving);
    const ours = oursBestSave(k);
    const peer = calculate(k.values, k.maxMinutesOff, k.minMinutesOff, k.recoveryPercentage, k.recoveryMaxMinutes, k.minSaving);
    const oursSaving = ours === null ? null : peerRuleSaving(k, ours);
    const peerSaving = peerRuleSaving(k, peer);
    const oursOptimal = optimal(best, oursSaving);
    const peerOptimal = optimal(best, peerSaving);
    if (oursOptimal) s.oursOptimal++;
    if (peerOptimal) s.peerOptimal++;
    if (oursSaving === null) s.oursRefused++;
    if (peerSaving === null) s.peerRefused++;
    if (sameCost(best, ownBest)) {
      s.sameOptimum++;
      if (oursOptimal) s.oursOptimalWhereSame++;
      if (peerOptimal) s.peerOptimalWhereSame++;
    }
    if (ours !== null && optimal(ownBest, oursRuleSaving(k, ours))) s.oursOptimalOwnRule++;
  }
  return s;
}
