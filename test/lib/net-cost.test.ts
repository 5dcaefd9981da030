// Both directions (semantics rules 47-49): computeNetCost against a slow reference written
// here, on generated import/export histories around clock changes and month ends, with
// generated import and export tariffs, in each netting mode. The reference judges each
// register with rule 10 read literally (slowJudge), shares each counted interval's energy
// minute by minute, puts each minute in its settlement interval by the wall clock Intl
// reads, and prices with the test's own rule evaluation (slowPrice).
import should from 'should';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { computeNetCost, Netting } from '../../nodes/lib/engine/net/net-cost';
import { compareTariffs } from '../../nodes/lib/engine/reports/compare';
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { prng, slowPrice } from './engine-fixtures';
import { slowJudge } from './glitch-history';
import { intlLocalMs } from './local-period-reference';
import { DEFAULT_MAX_POWER_KW } from '../../nodes/lib/engine/common/limits';

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** Zones with an instant of a clock change and one of a local month end near it. */
const CASES: Array<{ zone: string; at: string[] }> = [
  { zone: 'Europe/Berlin', at: ['2024-03-31T01:00Z', '2024-10-27T01:00Z', '2024-03-31T22:00Z', '2024-10-31T23:00Z'] },
  { zone: 'America/New_York', at: ['2024-03-10T07:00Z', '2024-11-03T06:00Z', '2024-03-01T05:00Z', '2024-12-01T05:00Z'] },
  { zone: 'Australia/Adelaide', at: ['2024-04-06T16:30Z', '2024-10-05T16:30Z', '2024-03-31T13:30Z', '2024-09-30T14:30Z'] },
];

/** The zone's UTC offset at ms, read by Intl once per UTC quarter hour (every change of these zones is on one). */
const offsets = new Map<string, number>();
function wallClock(zone: string, ms: number): number {
  const block = Math.floor(ms / (15 * MINUTE)) * 15 * MINUTE;
  const key = `${zone} ${block}`;
  let offset = offsets.get(key);
  if (offset === undefined) offsets.set(key, (offset = intlLocalMs(zone, block) - block));
  return ms + offset;
}

type Rows = Array<[number, number]>;

function genTariff(rnd: () => number, id: string, prices: number[]): Tariff {
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
function genReadings(rnd: () => number, start: number, end: number, maxKw: number): Rows {
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

interface Ref {
  importCost: number;
  exportCredit: number;
  importEnergy: number;
  exportEnergy: number;
}

interface RefOptions {
  zone: string;
  netting: Netting;
  minutes: number;
  exportVat: boolean;
  floorAtZero: boolean;
}

/** The reference: intervals judged, energy per minute, netted per window or month, priced at each one's start. */
function slowNet(importTariff: Tariff, exportTariff: Tariff, imp: Rows, exp: Rows, o: RefOptions): Ref {
  const importFactor = 1 + importTariff.vat / 100;
  const exportFactor = o.exportVat ? 1 + exportTariff.vat / 100 : 1;
  const importRate = (ms: number) => slowPrice(importTariff, ms, o.zone);
  const exportRate = (ms: number) => {
    const p = slowPrice(exportTariff, ms, o.zone);
    return p !== null && o.floorAtZero && p < 0 ? 0 : p;
  };
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

/** Shuffles a copy of some histories: the engine sorts them (rule 9), the reference takes them sorted. */
function shuffled(rnd: () => number, rows: Rows): Rows {
  const copy = rows.slice();
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

describe('computeNetCost: both directions against the minute walk (rules 47-48)', function () {
  this.timeout(120_000);
  const CASES_PER_MODE = 700;
  for (const netting of ['none', 'interval', 'period'] as Netting[]) {
    it(`${netting}: ${CASES_PER_MODE} generated sites, every total to the cent`, () => {
      let exported = 0;
      let netted = 0;
      for (let seed = 1; seed <= CASES_PER_MODE; seed++) {
        const rnd = prng(seed * 7919 + netting.length);
        const place = CASES[seed % CASES.length];
        const center = Date.parse(place.at[Math.floor(rnd() * place.at.length)]);
        const start = Math.floor((center - (2 + rnd() * 18) * HOUR) / MINUTE) * MINUTE;
        const end = start + (6 + rnd() * 30) * HOUR;
        const importTariff = genTariff(rnd, 'imp', [0.1, 0.25, 0.4]);
        const exportTariff = genTariff(rnd, 'exp', [-0.05, 0.03, 0.08, 0.12]);
        exportTariff.currency = importTariff.currency;
        const fixedRate = rnd() < 0.2 ? 0.07 : null;
        const imp = genReadings(rnd, start, end, 8);
        const exp = genReadings(rnd, start, end, 10);
        const o: RefOptions = {
          zone: place.zone,
          netting,
          minutes: rnd() < 0.5 ? 15 : 60,
          exportVat: rnd() < 0.3,
          floorAtZero: rnd() < 0.5,
        };
        const exportRef: Tariff =
          fixedRate === null
            ? exportTariff
            : { id: 'x', name: 'x', vat: importTariff.vat, currency: 'EUR', rules: [{ priority: 0, price: fixedRate }] };
        const ref = slowNet(importTariff, exportRef, imp, exp, o);
        const got = computeNetCost(
          { import: importTariff, export: fixedRate ?? exportTariff },
          { import: rnd() < 0.1 ? shuffled(rnd, imp) : imp, export: exp },
          { timezone: o.zone, netting, intervalMinutes: o.minutes as 15 | 60, exportVat: o.exportVat, floorAtZero: o.floorAtZero },
        );
        const where = `seed ${seed} ${o.zone} ${new Date(start).toISOString()} ${JSON.stringify(o)}`;
        should(Math.abs(got.importCost - ref.importCost)).be.below(0.005, `import cost ${got.importCost} vs ${ref.importCost}: ${where}`);
        should(Math.abs(got.exportCredit - ref.exportCredit)).be.below(
          0.005,
          `export credit ${got.exportCredit} vs ${ref.exportCredit}: ${where}`,
        );
        should(Math.abs(got.net - (ref.importCost - ref.exportCredit))).be.below(0.005, where);
        should(Math.abs(got.importEnergy - ref.importEnergy)).be.below(
          1e-6,
          `import kWh ${got.importEnergy} vs ${ref.importEnergy}: ${where}`,
        );
        should(Math.abs(got.exportEnergy - ref.exportEnergy)).be.below(
          1e-6,
          `export kWh ${got.exportEnergy} vs ${ref.exportEnergy}: ${where}`,
        );
        if (ref.exportEnergy > 0) exported++;
        if (got.import.energy > got.importEnergy + 1e-9) netted++;
      }
      // the cases do what they are for: most export something, and netting takes energy off
      should(exported).be.above(CASES_PER_MODE / 2);
      if (netting !== 'none') should(netted).be.above(CASES_PER_MODE / 3);
    });
  }
});

describe('computeCost with a direction (rule 47)', () => {
  const exportTariff: Tariff = {
    id: 'feed-in',
    name: 'Feed-in',
    vat: 20,
    currency: 'GBP',
    rules: [
      { priority: 1, price: -0.05, time_start: '11:00', time_end: '13:00' },
      { priority: 2, price: 0.15 },
    ],
  };
  const readings: Rows = [
    [Date.parse('2024-06-03T09:00Z'), 10],
    [Date.parse('2024-06-03T10:00Z'), 14], // 4 kWh from 10:00 BST: 0.15
    [Date.parse('2024-06-03T11:00Z'), 20], // 6 kWh from 11:00 BST: -0.05
    [Date.parse('2024-06-03T12:00Z'), 21], // 1 kWh from 12:00 BST: -0.05
  ];
  it('export: the tariff is the export tariff, no VAT by default, the credit positive', () => {
    const r = computeCost(exportTariff, readings, { timezone: 'Europe/London', direction: 'export' });
    should(r.direction).equal('export');
    should(r.vat).equal(0);
    should(r.net).be.approximately(4 * 0.15 - 7 * 0.05, 1e-12);
    should(r.gross).equal(r.net);
  });
  it('export with VAT and the floor: negative prices count 0', () => {
    const r = computeCost(exportTariff, readings, { timezone: 'Europe/London', direction: 'export', exportVat: true, floorAtZero: true });
    should(r.vat).equal(20);
    should(r.net).be.approximately(4 * 0.15, 1e-12);
    should(r.gross).be.approximately(r.net * 1.2, 1e-12);
    should(r.byRule.find((x) => x.price < 0)).match({ energy: 7, net: 0 });
  });
  it('import is the default, its result says so; any other direction is a TypeError naming it', () => {
    should(computeCost(exportTariff, readings, { timezone: 'UTC' }).direction).equal('import');
    should(() => computeCost(exportTariff, readings, { timezone: 'UTC', direction: 'both' as never })).throw(TypeError, {
      message: 'direction must be "import" or "export", got "both"',
    });
    should(() => computeCost(exportTariff, readings, { timezone: 'UTC', exportVat: 'yes' as never })).throw(
      /exportVat must be true or false/,
    );
  });
});

describe('computeNetCost: worked examples and hostile input (rules 48-49)', () => {
  const imp: Tariff = { id: 'i', name: 'Import', vat: 0, currency: 'EUR', rules: [{ priority: 1, price: 0.3 }] };
  const exp: Tariff = { id: 'e', name: 'Export', vat: 0, currency: 'EUR', rules: [{ priority: 1, price: 0.1 }] };
  const at = (hhmm: string) => Date.parse(`2024-06-03T${hhmm}:00Z`);
  // 12:00-12:15 imports 1 kWh and exports 1 kWh; 12:15-12:30 exports 2 kWh
  const readings = {
    import: [
      [at('12:00'), 0],
      [at('12:15'), 1],
      [at('12:30'), 1],
    ],
    export: [
      [at('12:00'), 0],
      [at('12:15'), 1],
      [at('12:30'), 3],
    ],
  };
  it('none: 1 kWh bought at 0.30, 3 sold at 0.10: 0.30 - 0.30 = 0', () => {
    const r = computeNetCost({ import: imp, export: exp }, readings, { timezone: 'UTC' });
    should(r).match({ netting: 'none', importEnergy: 1, exportEnergy: 3 });
    should(r.net).be.approximately(0, 1e-12);
  });
  it('interval: the first quarter nets to 0, the second sells 2: -0.20', () => {
    const r = computeNetCost({ import: imp, export: exp }, readings, { timezone: 'UTC', netting: 'interval' });
    should(r).match({ importEnergy: 0, exportEnergy: 2, intervals: 2, oneSided: 0 });
    should(r.net).be.approximately(-0.2, 1e-12);
  });
  it('period: the month nets 3 - 1 = 2 kWh sold at the month average 0.10: -0.20', () => {
    const r = computeNetCost({ import: imp, export: exp }, readings, { timezone: 'UTC', netting: 'period' });
    should(r.net).be.approximately(-0.2, 1e-12);
    should(r.periods).have.length(1);
    should(r.import).not.have.property('bySensorValue');
  });
  it('one direction missing counts nothing for it; a fixed rate is in the import tariff currency', () => {
    const r = computeNetCost({ import: imp, export: 0.05 }, { import: readings.import }, { timezone: 'UTC', netting: 'interval' });
    should(r.net).be.approximately(0.3, 1e-12);
    should(r.oneSided).equal(2);
  });
  it('hostile: a netting, direction readings or currency that is wrong is a TypeError saying what', () => {
    should(() => computeNetCost({ import: imp, export: exp }, readings, { timezone: 'UTC', netting: 'yearly' as never })).throw(
      /netting must be one of none, interval, period, got "yearly"/,
    );
    should(() => computeNetCost({ import: imp, export: exp }, { import: 5 as never }, { timezone: 'UTC' })).throw(
      /readings.import must be an array/,
    );
    should(() => computeNetCost({ import: imp, export: { ...exp, currency: 'GBP' } }, readings, { timezone: 'UTC' })).throw(
      "the export tariff's currency (GBP) is not the import tariff's (EUR)",
    );
    should(() => computeNetCost({ import: imp, export: NaN }, readings, { timezone: 'UTC' })).throw(
      /fixed export rate must be a finite number/,
    );
    const proto = JSON.parse('{"__proto__": [[0, 1]], "import": [[0, 0], [3600000, 1]]}');
    should(computeNetCost({ import: imp, export: exp }, proto, { timezone: 'UTC' }).importEnergy).equal(1);
  });
  it('compareTariffs ranks offers with their export side by the bill after netting', () => {
    const cheapImport = { ...imp, id: 'cheap', rules: [{ priority: 1, price: 0.25 }] };
    const rows = compareTariffs(
      [
        { import: imp, export: exp },
        { import: cheapImport, export: 0.0 },
        { import: { id: 'broken' }, export: exp },
        { import: imp, export: { ...exp, currency: 'USD' } },
      ],
      readings,
      { timezone: 'UTC' },
    );
    should(rows.map((r) => [r.tariffId, r.exportTariffId])).eql([
      ['i', 'e'],
      ['cheap', 'export'],
    ]);
    should(rows[0].gross).be.approximately(0, 1e-12);
    should(rows[1].gross).be.approximately(0.25, 1e-12);
    should(rows.problems.some((p) => /currency \(USD\)/.test(p.message))).be.true();
    should(rows.problems.some((p) => p.tariffId === 'broken')).be.true();
  });
});
