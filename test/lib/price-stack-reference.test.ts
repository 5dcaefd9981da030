// Price stacks against a slow, obviously correct reference (semantics rules 50-54): the
// stacked price of every minute by a minute walk with Intl (price-stack-cases.ts). Thousands
// of generated lists (15/30/60 minutes mixed, gaps, negative prices) around the DST days of
// four zones, stacked with generated fee tariffs.
import should from 'should';
import { prng } from './engine-fixtures';
import { nextPriceChange, priceAt, schedule } from '../../nodes/lib/engine/prices/price-source';
import { cheapestWindows } from '../../nodes/lib/engine/plan/plan';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { clockChanges, close, generate, MIN, referencePrices, stackOf, ZONES } from './price-stack-cases';

const CASES = 2000;

describe('price stacks against a minute walk with Intl (rules 50-54)', function () {
  this.timeout(600_000);
  const changes = new Map(ZONES.map((zone) => [zone, clockChanges(zone)]));
  const cases = Array.from({ length: CASES }, (_, k) => generate(20261129 + k, changes));
  const refs = cases.map(referencePrices);

  it('finds the clock changes it tests on by Intl (two a year in each zone)', () => {
    for (const zone of ZONES) should(changes.get(zone)!.length).equal(6, zone);
    should(cases.filter((c) => c.entries.some((e, k) => k > 0 && e.start > (c.entries[k - 1].end ?? e.start))).length).be.above(100);
    should(cases.filter((c) => c.entries.some((e) => e.price < 0)).length).be.above(1000);
  });

  it(`priceAt and nextPriceChange equal the reference (${CASES} cases)`, () => {
    cases.forEach((c, n) => {
      const stack = stackOf(c);
      const options = { timezone: c.zone, sensors: c.sensors };
      const rnd = prng(n);
      for (let probe = 0; probe < 20; probe++) {
        const i = Math.floor(rnd() * refs[n].length);
        const at = c.from + i * MIN + (probe % 2 === 0 ? 0 : Math.floor(rnd() * MIN));
        const got = priceAt(stack, at, options);
        const want = refs[n][i];
        should(got === null).equal(want === null, `case ${n} at ${new Date(at).toISOString()}`);
        if (want === null) continue;
        should(got!.price).equal(want.price);
        should(got!.parts).containEql({ spot: want.spot, fees: want.fee });
        close(got!.gross, c.vat === 'included' ? want.price : want.price * (1 + (c.vat as number) / 100), 'gross');
        // the next minute whose price differs
        let j = i + 1;
        const same = (x: (typeof refs)[0][0]) => (x === null ? want === null : x.price === want.price);
        while (j < refs[n].length && same(refs[n][j])) j++;
        const next = nextPriceChange(stack, at, { ...options, horizonMs: c.to - at - 1 });
        if (j >= refs[n].length) {
          // the price holds to `to`; after it the list has ended (no price): the change is at `to` or later
          should(next === null || next.at >= c.to).be.true();
        } else should(next && next.at).equal(c.from + j * MIN, `case ${n}: next change after ${new Date(at).toISOString()}`);
      }
    });
  });

  it(`schedule equals the reference minute by minute (${CASES} cases)`, () => {
    cases.forEach((c, n) => {
      const entries = schedule(stackOf(c), c.from - 3600e3, c.to + 3600e3, { timezone: c.zone, sensors: c.sensors });
      should(entries[0].from).equal(c.from - 3600e3);
      should(entries[0].price).be.null();
      should(entries[entries.length - 1].price).be.null();
      should(entries[entries.length - 1].to).equal(c.to + 3600e3);
      let e = 0;
      refs[n].forEach((want, i) => {
        const at = c.from + i * MIN;
        while (entries[e].to <= at) e++;
        const got = entries[e];
        // compared by hand: millions of minutes, an assertion only where one differs
        const same =
          got.from % MIN === 0 &&
          (want === null ? got.price === null : got.price === want.price && got.spot === want.spot && got.fees === want.fee);
        if (!same) throw new Error(`case ${n} at ${new Date(at).toISOString()}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
      });
    });
  });

  it(`computeCost equals the reference, start and prorate (${CASES} cases)`, () => {
    cases.forEach((c, n) => {
      const rnd = prng(n + 7);
      const readings: Array<[number, number]> = [];
      let value = 1000;
      for (
        let at = c.from + Math.floor(rnd() * 30) * MIN;
        at < c.to;
        at += (1 + Math.floor(rnd() * 50)) * MIN + (rnd() < 0.3 ? Math.floor(rnd() * MIN) : 0)
      ) {
        readings.push([at, value]);
        value += Math.round(rnd() * 1000) / 1000;
      }
      if (readings.length < 2) return;
      const priceOf = (at: number) => refs[n][Math.floor((at - c.from) / MIN)];
      for (const attribution of ['start', 'prorate'] as const) {
        const want = { net: 0, spot: 0, fees: 0, addOns: 0, unpriced: 0 };
        const add = (energy: number, p: (typeof refs)[0][0]) => {
          if (p === null) want.unpriced += energy;
          else {
            want.net += energy * p.price;
            want.spot += energy * p.spot;
            want.fees += energy * p.fee;
            want.addOns += energy * c.addOns;
          }
        };
        for (let k = 1; k < readings.length; k++) {
          const [t0, v0] = readings[k - 1];
          const [t1, v1] = readings[k];
          if (attribution === 'start') add(v1 - v0, priceOf(t0));
          else
            for (let a = t0; a < t1;) {
              const b = Math.min(t1, (Math.floor(a / MIN) + 1) * MIN);
              add(((v1 - v0) * (b - a)) / (t1 - t0), priceOf(a));
              a = b;
            }
        }
        const got = computeCost(stackOf(c), readings, { timezone: c.zone, sensors: c.sensors, attribution });
        const scale = Math.max(1, Math.abs(want.spot) + Math.abs(want.fees) + Math.abs(want.addOns) + want.unpriced);
        const near = (a: number, b: number, what: string) =>
          should(Math.abs(a - b)).be.belowOrEqual(1e-9 * scale, `case ${n} ${attribution} ${what}: ${a} vs ${b}`);
        near(got.net, want.net, 'net');
        near(got.unpricedEnergy, want.unpriced, 'unpriced');
        near(got.parts!.spot, want.spot, 'spot');
        near(got.parts!.fees, want.fees, 'fees');
        near(got.parts!.addOns, want.addOns, 'addOns');
        near(got.gross, c.vat === 'included' ? got.net : got.net * (1 + (c.vat as number) / 100), 'gross');
      }
    });
  });

  it(`cheapestWindows costs what the best choice of minutes costs, split and one block (${CASES} cases)`, () => {
    cases.forEach((c, n) => {
      const ref = refs[n];
      const rnd = prng(n + 13);
      const minutes = 1 + Math.floor(rnd() * Math.min(ref.length, 600));
      const priced = ref.filter((p) => p !== null).map((p) => p!.price);
      const split = [...priced].sort((a, b) => a - b).slice(0, minutes);
      const options = { timezone: c.zone, sensors: c.sensors, from: c.from, to: c.to, duration: minutes * MIN };
      const plan = cheapestWindows(stackOf(c), options);
      should(plan.planned).equal(split.length * MIN, `case ${n} split planned`);
      close(
        plan.costPerKw.net,
        split.reduce((s, p) => s + p / 60, 0),
        `case ${n} split cost`,
      );
      // one block: every run of `minutes` priced minutes, the cheapest
      let best: number | null = null;
      for (let i = 0; i + minutes <= ref.length; i++) {
        let cost = 0;
        let ok = true;
        for (let j = i; j < i + minutes && ok; j++) {
          const p = ref[j];
          if (p === null) ok = false;
          else cost += p.price / 60;
        }
        if (ok && (best === null || cost < best - 1e-12)) best = cost;
      }
      const block = cheapestWindows(stackOf(c), { ...options, contiguous: true });
      if (best === null) should(block.planned).be.below(minutes * MIN, `case ${n}`);
      else {
        should(block.planned).equal(minutes * MIN, `case ${n} block planned`);
        close(block.costPerKw.net, best, `case ${n} block cost`);
      }
    });
  });
});
