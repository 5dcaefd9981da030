// The export price as a price source (semantics rule 47): a spot list with its own add-ons
// and the floor ("nothing paid when spot < 0"), taken by computeCost, computeNetCost (each
// netting) and compareTariffs as a tariff is. Against the minute walk of net-reference.ts on
// generated lists (quarter and whole hours, gaps, many negative prices) around clock changes
// and month ends, the import a tariff or a stack over the same list.
import should from 'should';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { computeNetCost, Netting } from '../../nodes/lib/engine/net/net-cost';
import { compareTariffs } from '../../nodes/lib/engine/reports/compare';
import { priceList } from '../../nodes/lib/engine/prices/price-list';
import type { PriceStack } from '../../nodes/lib/engine/prices/price-stack';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { prng, slowPrice } from './engine-fixtures';
import { CASES, genReadings, genTariff, HOUR, MINUTE, RefPrices, slowNetAt } from './net-reference';

interface Entry {
  start: number;
  end: number;
  price: number;
}

/** Entries of 15 or 60 minutes from before `from` to after `to`, a gap now and then, about a third below 0. */
function genList(rnd: () => number, from: number, to: number): Entry[] {
  const entries: Entry[] = [];
  let at = Math.floor((from - 2 * HOUR) / HOUR) * HOUR;
  while (at < to + 2 * HOUR) {
    const length = (rnd() < 0.5 ? 15 : 60) * MINUTE;
    if (rnd() < 0.04) {
      at += length; // a gap: no price there
      continue;
    }
    const price = Math.round((rnd() * 0.3 - 0.1) * 1000) / 1000;
    entries.push({ start: at, end: at + length, price });
    at += length;
  }
  return entries;
}

/** The entry's price at an instant (a plain scan), null outside the list and in its gaps. */
function spotAt(entries: Entry[], ms: number): number | null {
  for (const e of entries) if (e.start <= ms && ms < e.end) return e.price;
  return null;
}

describe('the export price from a spot list against the minute walk (rule 47)', function () {
  this.timeout(60_000);
  const CASES_PER_MODE = 250;
  for (const netting of ['none', 'interval', 'period'] as Netting[]) {
    it(`${netting}: ${CASES_PER_MODE} generated sites, a stack over a list with negative prices, every total to the cent`, () => {
      let floored = 0;
      let credited = 0;
      for (let seed = 1; seed <= CASES_PER_MODE; seed++) {
        const rnd = prng(seed * 104729 + netting.length);
        const place = CASES[seed % CASES.length];
        const center = Date.parse(place.at[Math.floor(rnd() * place.at.length)]);
        const start = Math.floor((center - (2 + rnd() * 18) * HOUR) / MINUTE) * MINUTE;
        const end = start + (6 + rnd() * 30) * HOUR;
        const entries = genList(rnd, start, end);
        const list = priceList(entries);
        const importTariff = genTariff(rnd, 'imp', [0.1, 0.25, 0.4]);
        const addOns = [-0.02, 0, 0.015][Math.floor(rnd() * 3)];
        const vat = [0, 25][Math.floor(rnd() * 2)];
        const floorAtZero = rnd() < 0.6;
        const exportVat = rnd() < 0.3;
        const minutes = rnd() < 0.5 ? 15 : 60;
        const exportStack: PriceStack = { list, addOns, vat, currency: 'EUR', id: 'feed-in spot' };
        // the import a stack too now and then: the same list with the import tariff as fees
        const importStack: PriceStack | null =
          rnd() < 0.3 ? { list, fees: importTariff, addOns: 0.01, vat: importTariff.vat, currency: 'EUR' } : null;
        const imp = genReadings(rnd, start, end, 8);
        const exp = genReadings(rnd, start, end, 10);
        const prices: RefPrices = {
          importFactor: 1 + importTariff.vat / 100,
          exportFactor: exportVat ? 1 + vat / 100 : 1,
          importRate: (ms) => {
            const fee = slowPrice(importTariff, ms, place.zone);
            if (!importStack) return fee;
            const spot = spotAt(entries, ms);
            return spot === null || fee === null ? null : spot + fee + 0.01;
          },
          exportRate: (ms) => {
            const spot = spotAt(entries, ms);
            if (spot === null) return null;
            const price = spot + addOns;
            return floorAtZero && (spot < 0 || price < 0) ? 0 : price;
          },
        };
        const ref = slowNetAt(prices, imp, exp, { zone: place.zone, netting, minutes });
        const got = computeNetCost(
          { import: importStack ?? importTariff, export: exportStack },
          { import: imp, export: exp },
          { timezone: place.zone, netting, intervalMinutes: minutes as 15 | 60, exportVat, floorAtZero },
        );
        const where = `seed ${seed} ${place.zone} ${new Date(start).toISOString()} addOns ${addOns} floor ${floorAtZero} vat ${exportVat}`;
        should(Math.abs(got.importCost - ref.importCost)).be.below(0.005, `import cost ${got.importCost} vs ${ref.importCost}: ${where}`);
        should(Math.abs(got.exportCredit - ref.exportCredit)).be.below(
          0.005,
          `export credit ${got.exportCredit} vs ${ref.exportCredit}: ${where}`,
        );
        should(Math.abs(got.net - (ref.importCost - ref.exportCredit))).be.below(0.005, where);
        should(Math.abs(got.exportEnergy - ref.exportEnergy)).be.below(1e-6, `export kWh: ${where}`);
        should(got.export.vat).equal(exportVat ? vat : 0);
        if (floorAtZero && got.export.energy > 0 && entries.some((e) => e.price < 0)) floored++;
        if (ref.exportCredit !== 0) credited++;
      }
      // the cases do what they are for: the floor meets negative prices, and export earns something
      should(floored).be.above(CASES_PER_MODE / 3);
      should(credited).be.above(CASES_PER_MODE / 2);
    });
  }
});

describe('the export price from a spot list: worked example (rule 47)', () => {
  const at = (hhmm: string) => Date.parse(`2026-06-14T${hhmm}:00Z`);
  // Europe/Amsterdam in summer (UTC+2): quarter hours at noon, one negative, one negative only with the add-ons
  const list = priceList([
    { start: at('10:00'), end: at('10:15'), price: 0.08 },
    { start: at('10:15'), end: at('10:30'), price: -0.04 },
    { start: at('10:30'), end: at('10:45'), price: 0.01 },
    { start: at('10:45'), end: at('11:00'), price: 0.05 },
  ]);
  const feedIn: PriceStack = { list, addOns: -0.02, vat: 21, currency: 'EUR', id: 'feed-in' };
  // 1 kWh sold in each quarter hour
  const sold = [0, 1, 2, 3, 4].map((k, i) => [at('10:00') + k * 15 * MINUTE, 100 + i] as [number, number]);
  const imp: Tariff = { id: 'grid', name: 'Grid', vat: 21, currency: 'EUR', rules: [{ priority: 1, price: 0.3 }] };

  it('without the floor: each quarter at spot + add-ons, 0.06 - 0.06 - 0.01 + 0.03 = 0.02, no VAT on export', () => {
    const r = computeCost(feedIn, sold, { timezone: 'Europe/Amsterdam', direction: 'export' });
    should(r.net).be.approximately(0.02, 1e-12);
    should(r.gross).equal(r.net);
    should(r.vat).equal(0);
    should(r.parts!.spot).be.approximately(0.1, 1e-12);
    should(r.parts!.addOns).be.approximately(-0.08, 1e-12);
  });
  it('with the floor: nothing paid at spot -0.04 nor at 0.01 - 0.02 < 0: 0.06 + 0.03 = 0.09; VAT on export when asked', () => {
    const r = computeCost(feedIn, sold, { timezone: 'Europe/Amsterdam', direction: 'export', floorAtZero: true });
    should(r.net).be.approximately(0.09, 1e-12);
    // a floored quarter counts none of its parts
    should(r.parts!.spot).be.approximately(0.13, 1e-12);
    should(r.parts!.addOns).be.approximately(-0.04, 1e-12);
    should(r.energy).equal(4);
    const taxed = computeCost(feedIn, sold, { timezone: 'Europe/Amsterdam', direction: 'export', floorAtZero: true, exportVat: true });
    should(taxed.gross).be.approximately(0.09 * 1.21, 1e-12);
  });
  it('a spot below 0 with add-ons that lift the price above 0 is floored too: nothing paid when spot < 0', () => {
    const lifted: PriceStack = { ...feedIn, addOns: 0.05 };
    // 0.13 + 0.01 + 0.06 + 0.10 = 0.30 unfloored; floored, the -0.04 quarter (0.01 with add-ons) counts 0
    const r = computeCost(lifted, sold, { timezone: 'Europe/Amsterdam', direction: 'export', floorAtZero: true });
    should(r.net).be.approximately(0.29, 1e-12);
    should(computeCost(lifted, sold, { timezone: 'Europe/Amsterdam', direction: 'export' }).net).be.approximately(0.3, 1e-12);
  });
  it('beyond the list the export is unpriced, never 0: its energy is unpricedEnergy', () => {
    const later = [...sold, [at('11:30'), 106] as [number, number]];
    const r = computeCost(feedIn, later, { timezone: 'Europe/Amsterdam', direction: 'export' });
    should(r.unpricedEnergy).be.approximately(2, 1e-12);
  });
  it('computeNetCost and compareTariffs take it as the export side of an offer', () => {
    const readings = { import: [[at('10:00'), 0] as [number, number], [at('11:00'), 2] as [number, number]], export: sold };
    const r = computeNetCost({ import: imp, export: feedIn }, readings, { timezone: 'Europe/Amsterdam', floorAtZero: true });
    should(r.exportCredit).be.approximately(0.09, 1e-12);
    should(r.net).be.approximately(2 * 0.3 * 1.21 - 0.09, 1e-12);
    const rows = compareTariffs(
      [
        { import: imp, export: feedIn },
        { import: imp, export: 0.05 },
      ],
      readings,
      { timezone: 'Europe/Amsterdam', floorAtZero: true },
    );
    should(rows.map((x) => x.exportTariffId)).eql(['export', 'feed-in']);
    should(rows[1].exportCredit).be.approximately(0.09, 1e-12);
    should(() => computeNetCost({ import: imp, export: { ...feedIn, currency: 'GBP' } }, readings, { timezone: 'Europe/Amsterdam' })).throw(
      "the export tariff's currency (GBP) is not the import tariff's (EUR)",
    );
  });
});
