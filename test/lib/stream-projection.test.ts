// Stream mode's month-end projection and daily charge against the test's own walk over
// the local days (fast-check, fixed seed), in zones whose clocks change at midnight.
import should from 'should';
import fc from 'fast-check';
import { streamExtras, dailyChargeSetting, MIN_PROJECTION_BASIS_MS } from '../../nodes/lib/runtime/cost/stream-projection';
import { localPeriod } from '../../nodes/lib/engine/time/time';
import type { Bucket } from '../../nodes/lib/engine/cost/totals';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { FC } from './engine-fixtures';
import { CostStream } from '../../nodes/lib/runtime/cost/cost-stream';
import { ExportMeters } from '../../nodes/lib/runtime/common/meter-direction';
import { priceList } from '../../nodes/lib/engine/prices/price-list';

const ZONES = [
  'Atlantic/Azores',
  'America/Havana',
  'Asia/Beirut',
  'America/Santiago',
  'Europe/London',
  'Pacific/Chatham',
  'Australia/Lord_Howe',
];
const TARIFF: Tariff = { id: 'T', name: 't', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 0.3 }] };

/** Local days begun from `from`'s day to `at`'s, by walking the days (the test's own). */
function slowDays(zone: string, from: number, at: number): number {
  let n = 0;
  for (let day = localPeriod('day', from, { timezone: zone }); day.from <= at; day = localPeriod('day', day.to, { timezone: zone })) n++;
  return n;
}

const bucket = (from: number, to: number | null, gross: number): Bucket => ({
  from,
  to,
  energy: gross / 0.36,
  net: gross / 1.2,
  gross,
  unpricedEnergy: 0,
  resets: 0,
  intervals: 1,
});

describe('stream projection and daily charge: against a walk over the local days (fast-check, fixed seed)', () => {
  it('charges one per local day begun, projects by the hour over the whole month', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: Date.UTC(2019, 0, 1) / 60_000, max: Date.UTC(2030, 0, 1) / 60_000 }).map((m) => m * 60_000),
        fc.integer({ min: 0, max: 40 * 24 * 60 }).map((m) => m * 60_000),
        fc.double({ min: 0, max: 500, noNaN: true }),
        fc.double({ min: 0, max: 5, noNaN: true }),
        (zone, newest, back, gross, perDay) => {
          const first = newest - back;
          const tz = { timezone: zone };
          const month = localPeriod('month', newest, tz);
          const day = localPeriod('day', newest, tz);
          const week = localPeriod('week', newest, tz);
          const input = {
            day: bucket(day.from, day.to, gross / 30),
            week: bucket(week.from, week.to, gross / 4),
            month: bucket(month.from, month.to, gross),
            total: bucket(first, null, gross * 2),
            newest,
          };
          const { payload } = streamExtras(input, TARIFF, zone, perDay) as { payload: Record<string, any> };
          const c = payload.dailyCharge;
          should(c.today.days).equal(1);
          should(c.week.days).equal(slowDays(zone, week.from, newest));
          should(c.month.days).equal(slowDays(zone, month.from, newest));
          should(c.total.days).equal(slowDays(zone, first, newest));
          should(c.month.gross).be.approximately(perDay * 1.2 * c.month.days, 1e-6);
          should(c.month.withChargeGross).be.approximately(gross + perDay * 1.2 * c.month.days, 1e-6);
          const p = payload.projection;
          const daysInMonth = slowDays(zone, month.from, month.to - 1);
          should(p.days).equal(daysInMonth);
          const basisFrom = Math.max(month.from, first);
          should(p.basisMs).equal(newest - basisFrom);
          if (newest - basisFrom < MIN_PROJECTION_BASIS_MS) should(p.projected).be.null();
          else
            should(p.projected.gross).be.approximately(
              (gross * (month.to - month.from)) / (newest - basisFrom) + perDay * 1.2 * daysInMonth,
              1e-6 * Math.max(1, p.projected.gross),
            );
        },
      ),
      { ...FC, numRuns: 1000 },
    );
  });

  it('a month of 743 hours (London, March 2026): 24 hours at 7.20 project to 222.90', () => {
    const newest = Date.UTC(2026, 2, 2);
    const { payload } = streamExtras(
      {
        day: null,
        week: null,
        month: bucket(Date.UTC(2026, 2, 1), Date.UTC(2026, 2, 31, 23), 7.2),
        total: bucket(Date.UTC(2026, 2, 1), null, 7.2),
        newest,
      },
      TARIFF,
      'Europe/London',
      null,
    ) as { payload: Record<string, any> };
    should(payload.projection.projected.gross).equal(222.9);
    should(payload).not.have.property('dailyCharge');
  });

  it('the setting: empty is none, an amount of 0 or more, anything else a clear error', () => {
    should(dailyChargeSetting('')).be.null();
    should(dailyChargeSetting(undefined)).be.null();
    should(dailyChargeSetting(' 0.5 ')).equal(0.5);
    should(dailyChargeSetting(0)).equal(0);
    for (const bad of ['-1', 'abc', 'Infinity', '1e400'])
      should(() => dailyChargeSetting(bad)).throw(RangeError, { message: /daily charge must be an amount of 0 or more/ });
  });
});

describe('stream projection with export (rules 33, 47-48): import, export credit and the net, for each netting', () => {
  const IMPORT = { id: 'I', name: 'i', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 0.3 }] } as Tariff;
  const FEED = { id: 'X', name: 'x', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 0.1 }] } as Tariff;
  const start = Date.UTC(2026, 5, 1); // June: 720 hours
  const HOUR = 3600_000;

  /** Ten days of hourly readings: 1 kWh bought every hour, 1.5 kWh sold each hour from 06:00 to 18:00. */
  async function tenDays(netting: 'none' | 'interval' | 'period') {
    const key = 'rate:0.1|vat:false|floor:false';
    const stream = new CostStream({
      timezone: 'UTC',
      tariffId: 'I',
      store: { load: async () => undefined, save: async () => undefined },
      warn: (w) => should.fail(w, null),
      exportMeters: new ExportMeters('pv'),
      exportPricing: { exportVat: false, floorAtZero: false, key },
      ledger: { netting, minutes: 60, production: false, key: `${netting}|60|${key}` },
    });
    await stream.restore();
    let sold = 0;
    for (let h = 0; h <= 240; h++) {
      const ts = start + h * HOUR;
      await stream.handle({ topic: 'grid', payload: h, ts }, IMPORT, ts, FEED);
      await stream.handle({ topic: 'pv', payload: sold, ts }, IMPORT, ts, FEED);
      if (h % 24 >= 6 && h % 24 < 18) sold += 1.5;
    }
    await stream.close();
    const extras = streamExtras(stream.site(), { vat: 20, currency: 'GBP' }, 'UTC', 1);
    return (extras.payload as { projection: Record<string, any> }).projection;
  }

  // import: 240 kWh x 0.36 = 86.4 so far, 11 days begun x 1.20 = 13.2: 99.6; the month x3 + 30 charges: 259.2 + 36 = 295.2
  // export: 180 kWh x 0.10 = 18 so far, 54 projected
  it('none: import projected less export projected', async () => {
    const p = await tenDays('none');
    should(p.soFar).match({ energy: 240, gross: 99.6 });
    should(p.projected).match({ energy: 720, gross: 295.2 });
    should(p.export).match({ soFar: { energy: 180, gross: 18 }, projected: { energy: 540, gross: 54 } });
    should(p.net).match({ netting: 'none', soFar: { importCost: 99.6, exportCredit: 18, net: 81.6 }, projected: { net: 241.2 } });
  });

  it('per interval: the netted month per hour so far (12 kWh bought and 6 sold a day after netting)', async () => {
    const p = await tenDays('interval');
    // so far: 120 kWh x 0.36 = 43.2 + 13.2; 60 kWh x 0.10 = 6; projected x3: 129.6 + 36, 18
    should(p.net).match({
      netting: 'interval',
      soFar: { importCost: 56.4, exportCredit: 6, net: 50.4 },
      projected: { importCost: 165.6, exportCredit: 18, net: 147.6 },
    });
  });

  it("per month: each side's month projected, then netted at the larger side's average", async () => {
    const p = await tenDays('period');
    // so far 240 against 180 kWh: 60 x 0.36 = 21.6 + 13.2; projected 720 against 540: 180 x 0.36 = 64.8 + 36
    should(p.net).match({
      netting: 'period',
      soFar: { importCost: 34.8, exportCredit: 0, net: 34.8 },
      projected: { importCost: 100.8, exportCredit: 0, net: 100.8 },
    });
  });
});

describe('stream projection on a price stack: the rest of the month kept per stack gives what a fresh one does', () => {
  it('later readings against a stack seen first: equal to the projection of a new stack object, gaps and the end of the list included', () => {
    const zone = 'Europe/Oslo';
    const month = localPeriod('month', Date.UTC(2026, 9, 10), { timezone: zone }); // October 2026: the clocks go back on the 25th
    const Q = 15 * 60_000;
    const entries: Array<{ start: number; end: number; price: number }> = [];
    for (let t = month.from, k = 0; t < month.from + 20 * 86_400_000; t += Q, k++)
      if (k % 97 !== 5) entries.push({ start: t, end: t + Q, price: Math.round(Math.sin(k) * 1e4) / 1e4 }); // a gap a day
    const fees: Tariff = {
      ...TARIFF,
      rules: [
        { priority: 1, price: 0.2, time_start: '07:00', time_end: '21:00' },
        { priority: 2, price: 0.05 },
      ],
    };
    for (const beyond of ['none', 'fees'] as const) {
      const stack = { list: priceList(entries), fees, addOns: 0.01, vat: 12, currency: 'NOK', beyond };
      const first = month.from + 3 * 3600_000;
      const input = (newest: number) => ({
        day: null,
        week: null,
        month: bucket(month.from, month.to, 30),
        total: bucket(first, null, 60),
        newest,
      });
      streamExtras(input(first + 2 * 3600_000), { vat: 12, currency: 'NOK' }, zone, 1, stack); // kept from here
      for (let newest = first + 2 * 3600_000; newest < month.to; newest += 7 * 3600_000 + 11 * 60_000) {
        const kept = streamExtras(input(newest), { vat: 12, currency: 'NOK' }, zone, 1, stack).payload as Record<string, any>;
        const fresh = streamExtras(input(newest), { vat: 12, currency: 'NOK' }, zone, 1, { ...stack }).payload as Record<string, any>;
        should(kept.projection).eql(fresh.projection);
      }
    }
  });
});
