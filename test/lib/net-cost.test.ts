// Both directions (semantics rules 47-49): computeNetCost against the slow reference of
// net-reference.ts (the minute walk), on generated import/export histories around clock
// changes and month ends, with generated import and export tariffs, in each netting mode.
import should from 'should';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { computeNetCost, Netting } from '../../nodes/lib/engine/net/net-cost';
import { compareTariffs } from '../../nodes/lib/engine/reports/compare';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { prng } from './engine-fixtures';
import { CASES, genReadings, genTariff, HOUR, MINUTE, RefOptions, Rows, slowNet } from './net-reference';

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
