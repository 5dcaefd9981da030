// The plan tests' obviously-correct references: a window cut into equal cells (whole
// seconds or minutes), each cell priced by the test's own rule evaluation, and every
// decision made cell by cell, so the engine's exact searches on price changes can be
// checked against them.
import moment from 'moment-timezone';
import fc from 'fast-check';
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import type { SensorValues } from '../../nodes/lib/engine/tariff/price';
import { dataRecord, setNested } from '../../nodes/lib/engine/common/id-map';
import { slowPrice } from './engine-fixtures';

export const PLAN_ZONES = ['Europe/London', 'Atlantic/Azores', 'America/Havana', 'Asia/Beirut', 'America/Santiago'];

/** Every offset change 2020-2030 of the zones, as instants. */
export function offsetChanges(zones: string[]): Array<{ zone: string; at: number }> {
  return zones.flatMap((zone) => {
    const z = moment.tz.zone(zone)!;
    const out: Array<{ zone: string; at: number }> = [];
    for (let i = 0; i + 1 < z.untils.length; i++) {
      if (z.untils[i] >= Date.UTC(2020, 0, 1) && z.untils[i] < Date.UTC(2031, 0, 1) && z.offsets[i] !== z.offsets[i + 1])
        out.push({ zone, at: z.untils[i] });
    }
    return out;
  });
}

export const PLAN_CHANGES = offsetChanges(PLAN_ZONES);

/** A run of cells as instants. */
export interface Run {
  from: number;
  to: number;
}

/** A plan case: a window of `cells` cells of `unit` ms (a millisecond, a second or a minute) from `from`, a tariff whose times fall inside it. */
export interface CellCase {
  zone: string;
  unit: number;
  from: number;
  cells: number;
  tariff: Tariff;
  sensors: SensorValues;
}

/**
 * Cases on a DST change half of the time: the window starts at an arbitrary whole unit;
 * (with millisecond cells, the rules' whole seconds fall inside a window of a few ms);
 * rule times are local clock times of instants inside (or near) the window on a coarser
 * step, so that the price changes line up on their own grid but the window's ends do not.
 * Prices are binary fractions (exact sums), negative ones included; a sensor rule whose
 * ids are "__proto__" and "constructor" now and then.
 */
export const cellCaseArb = (maxCells: number, shifts: [number, number] = [-40, 20]) =>
  fc
    .record({
      change: fc.nat({ max: PLAN_CHANGES.length - 1 }),
      onChange: fc.boolean(),
      zone: fc.constantFrom(...PLAN_ZONES),
      instant: fc.integer({ min: Date.UTC(2020, 0, 1) / 60_000, max: Date.UTC(2030, 11, 1) / 60_000 }),
      unit: fc.constantFrom(1, 1000, 1000, 60_000, 60_000),
      shift: fc.integer({ min: shifts[0], max: shifts[1] }),
      cells: fc.integer({ min: 1, max: maxCells }),
      step: fc.constantFrom(1, 2, 3, 4, 5, 6, 10),
      rules: fc.array(
        fc.record({
          priority: fc.integer({ min: 0, max: 3 }),
          price: fc.constantFrom(-0.125, 0.25, 0.5, 0.5, 0.75, 1.5),
          at: fc.option(fc.tuple(fc.integer({ min: -3, max: 12 }), fc.integer({ min: -3, max: 12 })), { nil: undefined }),
          sensor: fc.boolean(),
        }),
        { minLength: 1, maxLength: 4 },
      ),
      fallback: fc.boolean(),
      sensorValue: fc.constantFrom(0, 1, undefined),
    })
    .map((c): CellCase => {
      const unit = c.unit;
      const zone = c.onChange ? PLAN_CHANGES[c.change].zone : c.zone;
      const anchor = c.onChange ? PLAN_CHANGES[c.change].at : c.instant * 60_000;
      const from = anchor + c.shift * unit;
      const clock = (at: number) => moment.tz(at, zone).format('HH:mm:ss');
      const rules: Rule[] = c.rules.map((r) => {
        const rule: Rule = { priority: r.priority, price: r.price };
        // on the step's grid counted from the anchor (a price grid the window's start is off)
        if (r.at)
          Object.assign(rule, { time_start: clock(anchor + r.at[0] * c.step * unit), time_end: clock(anchor + r.at[1] * c.step * unit) });
        if (r.sensor) Object.assign(rule, { gateway_id: '__proto__', sensor_id: 'constructor', sensor_value: 1, sensor_condition: 'eq' });
        return rule;
      });
      if (c.fallback) rules.push({ priority: 9, price: 1 });
      const sensors = dataRecord<Record<string, number>>();
      if (c.sensorValue !== undefined) setNested(sensors, '__proto__', 'constructor', c.sensorValue);
      return {
        zone,
        unit,
        from,
        cells: c.cells,
        tariff: { id: 'P', name: 'plan', vat: 20, currency: 'EUR', rules },
        sensors: sensors as SensorValues,
      };
    });

/** The net price of each cell (its first instant), null where no rule prices. */
export function cellPrices(c: CellCase): Array<number | null> {
  const out: Array<number | null> = [];
  for (let k = 0; k < c.cells; k++) out.push(slowPrice(c.tariff, c.from + k * c.unit, c.zone, c.sensors));
  return out;
}

/** Cells switched on → runs of instants. */
export function runsOf(on: boolean[], from: number, unit: number): Run[] {
  const runs: Run[] = [];
  on.forEach((x, k) => {
    if (!x) return;
    const last = runs[runs.length - 1];
    if (last && last.to === from + k * unit) last.to += unit;
    else runs.push({ from: from + k * unit, to: from + (k + 1) * unit });
  });
  return runs;
}

/**
 * The plan of blocks of at least m cells with the most cells up to `need` and, among those,
 * the least cost; equal costs: the fewest blocks (rule 31), then the one running at the
 * first cell where they differ. By cell: a forward pass finds the
 * reachable counts, a backward pass the least cost to finish (and the fewest blocks that
 * make it; a block counts at the cell it starts, after an off cell or at the first), and a
 * forward walk takes "on" whenever that is still optimal. `cost` of a cell is what the
 * search minimises (the price, or minus it for the dearest hours); null: never on.
 */
export function referenceBlocks(cost: Array<number | null>, need: number, m: number): boolean[] {
  const n = cost.length;
  const states = (m + 1) * (need + 1); // r (0 off, 1..m on for r cells, m: long enough) × count
  const at = (c: number, r: number) => c * (m + 1) + r;
  let reach = new Uint8Array(states);
  reach[at(0, 0)] = 1;
  for (let i = 0; i < n; i++) {
    const next = new Uint8Array(states);
    for (let c = 0; c <= need; c++)
      for (let r = 0; r <= m; r++) {
        if (!reach[at(c, r)]) continue;
        if (r === 0 || r === m) next[at(c, 0)] = 1;
        if (cost[i] !== null && c < need) next[at(c + 1, Math.min(r + 1, m))] = 1;
      }
    reach = next;
  }
  let target = 0;
  for (let c = need; c >= 0; c--)
    if (reach[at(c, 0)] || reach[at(c, m)]) {
      target = c;
      break;
    }
  // V[i][c][r]: least cost from cell i on, having c on so far, in run state r; NB: the
  // fewest blocks started from cell i on among the ways of that cost
  const V: Float64Array[] = [];
  const NB: Float64Array[] = [];
  V[n] = new Float64Array(states).fill(Infinity);
  NB[n] = new Float64Array(states);
  V[n][at(target, 0)] = 0;
  V[n][at(target, m)] = 0;
  const onCost = (i: number, c: number, r: number) =>
    cost[i] !== null && c < target ? cost[i]! + V[i + 1][at(c + 1, Math.min(r + 1, m))] : Infinity;
  const onBlocks = (i: number, c: number, r: number) => (r === 0 ? 1 : 0) + NB[i + 1][at(c + 1, Math.min(r + 1, m))];
  for (let i = n - 1; i >= 0; i--) {
    V[i] = new Float64Array(states).fill(Infinity);
    NB[i] = new Float64Array(states);
    for (let c = 0; c <= target; c++)
      for (let r = 0; r <= m; r++) {
        const off = r === 0 || r === m ? V[i + 1][at(c, 0)] : Infinity;
        const on = onCost(i, c, r);
        const pickOn = on < off - 1e-9 || (on <= off + 1e-9 && on < Infinity && onBlocks(i, c, r) < NB[i + 1][at(c, 0)]);
        V[i][at(c, r)] = pickOn ? on : off;
        NB[i][at(c, r)] = pickOn ? onBlocks(i, c, r) : off < Infinity ? NB[i + 1][at(c, 0)] : 0;
      }
  }
  const on: boolean[] = [];
  let c = 0;
  let r = 0;
  for (let i = 0; i < n; i++) {
    if (onCost(i, c, r) <= V[i][at(c, r)] + 1e-9 && onBlocks(i, c, r) <= NB[i][at(c, r)]) {
      on.push(true);
      c++;
      r = Math.min(r + 1, m);
    } else {
      on.push(false);
      r = 0;
    }
  }
  return on;
}

/**
 * The split plan (no minimum block) cell by cell: the `need` cheapest cells (all usable
 * ones when fewer), which fixes the marginal price M: every cell below it on, none above,
 * and of the cells at M (prices equal as numbers) as many as are left; which of those, by
 * a backward pass for the fewest blocks from each cell on and a forward walk that takes
 * "on" whenever that still makes the fewest: the fewest blocks, then the one running at
 * the first cell where plans differ. `cost`: the price (minus it for the dearest); null: never on.
 */
export function referenceSplit(cost: Array<number | null>, need: number): boolean[] {
  const n = cost.length;
  const usable = cost.map((_, k) => k).filter((k) => cost[k] !== null);
  usable.sort((a, b) => cost[a]! - cost[b]!);
  const count = Math.min(need, usable.length);
  if (count === 0) return cost.map(() => false);
  const marginal = cost[usable[count - 1]]!;
  const left = count - usable.filter((k) => cost[k]! < marginal).length;
  const INF = 1 << 30;
  // fewest[i][2t + s]: the fewest blocks cells i.. make with t cells at M still to take, s: cell i − 1 on
  const fewest: Int32Array[] = [];
  fewest[n] = new Int32Array(2 * (left + 1)).fill(INF);
  fewest[n][0] = fewest[n][1] = 0;
  const onCost = (s: number, next: Int32Array, t: number) => (next[2 * t + 1] >= INF ? INF : next[2 * t + 1] + (s ? 0 : 1));
  for (let i = n - 1; i >= 0; i--) {
    const next = fewest[i + 1];
    const here = (fewest[i] = new Int32Array(2 * (left + 1)));
    const c = cost[i];
    for (let t = 0; t <= left; t++)
      for (let s = 0; s < 2; s++) {
        if (c !== null && c < marginal) here[2 * t + s] = onCost(s, next, t);
        else if (c === marginal && t > 0) here[2 * t + s] = Math.min(onCost(s, next, t - 1), next[2 * t]);
        else here[2 * t + s] = next[2 * t];
      }
  }
  const on: boolean[] = [];
  let t = left;
  let s = 0;
  for (let i = 0; i < n; i++) {
    const c = cost[i];
    const take = (c !== null && c < marginal) || (c === marginal && t > 0 && onCost(s, fewest[i + 1], t - 1) === fewest[i][2 * t + s]);
    on.push(take);
    if (take && c === marginal) t--;
    s = take ? 1 : 0;
  }
  return on;
}

export interface SavingRules {
  maxOff: number;
  /** Shortest time off in a row (0: none). */
  minOff?: number;
  minOn: number;
  minSaving: number;
  /** 'average': minSaving holds the run's average and its first cell, its last cell saves something (rule 36). */
  minSavingOf?: 'instant' | 'average';
  percent: number;
  recoveryMax: number;
  /** The rules before issue 29 (to count the cases they decide otherwise): the last recovery may run past the window's end… */
  recoveryPastEnd?: boolean;
  /** …and equal savings go to the earliest plan, however many off periods it has. */
  earliestOfEquals?: boolean;
}

/**
 * Every way to switch cells off (2^n of them), the ones the rules allow, the one saving
 * most; equal savings: the fewest off periods, then the one off at the first cell where
 * they differ. A run of off cells [a, b) must end inside the window (cell b priced: the
 * load comes back on at its price), last at least minOff and at most maxOff, every cell
 * in it cost more than cell b by at least minSaving (and more) — or, averaged, its cells'
 * savings, and its first cell, by at least minSaving (and more), its last more; after it the load stays
 * on at least max(minOn, min(off × percent rounded up to whole minutes, recoveryMax)),
 * all of that inside the window.
 */
export function referenceSaving(prices: Array<number | null>, unit: number, rules: SavingRules): boolean[] {
  const n = prices.length;
  const gapAfter = (off: number) =>
    Math.max(rules.minOn, Math.min(Math.ceil((off * rules.percent) / 100 / 60_000) * 60_000, rules.recoveryMax));
  let best: { saving: number; periods: number; mask: number } | null = null;
  for (let mask = 0; mask < 1 << n; mask++) {
    const off = (k: number) => ((mask >> (n - 1 - k)) & 1) === 1; // cell 0 is the highest bit
    let saving = 0;
    let periods = 0;
    let ok = true;
    let lastEnd = -1;
    let lastLength = 0;
    for (let a = 0; a < n && ok; a++) {
      if (!off(a) || (a > 0 && off(a - 1))) continue;
      let b = a;
      while (b < n && off(b)) b++;
      periods++;
      const resume = b < n ? prices[b] : null;
      if (resume === null || (b - a) * unit > rules.maxOff || (b - a) * unit < (rules.minOff ?? 0)) ok = false;
      if (!rules.recoveryPastEnd && b * unit + gapAfter((b - a) * unit) > n * unit) ok = false;
      let runSaving = 0;
      for (let k = a; k < b && ok; k++) {
        const p = prices[k];
        if (p === null) ok = false;
        else if (rules.minSavingOf !== 'average' && !(p - resume! >= rules.minSaving && p > resume!)) ok = false;
        else runSaving += p - resume!;
      }
      if (ok && rules.minSavingOf === 'average') {
        // the sum of the cells' savings against minSaving × cells: exact for the tests' binary prices
        const first = prices[a]! - resume!;
        const last = prices[b - 1]! - resume!;
        if (!(first >= rules.minSaving && first > 0 && last > 0 && runSaving >= rules.minSaving * (b - a) && runSaving > 0)) ok = false;
      }
      saving += runSaving * unit;
      if (ok && lastEnd >= 0 && (a - lastEnd) * unit < gapAfter(lastLength * unit)) ok = false;
      lastEnd = b;
      lastLength = b - a;
    }
    if (!ok) continue;
    const better =
      !best ||
      saving > best.saving + 1e-9 ||
      (saving >= best.saving - 1e-9 &&
        (rules.earliestOfEquals ? mask > best.mask : periods < best.periods || (periods === best.periods && mask > best.mask)));
    if (better) best = { saving, periods, mask };
  }
  return Array.from({ length: n }, (_, k) => ((best!.mask >> (n - 1 - k)) & 1) === 1);
}
