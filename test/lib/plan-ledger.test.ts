// easy-plan's ledger of promises against what each request was owed: re-planned at
// random instants (whole minutes and arbitrary milliseconds), with prices that change
// between re-plans, one-offs and boosts, the past never changes, a running block is
// never cut below the minimum, the configured plan runs exactly its run time (never
// twice after a one-off) and a one-off exactly what it asked for from when it was asked.
import should from 'should';
import fc from 'fast-check';
import { Ledger, LedgerPiece, replanLedger, timeIn } from '../../nodes/lib/runtime/plan/plan-ledger';
import { enginePlanner } from '../../nodes/lib/runtime/plan/plan-planner';
import { planSettings } from '../../nodes/lib/runtime/plan/plan-settings';

const H = 3_600_000;
const M = 60_000;
const DAY0 = Date.parse('2026-03-02T00:00:00Z'); // a Monday
const at = (hhmm: string, day = 0) => DAY0 + day * 24 * H + Number(hhmm.slice(0, 2)) * H + Number(hhmm.slice(3)) * M;

/** A UTC tariff with one price per hour of the day. */
function hourly(prices: number[]) {
  const two = (n: number) => String(n).padStart(2, '0');
  return {
    id: 'H',
    name: 'hourly',
    vat: 0,
    currency: 'EUR',
    rules: prices.map((price, h) => ({
      priority: 1,
      price,
      time_start: `${two(h)}:00`,
      time_end: h === 23 ? '24:00' : `${two(h + 1)}:00`,
    })),
  };
}

const night = { mode: 'daily', from: '22:00', until: '07:00', maxPrice: '' };

function ledgerFor(config: Record<string, unknown>): Ledger {
  const s = planSettings(config);
  return {
    cycle: { from: at('22:00'), to: at('07:00', 1), requested: s.durationMs },
    cancelled: false,
    once: null,
    boost: null,
    pieces: [],
  };
}

/** Re-plans at each instant, checking that the past never changes; returns the ledger at the end. */
function replay(config: Record<string, unknown>, steps: Array<{ t: number; prices: number[]; change?: (l: Ledger) => Ledger }>): Ledger {
  const settings = planSettings(config);
  let ledger = ledgerFor(config);
  for (const step of steps) {
    const before = ledger.pieces.filter((p) => p.from < step.t).map((p) => ({ ...p, to: Math.min(p.to, step.t) }));
    if (step.change) ledger = step.change(ledger);
    ledger = replanLedger(ledger, step.t, enginePlanner(hourly(step.prices), { timezone: 'UTC' }, settings), settings).ledger;
    const after = ledger.pieces.filter((p) => p.from < step.t).map((p) => ({ ...p, to: Math.min(p.to, step.t) }));
    should(merge(after)).eql(merge(before), `the past changed at ${new Date(step.t).toISOString()}`);
    for (let i = 1; i < ledger.pieces.length; i++) should(ledger.pieces[i].from).be.aboveOrEqual(ledger.pieces[i - 1].to);
  }
  return ledger;
}

/** Runs of touching pieces, whatever they serve: what the relay does. */
function merge(pieces: LedgerPiece[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (last && last[1] === p.from) last[1] = p.to;
    else out.push([p.from, p.to]);
  }
  return out;
}

const cheapAt = (...hours: number[]) => Array.from({ length: 24 }, (_, h) => (hours.includes(h) ? 0.1 : 0.3));
const hourlyRefreshes = (prices: number[], from = at('21:30'), to = at('07:00', 1)) =>
  Array.from({ length: Math.ceil((to - from) / H) }, (_, i) => ({ t: from + i * H, prices }));

describe('plan ledger: the cases that broke promises', () => {
  it('minimum block 1 h, optimum 01:00–02:00 + 04:00–05:00: refreshes every hour and at 04:30 keep both blocks whole', () => {
    const prices = cheapAt(1, 4);
    const config = { ...night, durationHours: 2, minBlockHours: 1 };
    const steps = [...hourlyRefreshes(prices), { t: at('04:30', 1), prices }, { t: at('01:17', 1) + 123, prices }].sort(
      (a, b) => a.t - b.t,
    );
    const ledger = replay(config, steps);
    should(merge(ledger.pieces)).eql([
      [at('01:00', 1), at('02:00', 1)],
      [at('04:00', 1), at('05:00', 1)],
    ]);
  });

  it('a re-plan inside a running block: going on with it is no new start (rule 31), so the earliest of equal plans stays', () => {
    // 1 h 30 min in blocks of at least 30 min, cheap 01:00 and 04:00: 01:00–02:00 + 04:00–04:30 and
    // 01:00–01:30 + 04:00–05:00 cost the same in two blocks each; the earliest runs. Re-planned at 01:17
    // (the block committed to 01:30), 01:30–02:00 + 04:00–04:30 goes on with the running block: one new
    // start, as 04:00–05:00 alone is, and earlier
    const prices = cheapAt(1, 4);
    const config = { ...night, durationHours: 1, durationMinutes: 30, minBlockMinutes: 30 };
    const steps = [...hourlyRefreshes(prices), { t: at('01:17', 1) + 123, prices }].sort((a, b) => a.t - b.t);
    should(merge(replay(config, steps).pieces)).eql([
      [at('01:00', 1), at('02:00', 1)],
      [at('04:00', 1), at('04:30', 1)],
    ]);
  });

  it('1 h ran 22:00–23:00; at 23:30 "2h" more: 2 h run after the request, whatever the refreshes', () => {
    const prices = cheapAt(22, 1, 2);
    const config = { ...night, durationHours: 1 };
    const ask = at('23:30');
    const steps = [
      ...hourlyRefreshes(prices, at('21:45'), ask),
      { t: ask, prices, change: (l: Ledger) => ({ ...l, once: { from: ask, to: l.cycle.to, requested: 2 * H } }) },
      ...hourlyRefreshes(prices, at('23:45'), at('07:00', 1)),
    ];
    const ledger = replay(config, steps);
    should(timeIn(ledger.pieces, ask, ledger.cycle.to)).equal(2 * H);
    should(timeIn(ledger.pieces, ledger.cycle.from, ledger.cycle.to)).equal(3 * H);
    should(merge(ledger.pieces)).eql([
      [at('22:00'), at('23:00')],
      [at('01:00', 1), at('03:00', 1)],
    ]);
  });

  it('a one-off of 60 min until 02:00 is more: 60 min of its own by 02:00, and the configured hour as well', () => {
    const prices = cheapAt(0, 1, 4);
    const config = { ...night, durationHours: 1 };
    const ask = at('23:00');
    const steps = [
      { t: at('21:30'), prices },
      { t: ask, prices, change: (l: Ledger) => ({ ...l, once: { from: ask, to: at('02:00', 1), requested: H } }) },
      ...hourlyRefreshes(prices, at('23:15'), at('07:00', 1)),
    ];
    const ledger = replay(config, steps);
    should(timeIn(ledger.pieces, ask, at('02:00', 1))).equal(2 * H);
    should(timeIn(ledger.pieces, ledger.cycle.from, ledger.cycle.to)).equal(2 * H);
    // the configured hour keeps the cheapest hour; the one-off takes the cheapest left before 02:00
    should(merge(ledger.pieces)).eql([[at('00:00', 1), at('02:00', 1)]]);
    should(
      timeIn(
        ledger.pieces.filter((p) => p.owner === 'plan'),
        at('00:00', 1),
        at('01:00', 1),
      ),
    ).equal(H);
  });

  it('a boost on a node with a minimum block: on now for its run time, then back to the plan, which counts it', () => {
    const prices = cheapAt(3, 4);
    const config = { ...night, durationHours: 2, minBlockHours: 1 };
    const ask = at('23:00') + 12_345; // an arbitrary instant
    const steps = [
      { t: at('21:30'), prices },
      { t: ask, prices, change: (l: Ledger) => ({ ...l, boost: { from: ask, to: ask + 30 * M } }) },
      ...hourlyRefreshes(prices, at('23:45'), at('07:00', 1)),
    ];
    const ledger = replay(config, steps);
    should(merge(ledger.pieces)[0]).eql([ask, ask + 30 * M]);
    // the window's 2 h: the boost's half hour counts, 1 h 30 min in one block of at least an hour
    should(timeIn(ledger.pieces, ledger.cycle.from, ledger.cycle.to)).equal(2 * H);
    const [[from, to], ...more] = merge(ledger.pieces).slice(1);
    should(more).eql([]);
    should(to - from).equal(90 * M);
    should(from).be.within(at('03:00', 1), at('03:30', 1)); // all of it in the cheap hours (ties anywhere there)
  });

  it('duration 0: nothing planned; longer than the window: all of it, the shortfall said', () => {
    const prices = cheapAt(1);
    should(replay({ ...night, durationHours: 0 }, [{ t: at('21:00'), prices }]).pieces).eql([]);
    const settings = planSettings({ ...night, durationHours: 12 });
    const planned = replanLedger(
      ledgerFor({ ...night, durationHours: 12 }),
      at('21:00'),
      enginePlanner(hourly(prices), { timezone: 'UTC' }, settings),
      settings,
    );
    should(merge(planned.ledger.pieces)).eql([[at('22:00'), at('07:00', 1)]]);
    should(planned.shortfall).equal('the configured plan: the window (9 h) is shorter than the run time (12 h): all of it is planned');
  });
});

describe('plan ledger: against what each request was owed, on generated nights', () => {
  const price = fc.constantFrom(-0.05, 0.1, 0.1, 0.2, 0.3, 0.45);
  const prices = fc.array(price, { minLength: 24, maxLength: 24 });
  const instant = fc.integer({ min: at('21:00'), max: at('07:30', 1) });
  const wholeMinute = fc.integer({ min: 0, max: (at('07:30', 1) - at('21:00')) / M }).map((n) => at('21:00') + n * M);

  it('re-planned at random instants with changing prices: the past stays, blocks keep their minimum, the run time is exact', function () {
    this.timeout(60_000);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 18 }).map((n) => n * 30), // run time, minutes
        fc.constantFrom(0, 30, 60, 90),
        fc.boolean(),
        fc.array(fc.record({ t: fc.oneof(instant, wholeMinute), prices }), { minLength: 1, maxLength: 12 }),
        (minutes, minBlock, contiguous, raw) => {
          const config = { ...night, durationHours: 0, durationMinutes: 0, contiguous, minBlockHours: 0, minBlockMinutes: 0 };
          const run = Math.floor(minutes / 60);
          Object.assign(config, { durationHours: run, durationMinutes: minutes % 60 });
          if (!contiguous && minBlock <= minutes)
            Object.assign(config, { minBlockMinutes: minBlock % 60, minBlockHours: Math.floor(minBlock / 60) });
          const steps = [...raw].sort((a, b) => a.t - b.t);
          // the first plan is made before the window: all of it is still to come
          steps.unshift({ t: at('21:00'), prices: steps[0].prices });
          const ledger = replay(config, steps);
          const runs = merge(ledger.pieces);
          const want = minutes * M;
          // exact: every hour is priced and nothing is above a highest price
          should(timeIn(ledger.pieces, ledger.cycle.from, ledger.cycle.to)).equal(want);
          if (contiguous) should(runs.length).be.belowOrEqual(want > 0 ? 1 : 0);
          const min = planSettings(config).minBlockMs;
          for (const [a, b] of runs) should(b - a).be.aboveOrEqual(Math.min(min, want), `a run of ${(b - a) / M} min under ${min / M}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a one-off at a random instant gets its own run time from then on, more than the configured plan, which keeps its own', function () {
    this.timeout(60_000);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8 }).map((n) => n * 30), // configured run time, minutes
        fc.constantFrom(0, 30, 60),
        fc.integer({ min: 0, max: 6 }).map((n) => n * 30), // the one-off's, minutes
        fc.oneof(instant, wholeMinute),
        fc.integer({ min: 1, max: 10 * 60 }), // its span, minutes
        fc.array(fc.record({ t: fc.oneof(instant, wholeMinute), prices }), { minLength: 1, maxLength: 8 }),
        (minutes, minBlock, onceMinutes, ask, spanMinutes, raw) => {
          const config = { ...night, durationHours: Math.floor(minutes / 60), durationMinutes: minutes % 60 };
          if (minBlock <= minutes) Object.assign(config, { minBlockMinutes: minBlock % 60, minBlockHours: Math.floor(minBlock / 60) });
          const once = { from: ask, to: ask + spanMinutes * M, requested: onceMinutes * M };
          const steps: Array<{ t: number; prices: number[]; change?: (l: Ledger) => Ledger }> = [...raw];
          steps.push({ t: ask, prices: raw[0].prices, change: (l) => ({ ...l, once }) });
          steps.sort((a, b) => a.t - b.t);
          steps.unshift({ t: at('21:00'), prices: steps[0].prices });
          const ledger = replay(config, steps);
          const cycle = ledger.cycle;
          const own = (owner: string) => ledger.pieces.filter((p) => p.owner === owner);
          const others = ledger.pieces.filter((p) => p.owner !== 'once');
          // the one-off is more: its own run time in its span since asked, where the configured plan leaves room
          const room = once.to - once.from - timeIn(others, once.from, once.to);
          const onceRan = timeIn(own('once'), once.from, once.to);
          // all of it, exact to the ms, when nothing was re-planned after it (a later re-plan with new prices may move
          // the configured plan, which comes first, into the one-off's last free time: rule 19); with a minimum
          // block the room may be in pieces too short to use
          const replannedAfter = raw.some((r) => r.t > ask);
          if (!replannedAfter && (minBlock === 0 || minBlock > minutes)) should(onceRan).equal(Math.min(once.requested, room));
          else should(onceRan).be.belowOrEqual(Math.min(once.requested, room));
          // the configured plan still runs its own run time in its window, whatever the one-off asked
          const planRan = timeIn(own('plan'), cycle.from, cycle.to);
          const left = cycle.to - cycle.from - timeIn(own('once'), cycle.from, cycle.to);
          should(planRan).be.aboveOrEqual(Math.min(minutes * M, left));
          should(planRan).be.belowOrEqual(minutes * M + (minBlock > 0 ? minBlock * M : 0));
        },
      ),
      { numRuns: 600 },
    );
  });
});
