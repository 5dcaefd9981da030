// easy-peak's reactive energy without Node-RED (docs/semantics.md, rules 57 and 65): what
// PeakStream's output 1 says in site.bill.reactive, checked against a slow reference (each
// register's windows by plain interpolation, the month by Intl's wall clock, the sums by
// brute force over every window closed so far) on generated kWh and kvarh histories across
// clock changes and month ends; then the stored sums read back as hostile data.
import should from 'should';
import fc from 'fast-check';
import { PeakStream } from '../../nodes/lib/runtime/peak/peak-stream';
import { peakSettings } from '../../nodes/lib/runtime/peak/peak-settings';
import { SiteReactive } from '../../nodes/lib/runtime/peak-period/peak-reactive';
import { MINUTE, ZONES, slowDemandWindows, slowWindowOf, wallClock } from './demand-reference';

const FAR = Date.parse('2100-01-01T00:00:00Z');
const opened: PeakStream[] = [];

async function newStream(zone: string, config: Record<string, unknown>) {
  const stream = new PeakStream({
    records: false,
    timezone: zone,
    settings: peakSettings(config),
    store: { load: async () => undefined, save: async () => undefined },
    warn: () => undefined,
    onGuard: () => undefined,
  });
  await stream.restore();
  opened.push(stream);
  return stream;
}

/** The local calendar month of an instant, `YYYY-MM`, by Intl. */
const monthOf = (zone: string, ms: number) => new Date(wallClock(zone, ms)).toISOString().slice(0, 7);

describe('easy-peak reactive energy', () => {
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  it("site.bill.reactive equals brute-force sums over the month's closed windows (generated histories across clock changes and month ends)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(ZONES)),
        fc.nat(3),
        fc.constantFrom(15, 30, 60),
        fc.constantFrom(0.95, 0.9, 1, 0.5),
        fc.integer({ min: -600, max: 120 }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 59 }), fc.double({ min: 0, max: 20, noNaN: true }), fc.nat(30)), {
          minLength: 2,
          maxLength: 50,
        }),
        async (zone, change, minutes, minPowerFactor, startMinutes, steps) => {
          const around = ZONES[zone];
          const t0 = Date.parse(around[change % around.length]) + startMinutes * MINUTE;
          const active: Array<[number, number]> = [[t0, 1000]];
          const reactive: Array<[number, number]> = [[t0, 400]];
          for (const [gapMin, kw, kvar] of steps) {
            const [ts, p] = active[active.length - 1];
            const next = ts + gapMin * MINUTE;
            active.push([next, p + (kw * gapMin) / 60]);
            reactive.push([next, reactive[reactive.length - 1][1] + (kvar * gapMin) / 60]);
          }
          // both counters read at each instant, at most 59 minutes apart: no window closes stale, with one share only (60 minutes)
          const config = {
            minutes: String(minutes),
            minPowerFactor: String(minPowerFactor),
            pricePerKvarh: '0.07',
            staleMinutes: '60',
            maxGapMinutes: '120',
          };
          const stream = await newStream(zone, config);
          const range = { from: slowWindowOf(zone, t0, minutes).from, to: slowWindowOf(zone, active[active.length - 1][0], minutes).from };
          const kwh = slowDemandWindows(active, zone, minutes, range);
          const kvarh = slowDemandWindows(reactive, zone, minutes, range);
          const free = Math.sqrt(1 / minPowerFactor ** 2 - 1);
          for (const [i, [ts, p]] of active.entries()) {
            await stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: p, ts }, FAR);
            const out = await stream.handle({ gateway: 'G', topic: 'e1.kvarh', payload: reactive[i][1], ts }, FAR);
            const got = (out!.payload.site as any).bill.reactive;
            // by brute force: every window both registers have passed, of the month holding the window under way
            const month = monthOf(zone, slowWindowOf(zone, ts, minutes).from);
            const sums = { p: 0, q: 0, s: 0, c: 0, n: 0 };
            kwh.forEach((w, k) => {
              if (w.to > ts || monthOf(zone, w.from) !== month) return;
              const q = kvarh[k].energy;
              sums.p += w.energy;
              sums.q += q;
              sums.s += Math.hypot(w.energy, q);
              sums.c += Math.max(0, q - free * w.energy);
              sums.n += 1;
            });
            should(got.windows).equal(sums.n);
            should(got.activeEnergy).be.approximately(sums.p, 1e-6);
            should(got.reactiveEnergy).be.approximately(sums.q, 1e-6);
            should(got.apparentEnergy).be.approximately(sums.s, 1e-6);
            should(got.chargeableKvarh).be.approximately(sums.c, 1e-6);
            should(got.amount).be.approximately(sums.c * 0.07, 1e-6);
            if (sums.s > 0) should(got.powerFactor).be.approximately(sums.p / sums.s, 1e-6);
            else should(got.powerFactor).be.null();
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it("a fixed history over London's spring change and the end of March: March's sums stop at its last window, April's start from zero", async () => {
    const zone = 'Europe/London';
    const stream = await newStream(zone, { minutes: '60', pricePerKvarh: '1', staleMinutes: '60', maxGapMinutes: '120' });
    // hourly from 30 March 12:00 UTC to 1 April 02:00 UTC (03:00 BST): 8 kW and 2 kvar (under 0.33: nothing
    // chargeable), from the 31st hour 6 kvar (6 - 0.3287 x 8 = 3.37 kvarh chargeable an hour)
    const start = Date.parse('2024-03-30T12:00:00Z');
    const sites: any[] = [];
    for (let h = 0; h <= 38; h++) {
      const ts = start + h * 60 * MINUTE;
      await stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 8 * h, ts }, FAR);
      const out = await stream.handle({ gateway: 'G', topic: 'e1.kvarh', payload: 2 * h + (h > 30 ? 4 * (h - 30) : 0), ts }, FAR);
      sites.push(out!.payload.site);
    }
    const over = 6 - Math.sqrt(1 / 0.95 ** 2 - 1) * 8;
    // March ends at 31 March 23:00 UTC (00:00 BST, summer time from 01:00 UTC that day): its last output, at 22:00 UTC,
    // has the 34 hours closed so far, 4 of them at 6 kvar (the hour 22:00-23:00 closes with April's first reading)
    const march = sites.filter((s) => s.month.toMs === Date.parse('2024-03-31T23:00:00Z')).pop();
    should(march.bill.reactive).match({ windows: 34, activeEnergy: 272, reactiveEnergy: 2 * 34 + 4 * 4 });
    should(march.bill.reactive.chargeableKvarh).be.approximately(4 * over, 1e-9);
    should(march.bill.reactive.amount).be.approximately(4 * over, 1e-9);
    should(sites[35].bill.reactive).match({ windows: 0, activeEnergy: 0, chargeableKvarh: 0, powerFactor: null });
    should(sites[38].bill.reactive).match({ windows: 3, activeEnergy: 24, reactiveEnergy: 18 });
    should(sites[38].bill.reactive.chargeableKvarh).be.approximately(3 * over, 1e-9);
  });

  it('stored sums are read back as hostile data: each wrong one dropped, in words; another power factor, or sums up to no end of a window, start from zero', () => {
    const scope = { timezone: 'Europe/London', minutes: 30 as const };
    const now = Date.parse('2026-01-20T00:00:00Z');
    const from = Date.parse('2026-01-01T00:00:00Z');
    const good = [0.95, from, from + 3_600_000, 2, 3_600_000, 200, 60, 216.619, 27.13];
    const restored = (line: unknown, pf = 0.95) => {
      const r = new SiteReactive({ minPowerFactor: pf, pricePerKvarh: 0.5 }, scope);
      const problem = r.restore({ reactive: typeof line === 'string' ? line : JSON.stringify(line) }, now);
      return { problem, payload: r.payload(from + 7_200_000, true)! };
    };
    should(restored(good)).match({ problem: null, payload: { windows: 2, activeEnergy: 200, chargeableKvarh: 27.13, amount: 13.565 } });
    should(new SiteReactive({ minPowerFactor: 0.95, pricePerKvarh: 0 }, scope).restore({}, now)).be.null(); // nothing stored
    const failed = "stored peaks: the reactive energy's sums from zero (failed their checks)";
    const cases: Array<[string, unknown]> = [
      ['not JSON', '[0.95,'],
      ['too long', ' '.repeat(300 * 1024)],
      ['a field short', good.slice(0, 8)],
      ['not a month start', good.map((x, i) => (i === 1 ? from + 3_600_000 : x))],
      ['counted past the month', good.map((x, i) => (i === 2 ? Date.parse('2026-02-01T01:00:00Z') : x))],
      ['no window', good.map((x, i) => (i === 3 ? 0 : x))],
      ['half a window', good.map((x, i) => (i === 3 ? 1.5 : x))],
      ['counted longer than the time', good.map((x, i) => (i === 4 ? 7_200_000 : x))],
      ['a negative energy', good.map((x, i) => (i === 5 ? -1 : x))],
      ['a string energy', good.map((x, i) => (i === 6 ? '60' : x))],
      ['kVAh below the kWh', good.map((x, i) => (i === 7 ? 150 : x))],
      ['kVAh above kWh + kvarh', good.map((x, i) => (i === 7 ? 261 : x))],
      ['more chargeable than kvarh', good.map((x, i) => (i === 8 ? 61 : x))],
      ['a year ahead', good.map((x, i) => (i === 1 ? Date.parse('2028-01-01T00:00:00Z') : x))],
    ];
    for (const [what, line] of cases) {
      const { problem, payload } = restored(line);
      should(problem).equal(failed, what);
      should(payload).match({ windows: 0, activeEnergy: 0 }, what);
    }
    // sums of 15-minute windows to 00:15: no end of a 30-minute window (counted otherwise), read back with 15-minute windows
    const quarter = [0.95, from, from + 900_000, 1, 900_000, 100, 60, 116.619, 27.13];
    should(restored(quarter).problem).equal(
      "stored peaks: the reactive energy's sums from zero (counted up to 00:15:00, no end of a 30-minute window: counted in windows of another length)",
    );
    should(restored(quarter).payload).match({ windows: 0, activeEnergy: 0 });
    const fifteen = new SiteReactive({ minPowerFactor: 0.95, pricePerKvarh: 0.5 }, { ...scope, minutes: 15 });
    should(fifteen.restore({ reactive: JSON.stringify(quarter) }, now)).be.null();
    should(fifteen.payload(from + 7_200_000, true)).match({ windows: 1, activeEnergy: 100 });
    should(restored(good, 0.9).problem).equal(
      "stored peaks: the reactive energy's sums from zero (counted free down to a power factor of 0.95, now 0.9)",
    );
  });
});
