// A stack that falls back to its fees tariff where the list has no price (beyond: 'fees',
// easy-prices' "Beyond the list: the node's tariff alone"): generated lists with gaps and
// mixed resolutions over DST days, stacked with generated time-of-use tariffs, against a
// minute walk written here (Intl for the local time): priceAt, schedule, computeCost and
// cheapestWindows agree with it.
import should from 'should';
import { priceList } from '../../nodes/lib/engine/prices/price-list';
import { priceAt, schedule } from '../../nodes/lib/engine/prices/price-source';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { cheapestWindows } from '../../nodes/lib/engine/plan/plan';

const MIN = 60_000;
const Q = 15 * MIN;

function lcg(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const formats = new Map<string, Intl.DateTimeFormat>();
/** Local minutes of the day of an instant, by Intl (the engine uses zone data: two ways). */
function localMinutes(ms: number, timezone: string): number {
  let format = formats.get(timezone);
  if (!format)
    formats.set(
      timezone,
      (format = new Intl.DateTimeFormat('en-GB', { timeZone: timezone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })),
    );
  const parts = format.formatToParts(new Date(ms));
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  return get('hour') * 60 + get('minute');
}

const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

describe("price stacks with beyond: 'fees' (the tariff alone where the list has no price)", function () {
  this.timeout(60_000);
  const cases: Array<[string, string]> = [
    ['Europe/Oslo', '2026-03-28T20:00:00Z'],
    ['Europe/Brussels', '2026-10-24T20:00:00Z'],
    ['Europe/London', '2026-03-28T20:00:00Z'],
    ['Australia/Sydney', '2026-04-04T10:00:00Z'],
  ];
  for (const [timezone, startIso] of cases) {
    it(`${timezone}: 40 generated stacks against a minute walk`, () => {
      const rnd = lcg(timezone.length * 7919);
      const t0 = Date.parse(startIso);
      for (let c = 0; c < 40; c++) {
        // a list of 15/30/60-minute entries, gaps between some, starting and ending inside the day
        const entries: Array<{ start: number; end: number; price: number }> = [];
        let t = t0 + Math.floor(rnd() * 16) * Q;
        const n = Math.floor(rnd() * 40);
        for (let i = 0; i < n; i++) {
          if (rnd() < 0.15) t += Q * Math.floor(1 + rnd() * 8);
          const len = [Q, 2 * Q, 4 * Q][Math.floor(rnd() * 3)];
          entries.push({ start: t, end: t + len, price: Math.round((rnd() * 2 - 0.5) * 1e3) / 1e3 });
          t += len;
        }
        // fees: a day rule and a night one (and sometimes none at night: no price at all there)
        const dayFrom = 5 * 60 + Math.floor(rnd() * 8) * 30;
        const dayTo = dayFrom + 6 * 60 + Math.floor(rnd() * 12) * 30;
        const fees = {
          id: 'grid',
          name: 'grid',
          vat: 0,
          currency: 'EUR',
          rules: [
            { priority: 1, price: 0.3, time_start: hhmm(dayFrom), time_end: hhmm(Math.min(dayTo, 1439)) },
            ...(rnd() < 0.8 ? [{ priority: 2, price: 0.07 }] : []),
          ],
        };
        const addOns = Math.round(rnd() * 100) / 1000;
        const stack = { list: priceList(entries), fees, addOns, vat: 20, beyond: 'fees' as const };
        const from = t0;
        const to = t0 + 30 * 60 * MIN;
        // the reference, a minute at a time
        const ref = (ms: number): number | null => {
          const lm = localMinutes(ms, timezone);
          const fee = lm >= dayFrom && lm < Math.min(dayTo, 1439) ? 0.3 : fees.rules.length > 1 ? 0.07 : null;
          if (fee === null) return null;
          const e = entries.find((x) => x.start <= ms && ms < x.end);
          return e ? e.price + fee + addOns : fee;
        };
        const sched = schedule(stack, from, to, { timezone });
        const refAt = new Map<number, number | null>();
        let k = 0;
        for (let m = from; m < to; m += MIN) {
          const expected = ref(m);
          refAt.set(m, expected);
          while (sched[k].to <= m) k++;
          const piece = sched[k];
          const got = piece.price;
          if (expected === null) should(got).be.null();
          else should(Math.abs(got! - expected)).be.below(1e-9, `${timezone} case ${c} at ${new Date(m).toISOString()}`);
          if (m % (37 * MIN) === 0) {
            const p = priceAt(stack, m, { timezone });
            should(p === null ? null : Math.round(p.price * 1e9)).equal(expected === null ? null : Math.round(expected * 1e9));
          }
        }
        // a reading every 10 minutes, 1 kWh each, costed (start attribution) against the reference
        const readings: Array<[number, number]> = [];
        for (let m = from, v = 0; m <= to; m += 10 * MIN, v++) readings.push([m, v]);
        const cost = computeCost(stack, readings, { timezone });
        let net = 0;
        let unpriced = 0;
        for (let i = 0; i + 1 < readings.length; i++) {
          const p = refAt.get(readings[i][0])!;
          if (p === null) unpriced += 1;
          else net += p;
        }
        should(Math.abs(cost.net - net)).be.below(1e-6);
        should(Math.round(cost.unpricedEnergy)).equal(unpriced);
        // the cheapest hour in two blocks at most: no cheaper minutes than the reference's cheapest
        const plan = cheapestWindows(stack, { timezone, from, to, duration: 60 * MIN });
        const priced: number[] = [];
        for (const p of refAt.values()) if (p !== null) priced.push(p);
        priced.sort((a, b) => a - b);
        const best = priced.slice(0, 60).reduce((s, p) => s + p, 0) / 60;
        should(Math.abs(plan.costPerKw.net - best)).be.below(1e-9);
      }
    });
  }

  it("without beyond, or beyond: 'none', nothing is priced outside the list; a wrong beyond is a TypeError", () => {
    const list = priceList([{ start: '2026-03-29T00:00:00Z', end: '2026-03-29T01:00:00Z', price: 0.5 }]);
    const fees = { id: 'g', name: 'g', vat: 0, currency: 'EUR', rules: [{ priority: 1, price: 0.1 }] };
    should(priceAt({ list, fees }, '2026-03-29T02:00:00Z', { timezone: 'UTC' })).be.null();
    should(priceAt({ list, fees, beyond: 'none' }, '2026-03-29T02:00:00Z', { timezone: 'UTC' })).be.null();
    should(priceAt({ list, fees, beyond: 'fees', addOns: 0.2 }, '2026-03-29T02:00:00Z', { timezone: 'UTC' })!.price).equal(0.1);
    should(priceAt({ list, fees, beyond: 'fees', addOns: 0.2 }, '2026-03-29T00:30:00Z', { timezone: 'UTC' })!.price).equal(0.8);
    should(() => priceAt({ list, fees, beyond: 'tariff' }, '2026-03-29T02:00:00Z', { timezone: 'UTC' })).throw(TypeError, {
      message: "the stack's beyond must be 'none' or 'fees', got \"tariff\"",
    });
  });
});
