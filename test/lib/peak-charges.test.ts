// easy-peak's more demand charges without Node-RED (docs/semantics.md, the peak node: "More
// demand charges"): each charge's month kept window by window against the library's
// demandCharges over every window, the setting read as hostile input, the stored months
// read back and tampered.
import should from 'should';
import fc from 'fast-check';
import type { DemandWindow } from '../../nodes/lib/engine/peak/demand';
import { demandWindowOf } from '../../nodes/lib/engine/peak/demand-window';
import { DemandCharge, demandCharges } from '../../nodes/lib/engine/peak/billing';
import { SiteCharges } from '../../nodes/lib/runtime/peak/peak-charges';
import { addToMonths, ChargeMonths } from '../../nodes/lib/runtime/peak-period/peak-month';
import { billCharge, peakSettings } from '../../nodes/lib/runtime/peak/peak-settings';
import type { WindowScope } from '../../nodes/lib/runtime/peak/peak-meter';

const HOUR = 3_600_000;
const ZONE = 'America/Los_Angeles';
const ON_PEAK: DemandCharge = {
  name: 'on-peak',
  when: { time_start: '16:00', time_end: '21:00', weekdays: [1, 2, 3, 4, 5] },
  pricePerKw: 20,
};

/** A node's charges: its own (settings as the dialog's) and `more`, with the months of `config`. */
function charges(config: Record<string, unknown>, more: DemandCharge[]) {
  const settings = peakSettings({ ...config, moreCharges: JSON.stringify(more) });
  const scope: WindowScope = {
    timezone: ZONE,
    minutes: 15,
    top: settings.top,
    distinctDays: settings.distinctDays,
    when: settings.when,
    holidays: settings.bill.holidays,
    readDay: settings.bill.readDay,
    maxPowerKw: 1e4,
    maxGapMs: 5 * 60_000,
  };
  const site = new SiteCharges(billCharge(settings, ZONE), settings.bill.more, { ...scope });
  return { settings, scope, site };
}

describe('easy-peak: more demand charges', () => {
  it('each charge billed window by window, and projected with the window under way, as demandCharges bills every window (generated, across month ends and a clock change)', () => {
    const chargeArb = fc.record({
      top: fc.integer({ min: 1, max: 3 }),
      distinctDays: fc.boolean(),
      onPeak: fc.boolean(),
      basis: fc.constantFrom('period' as const, 'rolling' as const, 'year-max' as const),
      floorKw: fc.constantFrom(0, 2.5),
      pricePerKw: fc.integer({ min: 1, max: 30 }),
    });
    fc.assert(
      fc.property(
        fc.array(chargeArb, { minLength: 1, maxLength: 3 }),
        fc.array(fc.record({ kw: fc.integer({ min: 0, max: 12 }), step: fc.integer({ min: 1, max: 40 }) }), {
          minLength: 1,
          maxLength: 120,
        }),
        fc.record({ kw: fc.integer({ min: 0, max: 14 }), step: fc.integer({ min: 0, max: 40 }) }),
        (more, loads, next) => {
          const list: DemandCharge[] = more.map(({ onPeak, ...c }, i) => ({
            name: `c${i + 2}`,
            ...c,
            ...(onPeak ? { when: ON_PEAK.when } : {}),
          }));
          const { scope, site } = charges({ top: '2', distinctDays: true, pricePerKw: '10', basis: 'rolling', rollingPeriods: '3' }, list);
          const own: ChargeMonths = { month: null, history: [] };
          const windows: DemandWindow[] = [];
          let at = Date.parse('2026-10-20T12:00:00-07:00');
          for (const l of loads) {
            const w = demandWindowOf(at, ZONE, 15);
            const window = { ...w, kw: l.kw, energy: l.kw / 4, complete: true };
            windows.push(window);
            addToMonths(own, window, scope);
            site.add([window]);
            at = w.to + l.step * 15 * 60_000 * 37; // about 9 h a step: months and the November clock change pass
          }
          const last = windows[windows.length - 1];
          const got = site.bill(own, last);
          const ownCharge: DemandCharge = { top: 2, distinctDays: true, basis: 'rolling', rollingPeriods: 3, pricePerKw: 10 };
          const want = demandCharges(windows, { timezone: ZONE, charges: [ownCharge, ...list] });
          const period = want[want.length - 1];
          got.forEach((b, i) => {
            should(b.billedKw).be.approximately(period.charges[i].billedKw, 1e-9);
            should(b.amount).be.approximately(period.charges[i].amount, 1e-6);
          });
          // projected: the window under way (next to the last, or in a later month) at its projection, as if it closed so
          const under = demandWindowOf(last.to + next.step * 15 * 60_000 * 37, ZONE, 15);
          const projected = site.bill(own, under, next.kw);
          const withUnder = demandCharges([...windows, { ...under, kw: next.kw, energy: next.kw / 4, complete: true }], {
            timezone: ZONE,
            charges: [ownCharge, ...list],
          });
          const end = withUnder[withUnder.length - 1];
          projected.forEach((b, i) => {
            should(b.projected!.billedKw).be.approximately(end.charges[i].billedKw, 1e-9);
            should(b.projected!.amount).be.approximately(end.charges[i].amount, 1e-6);
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('refuses wrong settings at deploy, naming the charge (the dialog’s is charge 1)', () => {
    const bad = (moreCharges: unknown) => () => peakSettings({ moreCharges });
    should(peakSettings({ moreCharges: '' }).bill.more).eql([]);
    should(peakSettings({ moreCharges: [ON_PEAK] }).bill.more).eql([ON_PEAK]);
    should(bad('[{ "pricePerKw": 3 ')).throw(/^more demand charges must be JSON, a list such as/);
    should(bad('{ "pricePerKw": 3 }')).throw(/^more demand charges must be a list/);
    should(bad(JSON.stringify(Array.from({ length: 8 }, () => ({ pricePerKw: 1 }))))).throw(
      /^more demand charges: at most 7 \(8 in all with the node's own\), got 8/,
    );
    should(bad('[{ "pricePerKw": 1 }, { "when": { "time_start": "25:00", "time_end": "21:00" }, "pricePerKw": 1 }]')).throw(
      /^more demand charges: charge 3: when\.time_start/,
    );
    should(bad('[{ "pricePerKw": 1, "steps": [{ "amount": 3 }] }]')).throw(/^more demand charges: charge 2: takes one price/);
    should(bad('[{ "top": 11, "pricePerKw": 1 }]')).throw(/^more demand charges: charge 2: top must be at most 10, got 11/);
    should(bad('[{ "pricePerKw": -1 }]')).throw(/^more demand charges: charge 2: pricePerKw must be a number of at least 0/);
    should(bad('["on-peak"]')).throw(/^more demand charges: charge 2: must be an object/);
    should(bad(`[${'1,'.repeat(15_000)}1]`)).throw(/^more demand charges: at most 20000 characters of JSON/);
  });

  it('stored months read back; a tampered charge, or one ranked otherwise, starts from zero and is named', () => {
    const { scope, site } = charges({ pricePerKw: '10' }, [ON_PEAK, { name: 'top 3', top: 3, pricePerKw: 1 }]);
    const own: ChargeMonths = { month: null, history: [] };
    const windows = ['2026-06-30T17:00:00-07:00', '2026-07-15T17:00:00-07:00', '2026-07-16T18:00:00-07:00'].map((iso, i) => {
      const w = demandWindowOf(Date.parse(iso), ZONE, 15);
      return { ...w, kw: 4 + i, energy: (4 + i) / 4, complete: true };
    });
    site.add(windows);
    const now = windows[2].to + HOUR;
    const next = { from: windows[2].to, to: windows[2].to + 15 * 60_000 };
    const stored = site.encode();
    const before = site.bill(own, next);
    const store = { ...scope, maxMeters: 128 };
    const again = charges({ pricePerKw: '10' }, [ON_PEAK, { name: 'top 3', top: 3, pricePerKw: 1 }]).site;
    should(again.restore(stored, store, now)).eql([]);
    should(again.bill(own, next)).eql(before);
    should(before[1]).match({ name: 'on-peak', billedKw: 6 });
    should(before[2].billedKw).equal(5.5); // (5 + 6) / 2: 15 and 16 July; June's 4 kW is the month before
    // tampered: a peak of the on-peak month at -1 kW; the top-3 charge ranked otherwise (top 2 now)
    const lines = JSON.parse(stored.charges!);
    lines[0][2][2] = -1;
    const tampered = charges({ pricePerKw: '10' }, [ON_PEAK, { name: 'top 3', top: 2, pricePerKw: 1 }]).site;
    should(tampered.restore({ charges: JSON.stringify(lines) }, store, now)).eql(['charge 2', 'charge 3']);
    should(tampered.bill(own, next).map((b) => b.billedKw)).eql([0, 0, 0]);
    // not JSON, or not a list: every charge from zero
    should(again.restore({ charges: '[[' }, store, now)).eql(['charge 2', 'charge 3']);
    should(again.restore({ charges: 7 }, store, now)).eql(['charge 2', 'charge 3']);
    // nothing stored (a node that had no more charges): nothing to say
    should(again.restore({}, store, now)).eql([]);
  });
});
