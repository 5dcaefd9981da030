// The slow reference of both directions (semantics rules 47-48), shared by the net-cost
// tests: generated registers (glitches, resets, gaps, a missing half), generated tariffs,
// and the minute walk that judges each register with rule 10 read literally (slowJudge),
// shares each counted interval's energy minute by minute, puts each minute in its
// settlement interval by the wall clock Intl reads, and prices each piece at its start.
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import type { Netting } from '../../nodes/lib/engine/net/net-cost';
import { slowPrice } from './engine-fixtures';
import { slowJudge } from './glitch-history';
import { intlLocalMs } from './local-period-reference';
import { DEFAULT_MAX_POWER_KW } from '../../nodes/lib/engine/common/limits';

export const MINUTE = 60_000;
export const HOUR = 3_600_000;

/** Zones with an instant of a clock change and one of a local month end near it. */
export const CASES: Array<{ zone: string; at: string[] }> = [
  { zone: 'Europe/Berlin', at: ['2024-03-31T01:00Z', '2024-10-27T01:00Z', '2024-03-31T22:00Z', '2024-10-31T23:00Z'] },
  { zone: 'America/New_York', at: ['2024-03-10T07:00Z', '2024-11-03T06:00Z', '2024-03-01T05:00Z', '2024-12-01T05:00Z'] },
  { zone: 'Australia/Adelaide', at: ['2024-04-06T16:30Z', '2024-10-05T16:30Z', '2024-03-31T13:30Z', '2024-09-30T14:30Z'] },
];

/** The zone's UTC offset at ms, read by Intl once per UTC quarter hour (every change of these zones is on one). */
const offsets = new Map<string, number>();
export function wallClock(zone: string, ms: number): number {
  const block = Math.floor(ms / (15 * MINUTE)) * 15 * MINUTE;
  const key = `${zone} ${block}`;
  let offset = offsets.get(key);
  if (offset === undefined) offsets.set(key, (offset = intlLocalMs(zone, block) - block));
  return ms + offset;
}

export type Rows = Array<[number, number]>;

export function genTariff(rnd: () => number, id: string, prices: number[]): Tariff {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const hhmm = (q: number) => `${String(Math.floor(q / 4)).padStart(2, '0')}:${String((q % 4) * 15).padStart(2, '0')}`;
  const rules: Rule[] = [];
  for (let k = 0, n = 1 + Math.floor(rnd() * 3); k < n; k++) {
    const rule: Rule = { priority: k, price: pick(prices) };
    if (rnd() < 0.8) Object.assign(rule, { time_start: hhmm(Math.floor(rnd() * 96)), time_end: hhmm(Math.floor(rnd() * 96)) });
    if (rnd() < 0.3) rule.weekdays = [1, 2, 3, 4, 5, 6, 7].filter(() => rnd() < 0.6);
    rules.push(rule);
  }
  if (rnd() < 0.8) rules.push({ priority: 9, price: pick(prices) });
  return { id, name: id, vat: pick([0, 19, 20]), currency: 'EUR', rules };
}

/** A register's readings: steps of minutes to hours at a random power, glitches (a 0), resets to a low base, a gap or a missing half. */
export function genReadings(rnd: () => number, start: number, end: number, maxKw: number): Rows {
  const rows: Rows = [];
  let t = start + Math.floor(rnd() * 90) * MINUTE;
  let value = 100 + Math.floor(rnd() * 5000) / 10;
  const missing = rnd();
  if (missing < 0.08) return []; // this register sent nothing
  const cut = missing < 0.2 ? start + (end - start) * rnd() : Infinity; // or nothing after some point
  let quiet = 0;
  while (t <= end && t <= cut) {
    rows.push([t, value]);
    const step = [1, 5, 15, 7, 30, 60, 13][Math.floor(rnd() * 7)] * MINUTE * (rnd() < 0.03 ? 12 : 1);
    const kw = rnd() < 0.3 ? 0 : rnd() * maxKw;
    value = Math.round((value + (kw * step) / HOUR) * 1e6) / 1e6;
    t += step;
    if (quiet > 0) quiet--;
    else if (rnd() < 0.03 && value > 50) {
      rows.push([t, 0]); // a read that answered 0: a glitch
      t += step;
      quiet = 4;
    } else if (rnd() < 0.015) {
      value = Math.round(rnd() * 10) / 10; // a counter reset to a low base
      quiet = 5;
    }
  }
  // four normal readings at the end, so nothing is pending
  for (let k = 0; k < 4 && rows.length > 0; k++) {
    t += 5 * MINUTE;
    value += 0.01;
    rows.push([t, value]);
  }
  return rows;
}

export interface Ref {
  importCost: number;
  exportCredit: number;
  importEnergy: number;
  exportEnergy: number;
}

export interface RefOptions {
  zone: string;
  netting: Netting;
  minutes: number;
  exportVat: boolean;
  floorAtZero: boolean;
}

/** The prices of the reference: per minute the import and export price (null: unpriced), and each side's VAT factor. */
export interface RefPrices {
  importRate: (ms: number) => number | null;
  exportRate: (ms: number) => number | null;
  importFactor: number;
  exportFactor: number;
}

/** The reference of two tariffs: each rule's price by slowPrice, the export's floored at 0 when asked, VAT on export when asked. */
export function slowNet(importTariff: Tariff, exportTariff: Tariff, imp: Rows, exp: Rows, o: RefOptions): Ref {
  return slowNetAt(
    {
      importFactor: 1 + importTariff.vat / 100,
      exportFactor: o.exportVat ? 1 + exportTariff.vat / 100 : 1,
      importRate: (ms: number) => slowPrice(importTariff, ms, o.zone),
      exportRate: (ms: number) => {
        const p = slowPrice(exportTariff, ms, o.zone);
        return p !== null && o.floorAtZero && p < 0 ? 0 : p;
      },
    },
    imp,
    exp,
    o,
  );
}

/** The reference: intervals judged, energy per minute, netted per window or month, priced at each one's start. */
export function slowNetAt(prices: RefPrices, imp: Rows, exp: Rows, o: Pick<RefOptions, 'zone' | 'netting' | 'minutes'>): Ref {
  const { importFactor, exportFactor, importRate, exportRate } = prices;
  const counted = (rows: Rows) => slowJudge(rows, DEFAULT_MAX_POWER_KW).counted;
  const intervalsOf = (rows: Rows) => counted(rows).map(([t0, v0, t1, v1]) => ({ t0, t1, e: v1 - v0 }));
  const ii = intervalsOf(imp);
  const ee = intervalsOf(exp);
  if (o.netting === 'none') {
    const sum = (xs: typeof ii, rate: (ms: number) => number | null, f: number) =>
      xs.reduce((acc, x) => acc + (rate(x.t0) === null ? 0 : x.e * (rate(x.t0) as number) * f), 0);
    return {
      importCost: sum(ii, importRate, importFactor),
      exportCredit: sum(ee, exportRate, exportFactor),
      importEnergy: ii.reduce((a, x) => a + x.e, 0),
      exportEnergy: ee.reduce((a, x) => a + x.e, 0),
    };
  }
  if (o.netting === 'interval') {
    // minute by minute into the window of the wall clock: its start is the minute less the
    // local time past a multiple of the window (the offset is part of the key: a repeated hour is two windows)
    const step = o.minutes * MINUTE;
    const windows = new Map<string, { start: number; i: number; e: number }>();
    const walk = (xs: typeof ii, side: 'i' | 'e') => {
      for (const x of xs) {
        const share = (x.e * MINUTE) / (x.t1 - x.t0);
        for (let m = x.t0; m < x.t1; m += MINUTE) {
          const local = wallClock(o.zone, m);
          const start = m - (((local % step) + step) % step);
          const key = `${start}`;
          let w = windows.get(key);
          if (!w) windows.set(key, (w = { start, i: 0, e: 0 }));
          w[side] += share;
        }
      }
    };
    walk(ii, 'i');
    walk(ee, 'e');
    const ref: Ref = { importCost: 0, exportCredit: 0, importEnergy: 0, exportEnergy: 0 };
    for (const w of windows.values()) {
      const net = w.i - w.e;
      if (net > 0) {
        ref.importEnergy += net;
        const p = importRate(w.start);
        if (p !== null) ref.importCost += net * p * importFactor;
      } else {
        ref.exportEnergy -= net;
        const p = exportRate(w.start);
        if (p !== null) ref.exportCredit -= net * p * exportFactor;
      }
    }
    return ref;
  }
  // period: per local month of each interval's start
  const months = new Map<string, { i: number; e: number; cost: number; credit: number }>();
  const monthOf = (ms: number) => {
    const d = new Date(wallClock(o.zone, ms));
    const key = `${d.getUTCFullYear()}-${d.getUTCMonth()}`;
    let m = months.get(key);
    if (!m) months.set(key, (m = { i: 0, e: 0, cost: 0, credit: 0 }));
    return m;
  };
  for (const x of ii) {
    const m = monthOf(x.t0);
    m.i += x.e;
    const p = importRate(x.t0);
    if (p !== null) m.cost += x.e * p * importFactor;
  }
  for (const x of ee) {
    const m = monthOf(x.t0);
    m.e += x.e;
    const p = exportRate(x.t0);
    if (p !== null) m.credit += x.e * p * exportFactor;
  }
  const ref: Ref = { importCost: 0, exportCredit: 0, importEnergy: 0, exportEnergy: 0 };
  for (const m of months.values()) {
    if (m.i > m.e) {
      ref.importEnergy += m.i - m.e;
      ref.importCost += (m.cost * (m.i - m.e)) / m.i;
    } else if (m.e > m.i) {
      ref.exportEnergy += m.e - m.i;
      ref.exportCredit += (m.credit * (m.e - m.i)) / m.e;
    }
  }
  return ref;
}
