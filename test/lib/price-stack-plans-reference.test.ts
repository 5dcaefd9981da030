// dearestWindows and savingOffWindows on price stacks against a slow, obviously correct
// reference: the stacked price of every minute by a minute walk with Intl
// (price-stack-cases.ts), then brute force over the minutes: the dearest minutes, every
// block of the duration, and for switching off every off period of whole minutes with the
// best plan after it (semantics rules 29-37 on rules 50-54 and 58). Generated lists (15/30/60
// minutes mixed, gaps, negative prices) around the DST days of four zones, stacked with
// generated fee tariffs; some fall back to the fees beyond the list. Every price change lies
// on the minute grid and every window starts on a minute, so the best plan lies on it too.
import should from 'should';
import { prng } from './engine-fixtures';
import { dearestWindows, PlanResult } from '../../nodes/lib/engine/plan/plan';
import { onTimeAfter, savingOffWindows } from '../../nodes/lib/engine/plan/plan-saving';
import { Case, clockChanges, close, generate, MIN, referencePrices, stackOf, ZONES } from './price-stack-cases';

const CASES = 600;
/** Windows of at most this many minutes: the switch-off reference tries every off period from every minute. */
const MAX_WINDOW = 12 * 60;

type MinutePrice = number | null;

/** A case cut to a window inside it, with the reference's price of each minute of the window. */
interface Planned {
  c: Case;
  from: number;
  to: number;
  prices: MinutePrice[];
}

function plannedCase(seed: number, changes: Map<string, number[]>): Planned {
  const c = generate(seed, changes);
  const rnd = prng(seed * 7 + 1);
  if (rnd() < 0.2) c.beyond = 'fees';
  const all = referencePrices(c).map((p) => (p === null ? null : p.price));
  // a window of whole minutes inside the case, sometimes reaching an hour past its list
  const length = Math.min(all.length, 30 + Math.floor(rnd() * (MAX_WINDOW - 90)));
  // past the list's end: no price there (unless the fees are the price beyond it, which the
  // reference's minutes do not reach: another case then)
  const past = rnd() < 0.15 ? 60 : 0;
  const first = past > 0 ? all.length - length : Math.floor(rnd() * (all.length - length + 1));
  const prices = all.slice(first, first + length);
  for (let k = 0; k < past; k++) prices.push(null);
  if (past > 0 && c.beyond === 'fees') return plannedCase(seed + 1_000_000, changes);
  return { c, from: c.from + first * MIN, to: c.from + (first + length + past) * MIN, prices };
}

/** Running `minutes` from the window's start in one block: its cost per kW, null when a minute has no price. */
function fromStart(prices: MinutePrice[], minutes: number): number | null {
  let cost = 0;
  for (let m = 0; m < minutes; m++) {
    const p = prices[m];
    if (p === null) return null;
    cost += p / 60;
  }
  return cost;
}

/** The reference's dearest plans: split (the dearest minutes) and one block (the dearest run; none long enough: the longest, earliest). */
function dearestReference(prices: MinutePrice[], minutes: number, minPrice: number | undefined) {
  const usable = prices.map((p) => (p !== null && (minPrice === undefined || p >= minPrice) ? p : null));
  const split = usable.filter((p): p is number => p !== null).sort((a, b) => b - a);
  const taken = split.slice(0, minutes);
  let best: number | null = null;
  let longest = 0;
  let longestCost = 0;
  for (let i = 0; i < usable.length; i++) {
    let run = 0;
    let cost = 0;
    while (i + run < usable.length && usable[i + run] !== null) {
      cost += (usable[i + run] as number) / 60;
      run++;
      if (run === minutes) {
        if (best === null || cost > best + 1e-12) best = cost;
        break;
      }
    }
    if (run > longest) [longest, longestCost] = [run, cost];
  }
  return {
    split: { minutes: taken.length, cost: taken.reduce((s, p) => s + p / 60, 0) },
    block: best !== null ? { minutes, cost: best } : { minutes: longest, cost: longestCost },
  };
}

interface SavingSettings {
  maxOff: number;
  minOff: number;
  minOn: number;
  minSaving: number;
  percent: number;
  recoveryMax: number;
}

/**
 * The most a switch-off plan can save per kW, by trying from every minute every off period
 * [i, j) of whole minutes that the rules allow (priced, every minute saving at least
 * minSaving and more than 0 against the price at j, the recovery inside the window), with
 * the best plan from the end of its recovery on: a backward pass over the minutes.
 */
function savingReference(prices: MinutePrice[], s: SavingSettings): number {
  const n = prices.length;
  const maxAbs = prices.reduce<number>((m, p) => (p === null ? m : Math.max(m, Math.abs(p))), 0);
  const leastSaving = s.minSaving - Math.max(maxAbs, s.minSaving) * 1e-12;
  const best = new Float64Array(n + 1);
  for (let i = n - 1; i >= 0; i--) {
    best[i] = best[i + 1];
    let least = Infinity;
    let sum = 0;
    for (let j = i + 1; j < n && j - i <= s.maxOff; j++) {
      const p = prices[j - 1];
      if (p === null) break;
      least = Math.min(least, p);
      sum += p;
      const resume = prices[j];
      if (resume === null || !(least - resume >= leastSaving && least > resume)) continue;
      const off = j - i;
      const back = j + onTimeAfter(off * MIN, s.minOn * MIN, s.percent, s.recoveryMax * MIN) / MIN;
      if (off < s.minOff || back > n) continue;
      best[i] = Math.max(best[i], (sum - resume * off) / 60 + best[back]);
    }
  }
  return best[0];
}

describe('dearestWindows and savingOffWindows on price stacks against brute force over a minute walk with Intl', function () {
  this.timeout(120_000);
  const changes = new Map(ZONES.map((zone) => [zone, clockChanges(zone)]));
  const cases = Array.from({ length: CASES }, (_, k) => plannedCase(20261130 + k, changes));

  it('tests on what it means to: clock changes, gaps, negative prices, the fees beyond the list, sensor fees', () => {
    const dstInWindow = cases.filter(({ c, from, to }) => changes.get(c.zone)!.some((t) => t > from && t < to));
    should(dstInWindow.length).be.above(CASES / 5);
    should(cases.filter(({ prices }) => prices.some((p, k) => p === null && k > 0 && prices[k - 1] !== null)).length).be.above(CASES / 5);
    should(cases.filter(({ prices }) => prices.some((p) => p !== null && p < 0)).length).be.above(CASES / 20);
    should(cases.filter(({ c }) => c.beyond === 'fees').length).be.above(CASES / 10);
    should(cases.filter(({ c }) => c.fees?.rules.some((r) => r.gateway_id !== undefined)).length).be.above(CASES / 20);
    for (const zone of ZONES) should(cases.some(({ c }) => c.zone === zone)).be.true(zone);
  });

  it(`dearestWindows: split and one block plan what the dearest choice of minutes earns, minPrice kept, compared to now (${CASES} cases)`, () => {
    cases.forEach(({ c, from, to, prices }, n) => {
      const rnd = prng(n + 29);
      const minutes = 1 + Math.floor(rnd() * Math.min(prices.length, 400));
      const minPrice = rnd() < 0.4 ? Math.round((rnd() * 0.6 - 0.1) * 100) / 100 : undefined;
      const want = dearestReference(prices, minutes, minPrice);
      const options = { timezone: c.zone, sensors: c.sensors, from, to, duration: minutes * MIN, minPrice };
      const check = (plan: PlanResult, expected: { minutes: number; cost: number }, what: string) => {
        const name = `case ${n} ${what} (${c.zone}, ${new Date(from).toISOString()}, ${minutes} min${minPrice === undefined ? '' : `, minPrice ${minPrice}`})`;
        should(plan.planned).equal(expected.minutes * MIN, `${name}: planned`);
        close(plan.costPerKw.net, expected.cost, `${name}: cost`);
        should(plan.shortfall === null).equal(expected.minutes === minutes, `${name}: shortfall ${plan.shortfall}`);
        // every piece at a price of its minutes, inside the window, at or above minPrice
        for (const p of plan.pieces) {
          should(p.from >= from && p.to <= to && p.from % MIN === 0 && p.to % MIN === 0).be.true(`${name}: piece ${JSON.stringify(p)}`);
          for (let m = p.from; m < p.to; m += MIN)
            should(prices[(m - from) / MIN]).equal(p.price, `${name}: price at ${new Date(m).toISOString()}`);
          if (minPrice !== undefined) should(p.price).be.aboveOrEqual(minPrice);
        }
        const now = plan.planned > 0 ? fromStart(prices, plan.planned / MIN) : null;
        if (now === null) should(plan.comparedToNow).be.null();
        else {
          close(plan.comparedToNow!.net, now, `${name}: compared to now`);
          close(plan.comparedToNow!.saving, plan.costPerKw.net - now, `${name}: earns more than now`);
        }
      };
      check(dearestWindows(stackOf(c), options), want.split, 'split');
      check(dearestWindows(stackOf(c), { ...options, contiguous: true }), want.block, 'one block');
    });
  });

  it(`savingOffWindows saves what the best switch-off plan over the minutes saves, every off period by the rules (${CASES} cases)`, () => {
    let withSaving = 0;
    cases.forEach(({ c, from, to, prices }, n) => {
      const rnd = prng(n + 31);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
      const maxOff = pick([15, 30, 45, 60, 90, 120]);
      const s: SavingSettings = {
        maxOff,
        minOff: rnd() < 0.3 ? Math.min(maxOff, pick([5, 15, 30])) : 0,
        minOn: pick([1, 1, 5, 15]),
        minSaving: pick([0, 0, 0.05, 0.1]),
        percent: pick([0, 0, 20, 50]),
        recoveryMax: rnd() < 0.3 ? pick([10, 30]) : Infinity,
      };
      const name = `case ${n} (${c.zone}, ${new Date(from).toISOString()}, ${JSON.stringify(s)})`;
      const result = savingOffWindows(stackOf(c), {
        timezone: c.zone,
        sensors: c.sensors,
        from,
        to,
        maxOffInRow: s.maxOff * MIN,
        minOffInRow: s.minOff * MIN,
        minOnBetween: s.minOn * MIN,
        minSaving: s.minSaving,
        recoveryPercent: s.percent,
        recoveryMax: s.recoveryMax === Infinity ? undefined : s.recoveryMax * MIN,
      });
      const best = savingReference(prices, s);
      close(result.saving.net, best, `${name}: saving`);
      if (best > 0) withSaving++;
      // each off period keeps the rules, and saves what its minutes save
      const maxAbs = prices.reduce<number>((m, p) => (p === null ? m : Math.max(m, Math.abs(p))), 0);
      let free = from;
      for (const slot of result.slots) {
        const i = (slot.from - from) / MIN;
        const j = (slot.to - from) / MIN;
        should(Number.isInteger(i) && Number.isInteger(j) && slot.from >= free && j > i).be.true(`${name}: slot ${JSON.stringify(slot)}`);
        should(j - i).be.within(Math.max(s.minOff, 1), s.maxOff);
        const resume = prices[j];
        should(resume).equal(slot.resumePrice, `${name}: resume price`);
        let saving = 0;
        for (let m = i; m < j; m++) {
          const p = prices[m];
          should(p !== null && p > resume! && p - resume! >= s.minSaving - Math.max(maxAbs, s.minSaving) * 1e-12).be.true(
            `${name}: minute ${m} off at ${p}, back on at ${resume}`,
          );
          saving += (p! - resume!) / 60;
        }
        close(slot.saving, saving, `${name}: slot saving`);
        should(slot.recoveryEnd).equal(slot.to + onTimeAfter(slot.to - slot.from, s.minOn * MIN, s.percent, s.recoveryMax * MIN));
        should(slot.recoveryEnd).be.belowOrEqual(to);
        free = slot.recoveryEnd;
      }
      close(
        result.slots.reduce((sum, x) => sum + x.saving, 0),
        result.saving.net,
        `${name}: the slots' savings`,
      );
    });
    should(withSaving).be.above(CASES / 3);
  });
});
