// The busy option of cheapestWindows / dearestWindows (one-off runs planned on top of the
// configured plan): against a minute-by-minute reference of what is free, with busy spans
// that overlap, come in any order, or are empty.
import should from 'should';
import fc from 'fast-check';
import { cheapestWindows, dearestWindows } from '../../nodes/lib/engine/plan/plan';
import { workdayTariff } from './engine-fixtures';

const MIN = 60_000;
const FROM = Date.parse('2026-03-04T00:00:00Z');
const WINDOW_MIN = 24 * 60;

describe('plans around busy times', () => {
  it('plan only free minutes, as much as is free up to the duration, in both directions (reference: minute by minute)', () => {
    const span = fc.tuple(fc.integer({ min: -60, max: WINDOW_MIN + 60 }), fc.integer({ min: -30, max: 600 }));
    fc.assert(
      fc.property(fc.array(span, { maxLength: 8 }), fc.integer({ min: 1, max: 20 * 60 }), fc.boolean(), (spans, durationMin, dearest) => {
        const busy = spans.map(([start, length]) => ({ from: FROM + start * MIN, to: FROM + (start + length) * MIN }));
        const free: boolean[] = [];
        for (let m = 0; m < WINDOW_MIN; m++) {
          const at = FROM + m * MIN;
          free.push(!busy.some((b) => b.from <= at && at < b.to));
        }
        const options = { timezone: 'UTC', from: FROM, to: FROM + WINDOW_MIN * MIN, duration: durationMin * MIN, busy };
        const plan = (dearest ? dearestWindows : cheapestWindows)(workdayTariff(), options);
        // every planned minute free: collected and asserted once (an assertion a minute cost seconds a run)
        const plannedBusy: string[] = [];
        for (const p of plan.pieces)
          for (let at = p.from; at < p.to; at += MIN) if (!free[(at - FROM) / MIN]) plannedBusy.push(new Date(at).toISOString());
        should(plannedBusy).eql([], 'planned minutes that are busy');
        const freeMin = free.filter(Boolean).length;
        should(plan.planned).equal(Math.min(durationMin, freeMin) * MIN);
      }),
      { numRuns: 1000 },
    );
  });

  it('busy spans at fractions of a ms are widened to the whole ms that cover them (property)', () => {
    // one price a second from few values (many ties), ten seconds, busy spans anywhere to the µs
    const second = (k: number) => `00:00:${String(k).padStart(2, '0')}`;
    const arb = fc.record({
      prices: fc.array(fc.constantFrom(0.1, 0.2, 0.3), { minLength: 10, maxLength: 10 }),
      spans: fc.array(fc.tuple(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 3_000_000 })), { maxLength: 6 }),
      duration: fc.integer({ min: 1, max: 10_000 }),
      dearest: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, ({ prices, spans, duration, dearest }) => {
        const tariff = {
          id: 'S',
          name: 'seconds',
          vat: 0,
          currency: 'EUR',
          rules: prices.map((price, k) => ({ priority: 0, price, time_start: second(k), time_end: second(k + 1) })),
        };
        const busy = spans.map(([start, length]) => ({ from: FROM + start / 1000, to: FROM + (start + length) / 1000 }));
        const options = { timezone: 'UTC', from: FROM, to: FROM + 10_000, duration, busy };
        const plan = (dearest ? dearestWindows : cheapestWindows)(tariff, options);
        let free = 0;
        for (let at = FROM; at < FROM + 10_000; at++) if (!busy.some((b) => b.from < at + 1 && at < b.to)) free++;
        for (const p of plan.pieces) {
          should(Number.isInteger(p.from) && Number.isInteger(p.to)).be.true();
          should(busy.some((b) => b.from < p.to && p.from < b.to)).be.false();
        }
        should(plan.planned).equal(Math.min(duration, free));
      }),
      { numRuns: 500 },
    );
  });
});

describe('busy spans from outside', () => {
  const options = { timezone: 'UTC', from: FROM, to: FROM + WINDOW_MIN * MIN, duration: 60 * MIN };
  const plan = (busy: unknown) => cheapestWindows(workdayTariff(), { ...options, busy } as never);

  it('are an array of { from, to } instants: anything else is an error naming the entry, not a silent plan', () => {
    should(() => plan('08:00-09:00')).throw(TypeError, { message: /^busy must be an array of \{ from, to \} spans, got "08:00-09:00"/ });
    should(() => plan({ length: 1 })).throw(TypeError, { message: /^busy must be an array/ });
    should(() => plan([{ from: FROM, to: FROM + MIN }, null])).throw(TypeError, {
      message: /^busy\[1\] must be a \{ from, to \} span, got null/,
    });
    should(() => plan([{ from: 'noon', to: FROM + MIN }])).throw(TypeError, { message: /^busy\[0\]\.from must be epoch milliseconds/ });
    should(() => plan([{ from: FROM }])).throw(TypeError, { message: /^busy\[0\]\.to must be epoch milliseconds.*got undefined/ });
    should(() => plan([{ from: FROM, to: NaN }])).throw(TypeError, { message: /^busy\[0\]\.to/ });
  });

  it('take Dates and ISO strings as instants, and absent or null as none', () => {
    const iso = new Date(FROM).toISOString();
    const asNumbers = plan([{ from: FROM, to: FROM + 12 * 60 * MIN }]);
    should(plan([{ from: new Date(FROM), to: new Date(FROM + 12 * 60 * MIN) }]).slots).eql(asNumbers.slots);
    should(plan([{ from: iso, to: new Date(FROM + 12 * 60 * MIN).toISOString() }]).slots).eql(asNumbers.slots);
    should(plan(null).slots).eql(plan(undefined).slots);
  });

  it('are capped: more than MAX_PLAN_SEGMENTS spans is a RangeError before any work', () => {
    const many = Array.from({ length: 50_001 }, (_, k) => ({ from: FROM + k, to: FROM + k + 1 }));
    should(() => plan(many)).throw(RangeError, { message: /^busy holds 50,001 spans, more than 50,000/ });
  });
});
