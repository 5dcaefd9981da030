// What the ledger and the running totals make of a step of the wall clock (semantics
// "Clock steps"), against references written here on a minute grid: the relay's run time
// is what it ran, never what a step stretched or shrank; a meter stamped ahead of the
// clock counts on from its last value.
import should from 'should';
import { Ledger, LedgerPiece, Owner, steppedLedger } from '../../nodes/lib/runtime/plan/plan-ledger';
import { ledgerAfterStep } from '../../nodes/lib/runtime/plan/plan-cycle';
import { planSettings } from '../../nodes/lib/runtime/plan/plan-settings';
import { addReading, newTotals, rebaseTotals, TotalsState } from '../../nodes/lib/engine/cost/totals';

const M = 60_000;
const H = 60 * M;
const DAY0 = Date.parse('2026-03-02T00:00:00Z');

/** A small deterministic generator (no seed to chase when a case fails: the case is printed). */
function random(seed: number) {
  let s = seed >>> 0;
  return (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
}

/** Minutes of [from, to) covered by pieces of `owners`: the reference, cell by cell. */
function minutes(pieces: LedgerPiece[], owners: Owner[], from: number, to: number): number {
  let n = 0;
  for (let t = from; t < to; t += M) if (pieces.some((p) => owners.includes(p.owner) && p.from <= t && t < p.to)) n++;
  return n;
}

describe('steppedLedger: what ran is what the relay did (generated ledgers and steps, minute cells)', () => {
  it('forward: the skipped minutes never ran; back: the minutes gone back over ran once and are owed no more', () => {
    const cases = { forward: 0, back: 0, credited: 0 };
    for (let seed = 1; seed <= 1500; seed++) {
      const r = random(seed);
      const cycle = { from: DAY0 + r(60) * M, to: DAY0 + (120 + r(600)) * M, requested: (30 + r(300)) * M };
      const pieces: LedgerPiece[] = [];
      let t = cycle.from + r(20) * M;
      while (t < cycle.to) {
        const len = (1 + r(30)) * M;
        const owner: Owner = (['plan', 'plan', 'boost', 'once'] as const)[r(4)];
        pieces.push({ from: t, to: Math.min(t + len, cycle.to), price: 0.1, owner });
        t += len + r(40) * M;
      }
      const once = { from: cycle.from, to: cycle.to, requested: 60 * M };
      const ledger: Ledger = { cycle, cancelled: false, once, boost: { from: cycle.from, to: cycle.from + H }, pieces };
      const before = cycle.from + r(Math.floor((cycle.to - cycle.from) / M)) * M;
      const by = (r(2) ? 1 : -1) * (1 + r(200)) * M;
      const now = before + by;
      const what = `seed ${seed}: step ${by / M} min at ${(before - DAY0) / M}`;
      const out = steppedLedger(ledger, before, now);
      // the slots the new clock has ahead of it are those the old one had (planned again by the caller)
      should(minutes(out.pieces, ['plan', 'boost', 'once'], Math.max(now, before), cycle.to + H)).equal(
        minutes(pieces, ['plan', 'boost', 'once'], Math.max(now, before), cycle.to + H),
        what,
      );
      should(out.boost).eql({ from: cycle.from + by, to: cycle.from + H + by }, what); // a boost keeps what it has left
      if (by > 0) {
        cases.forward++;
        // what lies behind the new clock is what ran before the step: the skipped span is empty
        should(minutes(out.pieces, ['plan', 'boost', 'once'], before, now)).equal(0, what);
        should(minutes(out.pieces, ['plan', 'boost'], cycle.from, before)).equal(
          minutes(pieces, ['plan', 'boost'], cycle.from, before),
          what,
        );
        should(out.cycle.requested).equal(cycle.requested, what);
      } else {
        cases.back++;
        // nothing of what ran lies ahead of the new clock: it would run again
        should(minutes(out.pieces, ['plan', 'boost', 'once'], now, before)).equal(0, what);
        // what ran = what lies behind the new clock + what was taken off the request, for the window and the one-off
        const ranPlan = minutes(pieces, ['plan', 'boost'], cycle.from, Math.min(before, cycle.to));
        const keptPlan = minutes(out.pieces, ['plan', 'boost'], cycle.from, Math.min(now, cycle.to));
        const creditPlan = (cycle.requested - out.cycle.requested) / M;
        const ranOnce = minutes(pieces, ['once'], once.from, Math.min(before, once.to));
        const keptOnce = minutes(out.pieces, ['once'], once.from, Math.min(now, once.to));
        const creditOnce = (once.requested - out.once!.requested) / M;
        // what was taken off is what ran ahead of the new clock, but never below nothing owed
        if (cycle.requested >= (ranPlan - keptPlan) * M) should(keptPlan + creditPlan).equal(ranPlan, what);
        else should(out.cycle.requested).equal(0, what);
        if (once.requested >= (ranOnce - keptOnce) * M) should(keptOnce + creditOnce).equal(ranOnce, what);
        else should(out.once!.requested).equal(0, what);
        if (creditPlan > 0) cases.credited++;
      }
    }
    should(cases.forward).be.above(500);
    should(cases.back).be.above(500);
    should(cases.credited).be.above(200);
  });

  it('a year ahead and back: the window of a clock that was a year fast is dropped for the window of the new clock', () => {
    const settings = planSettings({ mode: 'daily', from: '22:00', until: '07:00', durationHours: 1, durationMinutes: 0, maxPrice: '' });
    const ahead = DAY0 + 365 * 24 * H + H; // 01:00, a year ahead
    const ledger: Ledger = {
      cycle: { from: ahead - 3 * H, to: ahead + 6 * H, requested: H },
      cancelled: false,
      once: null,
      boost: null,
      pieces: [{ from: ahead - 10 * M, to: ahead + 50 * M, price: 0.1, owner: 'plan' }],
    };
    const now = DAY0 + H + 10 * M;
    const out = ledgerAfterStep(ledger, settings, now + 365 * 24 * H, now, 'Europe/London');
    should(out.cycle).eql({ from: DAY0 - 2 * H, to: DAY0 + 7 * H, requested: H });
    should(out.pieces).eql([]);
    // back an hour over a daily window's start: the same window, what ran in it taken off
    const inWindow: Ledger = {
      cycle: { from: DAY0 - 2 * H, to: DAY0 + 7 * H, requested: H },
      cancelled: false,
      once: null,
      boost: null,
      pieces: [{ from: DAY0 - 2 * H, to: DAY0 - H, price: 0.1, owner: 'plan' }],
    };
    const back = ledgerAfterStep(inWindow, settings, DAY0 - H, DAY0 - 150 * M, 'Europe/London');
    should(back.cycle).eql({ from: DAY0 - 2 * H, to: DAY0 + 7 * H, requested: 0 });
    should(back.pieces).eql([]);
  });
});

describe('rebaseTotals: a meter stamped ahead of the clock counts on from its last value', () => {
  const flat = () => ({ energy: 0, net: 0, gross: 0, unpricedEnergy: 0, resets: 0 });
  const costOf = (a: { value: number }, b: { value: number }) => ({ ...flat(), energy: b.value - a.value, net: (b.value - a.value) * 0.2 });

  function stream(from: number, count: number, start = 100): { state: TotalsState; value: number; ts: number } {
    let state = newTotals('Europe/London', 'FLAT');
    let value = start;
    let ts = from;
    for (let i = 0; i < count; i++) {
      ts = from + i * 10_000;
      state = addReading(state, { ts, value }, costOf).state;
      value += 0.01;
    }
    return { state, value: value - 0.01, ts };
  }

  it('after a step back the next reading counts its own interval; energy is kept; periods ahead become those of the clock', () => {
    for (const [label, ahead] of [
      ['1 hour', H],
      ['across midnight', 13 * H],
      ['a year', 365 * 24 * H],
    ] as Array<[string, number]>) {
      const real = DAY0 + 12 * H;
      const before = stream(real + ahead - 60_000, 7);
      const by = -ahead;
      const now = before.ts + by + 5000;
      const rebased = rebaseTotals(before.state, by, now)!;
      should(rebased).not.be.null();
      should(rebased.total!.energy).be.approximately(before.state.total!.energy, 1e-12, label);
      should(rebased.day!.from).be.belowOrEqual(now, label);
      should(rebased.day!.to).be.above(now, label);
      const next = addReading(rebased, { ts: now + 10_000, value: before.value + 0.01 }, costOf);
      should(next.ignored).be.undefined();
      should(next.change.energy).be.approximately(0.01, 1e-9, label);
      // without the rebase the same reading is too late (a year) or misplaced as late (an hour)
      const without = addReading(before.state, { ts: now + 10_000, value: before.value + 0.01 }, costOf);
      should(without.ignored === 'too_late' || without.late === true).be.true(label);
    }
    // a meter whose newest reading is not ahead is left as it is
    const behind = stream(DAY0, 3);
    should(rebaseTotals(behind.state, -H, DAY0 + H)).be.null();
  });
});
