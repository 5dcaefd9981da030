// A plan's window segments on a price stack (engine/plan/plan-segments.ts): read from the
// stack's walk over its whole list, kept per zone, or walked per plan where keeping that
// walk could meet more prices than a stack may yield (MAX_STACK_SLOTS).
import should from 'should';
import { cheapestWindows, dearestWindows } from '../../nodes/lib/engine/plan/plan';
import { priceList } from '../../nodes/lib/engine/prices/price-list';
import { compileStack, MAX_STACK_SLOTS, PriceStack } from '../../nodes/lib/engine/prices/price-stack';
import { zoneInfo } from '../../nodes/lib/engine/time/zone-data';
import type { Rule } from '../../nodes/lib/engine/tariff/tariff';

const HOUR = 3_600_000;
const ZONE = 'Europe/Oslo';
const FROM = Date.UTC(2026, 2, 28, 23); // Sunday 29 March 2026 00:00 in Oslo: a 23-hour day
const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/** Grid fees with a rule of its own for every 5 minutes of the day: an hourly entry meets 12 of them. */
const FEES = {
  id: 'fees',
  name: 'every 5 minutes',
  vat: 25,
  currency: 'NOK',
  rules: Array.from({ length: 288 }, (_, k): Rule => ({
    priority: k,
    price: (k % 7) / 100,
    time_start: hhmm(k * 5),
    time_end: k === 287 ? '24:00' : hhmm(k * 5 + 5),
  })),
};

const stackOf = (hours: number, first = 0): PriceStack => ({
  list: priceList(
    Array.from({ length: hours }, (_, k) => ({ start: FROM + (first + k) * HOUR, price: (((first + k) * 37) % 11) / 10 - 0.3 })),
    { resolution: HOUR },
  ),
  fees: FEES,
  addOns: 0.01,
});

describe('plan segments of a price stack', () => {
  it('a list whose walk would meet more prices than a stack may yield is walked per plan, and plans as a short list does', () => {
    const hours = 20_000;
    should(hours * 12).be.above(MAX_STACK_SLOTS); // the whole list's walk would meet 240,000 prices
    const long = stackOf(hours);
    const short = stackOf(48, 0);
    const zone = zoneInfo(ZONE);
    should(compileStack(long).listVisits!(zone)).be.null();
    should(compileStack(short).listVisits!(zone)).not.be.null();
    const window = { timezone: ZONE, from: FROM + 30 * 60_000, to: FROM + 47 * HOUR, duration: 5 * HOUR };
    for (const contiguous of [false, true]) {
      // the long list walks the window; the short one reads its kept walk: the same plans
      should(cheapestWindows(long, { ...window, contiguous })).eql(cheapestWindows(short, { ...window, contiguous }));
      should(dearestWindows(long, { ...window, contiguous })).eql(dearestWindows(short, { ...window, contiguous }));
    }
  });

  it('a window reaching past the list on both sides plans on the list alone, its kept walk counted per zone', () => {
    const stack = stackOf(30, 5);
    const window = { timezone: ZONE, from: FROM, to: FROM + 40 * HOUR, duration: 40 * HOUR, contiguous: true };
    const plan = cheapestWindows(stack, window);
    should(plan.slots).eql([{ from: FROM + 5 * HOUR, to: FROM + 35 * HOUR, price: plan.slots[0].price }]);
    should(plan.comparedToNow).be.null(); // no price at `from`
    should(plan.shortfall).match(/no price is known/);
    const kept = compileStack(stack).listVisits!(zoneInfo(ZONE))!;
    should(kept.from).equal(FROM + 5 * HOUR);
    should(kept.to).equal(FROM + 35 * HOUR);
    should(kept.length).equal(30 * 12);
  });
});
