// What a plan means at its edges: a duration longer than the window, a duration of 0,
// equal costs with a minimum block, the dearest hours, instants to the millisecond.
import should from 'should';
import { cheapestWindows, dearestWindows, PlanResult } from '../../nodes/lib/engine/plan/plan';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);
const shape = (r: PlanResult) => r.slots.map((s) => ({ from: new Date(s.from).toISOString(), to: new Date(s.to).toISOString() }));

// 00:00-02:00 0.1, 02:00-05:00 0.3, 05:00-06:00 0.5, then 0.2 (UTC = London in January)
const night: Tariff = {
  id: 'N',
  name: 'night',
  vat: 10,
  currency: 'EUR',
  rules: [
    { priority: 0, price: 0.1, time_start: '00:00', time_end: '02:00' },
    { priority: 0, price: 0.3, time_start: '02:00', time_end: '05:00' },
    { priority: 0, price: 0.5, time_start: '05:00', time_end: '06:00' },
    { priority: 1, price: 0.2 },
  ],
};
const base = { timezone: 'Europe/London', from: '2026-01-05T00:00:00Z', to: '2026-01-05T06:00:00Z' };

describe('plan semantics', () => {
  it('a duration longer than the window plans the whole window and says so, in every mode', () => {
    for (const extra of [{}, { contiguous: true }, { minBlock: HOUR }]) {
      const plan = cheapestWindows(night, { ...base, ...extra, duration: 8 * HOUR });
      should(shape(plan)).eql([{ from: '2026-01-05T00:00:00.000Z', to: '2026-01-05T06:00:00.000Z' }]);
      should(plan).match({ planned: 6 * HOUR, requested: 8 * HOUR, shortfall: 'only 6 h of 8 h planned: the window is 6 h long' });
    }
    // with a price limit the window's length is named beside the price
    const limited = cheapestWindows(night, { ...base, duration: 8 * HOUR, maxPrice: 0.3 });
    should(limited.shortfall).equal(
      'only 5 h of 8 h planned: the price is above 0.3 or no rule prices in the rest of the window (the window is 6 h long)',
    );
    // a minimum block longer than the window: nothing fits, and the shortfall says why
    should(cheapestWindows(night, { ...base, duration: 8 * HOUR, minBlock: 7 * HOUR })).match({
      planned: 0,
      shortfall: 'nothing of 8 h could be planned: the window (6 h) is shorter than the minimum block (7 h)',
    });
    // an empty window plans nothing, without an error
    should(cheapestWindows(night, { ...base, to: base.from, duration: HOUR })).match({
      slots: [],
      planned: 0,
      shortfall: 'nothing of 1 h could be planned: the window is 0 s long',
    });
  });

  it('a duration of 0 plans nothing and is not short of anything', () => {
    for (const extra of [{}, { contiguous: true }, { minBlock: HOUR }]) {
      const plan = dearestWindows(night, { ...base, ...extra, duration: 0 });
      should(plan).match({ slots: [], pieces: [], planned: 0, requested: 0, shortfall: null, averagePrice: null, comparedToNow: null });
      should(plan.costPerKw).eql({ net: 0, gross: 0 });
    }
  });

  it('equal costs with a minimum block go to the earliest plan, whatever the last bits of the sums', () => {
    // 00:30-01:30 costs 0.1 × 0.5 + 0.2 × 0.5 = 0.15 per kW, as does 04:00-05:00 at 0.15;
    // in binary 0.1/2 + 0.2/2 and 0.15 differ in the last bit
    const tariff: Tariff = {
      id: 'E',
      name: 'equal',
      vat: 0,
      currency: 'EUR',
      rules: [
        { priority: 0, price: 0.1, time_start: '00:30', time_end: '01:00' },
        { priority: 0, price: 0.2, time_start: '01:00', time_end: '01:30' },
        { priority: 0, price: 0.15, time_start: '04:00', time_end: '05:00' },
        { priority: 1, price: 0.9 },
      ],
    };
    should(0.1 * 0.5 + 0.2 * 0.5).not.equal(0.15);
    for (const extra of [{ minBlock: HOUR }, { minBlock: 45 * 60_000 }, { contiguous: true }]) {
      const plan = cheapestWindows(tariff, { ...base, duration: HOUR, ...extra });
      should(shape(plan)).eql([{ from: '2026-01-05T00:30:00.000Z', to: '2026-01-05T01:30:00.000Z' }]);
    }
  });

  it('equal costs over many equal prices: the earliest hour, not one the sums of 0.1 happen to favour', () => {
    const halfHours = Array.from({ length: 12 }, (_, k) => ({
      priority: 0,
      price: 0.1,
      time_start: `${String(Math.floor(k / 2)).padStart(2, '0')}:${k % 2 ? '30' : '00'}`,
      time_end: `${String(Math.floor((k + 1) / 2)).padStart(2, '0')}:${(k + 1) % 2 ? '30' : '00'}`,
    }));
    const tariff: Tariff = { id: 'F', name: 'flat', vat: 0, currency: 'EUR', rules: [...halfHours, { priority: 1, price: 0.9 }] };
    for (const extra of [{}, { minBlock: HOUR }, { contiguous: true }]) {
      const plan = cheapestWindows(tariff, { ...base, timezone: 'UTC', duration: HOUR, ...extra });
      should(shape(plan)).eql([{ from: '2026-01-05T00:00:00.000Z', to: '2026-01-05T01:00:00.000Z' }]);
    }
  });

  it('the dearest hours: the most expensive time, within minPrice, with the saving against running from the start', () => {
    const plan = dearestWindows(night, { ...base, duration: 2 * HOUR });
    // 05:00-06:00 at 0.5, then an hour at 0.3: the one that touches it (one block, rule 31), not 02:00-03:00
    should(shape(plan)).eql([{ from: '2026-01-05T04:00:00.000Z', to: '2026-01-05T06:00:00.000Z' }]);
    should(plan.costPerKw.net).be.approximately(0.8, 1e-12);
    // against 00:00-02:00 at 0.1 (0.2): the plan earns 0.6 more per kW
    should(plan.comparedToNow!.net).be.approximately(0.2, 1e-12);
    should(plan.comparedToNow!.saving).be.approximately(0.6, 1e-12);
    should(plan.comparedToNow!.savingGross).be.approximately(0.66, 1e-12);
    const block = dearestWindows(night, { ...base, duration: 2 * HOUR, contiguous: true });
    should(shape(block)).eql([{ from: '2026-01-05T04:00:00.000Z', to: '2026-01-05T06:00:00.000Z' }]);
    const floor = dearestWindows(night, { ...base, duration: 3 * HOUR, minPrice: 0.4 });
    should(floor).match({
      planned: HOUR,
      shortfall: 'only 1 h of 3 h planned: the price is below 0.4 or no rule prices in the rest of the window',
    });
    should(() => dearestWindows(night, { ...base, duration: HOUR, minPrice: 'high' as unknown as number })).throw(
      'minPrice must be a number, got high',
    );
  });

  it('works to the millisecond from any instant, durations rounded to whole ms', () => {
    const plan = cheapestWindows(night, {
      ...base,
      from: at('2026-01-05T01:59:59.999Z'),
      to: at('2026-01-05T02:00:10.001Z'),
      duration: 2.6,
    });
    should(plan).match({ from: at('2026-01-05T01:59:59.999Z'), to: at('2026-01-05T02:00:10.001Z'), requested: 3, planned: 3 });
    // 1 ms at 0.1 before 02:00, then 2 ms at 0.3
    should(shape(plan)).eql([{ from: '2026-01-05T01:59:59.999Z', to: '2026-01-05T02:00:00.002Z' }]);
    const blocks = cheapestWindows(night, { ...base, from: at('2026-01-05T01:29:59.999Z'), duration: HOUR, minBlock: HOUR });
    should(shape(blocks)).eql([{ from: '2026-01-05T01:29:59.999Z', to: '2026-01-05T02:29:59.999Z' }]);
    // a huge duration is the whole window, not a search
    should(cheapestWindows(night, { ...base, duration: 1e300, minBlock: HOUR }).planned).equal(6 * HOUR);
  });
});
