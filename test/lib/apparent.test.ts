// kVA and reactive energy (docs/semantics.md, rules 56-57): examples worked by hand from the
// UK's excess reactive power charge (the Common Distribution Charging Methodology, DCUSA
// Schedule 16: reactive energy above √(1/0.95² − 1) ≈ 0.33 of the active energy in each
// half hour is charged per kvarh; a supplier's summary: "'allowed' reactive power = 0.33 x
// total kWh", https://www.powercapacitors.co.uk/about-us/reactive-power-charges/), then
// apparentDemandWindows and reactiveCharges against a slow reference (each register's windows
// by the slow demandWindows, the local month by Intl) on generated histories across clock
// changes, with resets and gaps; hostile input.
import should from 'should';
import fc from 'fast-check';
import { apparentDemandWindows, reactiveCharges, reactivePerActive } from '../../nodes/lib/engine/peak/apparent';
import { monthlyPeaks } from '../../nodes/lib/engine/peak/monthly-peaks';
import { FC } from './engine-fixtures';
import { MINUTE, ZONES, slowDemandWindows, wallClock } from './demand-reference';

const Z = (iso: string): number => Date.parse(iso);
const HALF = 30 * MINUTE;

/** Readings every 10 minutes of a counter rising at `per10(k)` a step from `at`. */
function counter(at: number, steps: number, per10: (k: number) => number, start = 1000): Array<[number, number]> {
  const rows: Array<[number, number]> = [[at, start]];
  for (let k = 0; k < steps; k++) rows.push([at + (k + 1) * 10 * MINUTE, rows[rows.length - 1][1] + per10(k)]);
  return rows;
}

describe('kVA and reactive energy', () => {
  describe('worked by hand', () => {
    it('one half hour of 100 kWh and 60 kvarh: 116.62 kVAh, 233.24 kVA, power factor 0.857; 27.13 kvarh beyond the free 0.33', () => {
      const at = Z('2024-01-15T09:00Z'); // London is on UTC in January
      const active = counter(at, 3, () => 100 / 3);
      const reactive = counter(at, 3, () => 20, 500);
      const [w] = apparentDemandWindows({ active, reactive }, { timezone: 'Europe/London', minutes: 30 });
      should(w.from).equal(at);
      should(w.activeEnergy).be.approximately(100, 1e-9);
      should(w.reactiveEnergy).be.approximately(60, 1e-9);
      should(w.energy).be.approximately(Math.sqrt(100 ** 2 + 60 ** 2), 1e-9); // 116.619
      should(w.kw).be.approximately(2 * 116.6190379, 1e-6); // kVA: kVAh over half an hour
      should(w.powerFactor).be.approximately(0.857493, 1e-6);
      should(w.complete).be.true();
      // free: √(1/0.95² − 1) = 0.328684 kvarh per kWh, 32.87 of the 60; at 0.5 p per kvarh
      should(reactivePerActive(0.95)).be.approximately(0.328684, 1e-6);
      const [month] = reactiveCharges([w], { timezone: 'Europe/London', pricePerKvarh: 0.005 });
      should(month.chargeableKvarh).be.approximately(60 - 32.8684, 1e-4);
      should(month.amount).be.approximately((60 - 32.8684) * 0.005, 1e-6);
      should(month.powerFactor).be.approximately(0.857493, 1e-6);
      // with the rounded 33 % some statements quote
      should(reactiveCharges([w], { timezone: 'Europe/London', freeRatio: 0.33 })[0].chargeableKvarh).be.approximately(27, 1e-9);
    });

    it('counted per half hour, not per month: a good half hour does not pay for a poor one', () => {
      const at = Z('2024-01-15T09:00Z');
      // 09:00-09:30: 100 kWh, 0 kvarh (pf 1); 09:30-10:00: 100 kWh, 60 kvarh
      const active = counter(at, 6, () => 100 / 3);
      const reactive = counter(at, 6, (k) => (k < 3 ? 0 : 20), 500);
      const windows = apparentDemandWindows({ active, reactive }, { timezone: 'Europe/London', minutes: 30 });
      should(windows.map((w) => w.powerFactor)).match([1, (pf: number) => Math.abs(pf - 0.857493) < 1e-6]);
      const [month] = reactiveCharges(windows, { timezone: 'Europe/London' });
      // 60 kvarh against 200 kWh is under 0.33 for the month, yet the second half hour exceeds its own
      should(month.chargeableKvarh).be.approximately(60 - 32.8684, 1e-4);
      should(month.activeEnergy).be.approximately(200, 1e-9);
      should(month.reactiveEnergy).be.approximately(60, 1e-9);
      // the period's average power factor is its kWh over its kVAh: 200 / (100 + 116.619)
      should(month.powerFactor).be.approximately(200 / (100 + Math.hypot(100, 60)), 1e-9);
    });

    it('kWh and a power factor: kVAh = kWh / pf, kvarh what the pf implies; the kVA peak ranks as any window', () => {
      const at = Z('2024-01-15T09:00Z');
      const active = counter(at, 6, (k) => (k < 3 ? 10 : 30));
      const windows = apparentDemandWindows({ active, powerFactor: 0.8 }, { timezone: 'Europe/London', minutes: 30 });
      should(windows.map((w) => +w.energy.toFixed(9))).eql([37.5, 112.5]);
      should(windows.map((w) => +w.reactiveEnergy.toFixed(9))).eql([22.5, 67.5]);
      should(windows.map((w) => w.kw)).eql([75, 225]);
      const [month] = monthlyPeaks(windows, { timezone: 'Europe/London' });
      should(month.value).equal(225); // kVA
    });

    it('a window only one register reaches is not complete; a gap in either is the window’s', () => {
      const at = Z('2024-01-15T09:00Z');
      const active = counter(at, 6, () => 10);
      const reactive: Array<[number, number]> = [
        [at, 0],
        [at + 60 * MINUTE, 12], // one interval over the hour: a gap at maxGapMinutes 20
      ];
      const windows = apparentDemandWindows({ active, reactive }, { timezone: 'UTC', minutes: 30, maxGapMinutes: 20 });
      should(windows.map((w) => [w.complete, w.gap])).eql([
        [false, { from: at, to: at + 60 * MINUTE }],
        [false, { from: at, to: at + 60 * MINUTE }],
      ]);
      const partly = apparentDemandWindows(
        { active, reactive: reactive.slice(0, 1).concat([[at + HALF, 6]]) },
        { timezone: 'UTC', minutes: 30 },
      );
      should(partly.map((w) => [w.complete, w.reactiveEnergy])).eql([
        [true, 6],
        [false, 0],
      ]);
    });
  });

  it('against a slow reference on generated histories: windows, kVA, power factor, per-month chargeable kvarh and power factor', () => {
    const zones = Object.keys(ZONES);
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.nat(3),
        fc.constantFrom(15 as const, 30 as const, 60 as const),
        fc.array(
          fc.tuple(
            fc.integer({ min: 1, max: 45 }),
            fc.double({ min: 0, max: 50, noNaN: true }),
            fc.double({ min: 0, max: 40, noNaN: true }),
          ),
          {
            minLength: 1,
            maxLength: 40,
          },
        ),
        fc.option(fc.constantFrom(0.2, 0.33), { nil: undefined }),
        fc.boolean(),
        (zone, change, minutes, steps, freeRatio, reset) => {
          const around = ZONES[zone];
          const t0 = Date.parse(around[change % around.length]) - 5 * 60 * MINUTE;
          const active: Array<[number, number]> = [[t0, 100]];
          const reactive: Array<[number, number]> = [[t0, 50]];
          steps.forEach(([gap, kwh, kvarh], k) => {
            const ts = active[active.length - 1][0] + gap * MINUTE;
            active.push([ts, active[active.length - 1][1] + kwh]);
            // a counter reset of the kvarh register halfway, when asked
            reactive.push([ts, reset && k === Math.floor(steps.length / 2) ? 0.5 : reactive[reactive.length - 1][1] + kvarh]);
          });
          const got = apparentDemandWindows({ active, reactive }, { timezone: zone, minutes, maxGapMinutes: 30 });
          const a = slowDemandWindows(active, zone, minutes, { maxGapMinutes: 30 });
          const q = slowDemandWindows(reactive, zone, minutes, { maxGapMinutes: 30 });
          should(got.map((w) => w.from)).eql(a.map((w) => w.from));
          got.forEach((w, k) => {
            const kvah = Math.sqrt(a[k].energy ** 2 + q[k].energy ** 2);
            should(w.energy).be.approximately(kvah, 1e-6);
            should(w.kw).be.approximately(kvah / ((w.to - w.from) / 3_600_000), 1e-5);
            should(w.complete).equal(a[k].complete && q[k].complete);
            if (kvah > 1e-9) should(w.powerFactor!).be.approximately(a[k].energy / kvah, 1e-6);
          });
          // per local month by Intl: the sums and the chargeable kvarh window by window
          const free = freeRatio ?? Math.sqrt(1 / 0.95 ** 2 - 1);
          const months = new Map<string, { kwh: number; kvah: number; chargeable: number }>();
          a.forEach((w, k) => {
            const month = new Date(wallClock(zone, w.from)).toISOString().slice(0, 7);
            const m = months.get(month) ?? { kwh: 0, kvah: 0, chargeable: 0 };
            m.kwh += w.energy;
            m.kvah += Math.sqrt(w.energy ** 2 + q[k].energy ** 2);
            m.chargeable += Math.max(0, q[k].energy - free * w.energy);
            months.set(month, m);
          });
          const charged = reactiveCharges(got, { timezone: zone, pricePerKvarh: 0.01, ...(freeRatio !== undefined ? { freeRatio } : {}) });
          should(charged.map((p) => new Date(wallClock(zone, p.from)).toISOString().slice(0, 7))).eql([...months.keys()]);
          charged.forEach((p, i) => {
            const m = [...months.values()][i];
            should(p.chargeableKvarh).be.approximately(m.chargeable, 1e-6);
            should(p.amount).be.approximately(m.chargeable * 0.01, 1e-8);
            if (m.kvah > 1e-9) should(p.powerFactor!).be.approximately(m.kwh / m.kvah, 1e-9);
            else should(p.powerFactor === null || (p.powerFactor >= 0 && p.powerFactor <= 1)).be.true(); // rounding dust
          });
        },
      ),
      { ...FC, numRuns: 1000 },
    );
  });

  it('hostile input gets a clear error', () => {
    const o = { timezone: 'UTC', minutes: 30 as const };
    should(() => apparentDemandWindows(null as never, o)).throw(TypeError, { message: /registers must be/ });
    should(() => apparentDemandWindows({ active: [] } as never, o)).throw(TypeError, {
      message: /either reactive .* or powerFactor, not both/,
    });
    should(() => apparentDemandWindows({ active: [], reactive: [], powerFactor: 0.9 } as never, o)).throw(TypeError, {
      message: /not both/,
    });
    for (const pf of [0, 1.2, NaN, '0.9'])
      should(() => apparentDemandWindows({ active: [], powerFactor: pf as never }, o)).throw(TypeError, {
        message: /registers\.powerFactor must be a power factor above 0 and at most 1/,
      });
    should(() => apparentDemandWindows({ active: [], reactive: 'x' as never }, o)).throw(TypeError, { message: /registers\.reactive/ });
    should(() => reactiveCharges('x' as never, { timezone: 'UTC' })).throw(TypeError, { message: /windows must be an array/ });
    should(() => reactiveCharges([{ from: 0, activeEnergy: -1, reactiveEnergy: 0 } as never], { timezone: 'UTC' })).throw(TypeError, {
      message: /windows\[0\]/,
    });
    should(() => reactiveCharges([], { timezone: 'UTC', freeRatio: -0.1 })).throw(TypeError, { message: /options\.freeRatio/ });
    should(() => reactiveCharges([], { timezone: 'UTC', freeRatio: 0.3, minPowerFactor: 0.9 })).throw(TypeError, { message: /not both/ });
    should(() => reactiveCharges([], { timezone: 'UTC', pricePerKvarh: Infinity })).throw(TypeError, { message: /options\.pricePerKvarh/ });
    should(() => reactiveCharges([], {} as never)).throw(TypeError, { message: /timezone is required/ });
  });
});
