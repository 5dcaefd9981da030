import fc from 'fast-check';
import moment from 'moment-timezone';
import should from 'should';
import { ChartPoint, closedPeriodBar, periodLabel, scheduleChart, stepPoints } from '../../nodes/lib/engine/reports/chart';
import { priceAt, schedule, SensorValues } from '../../nodes/lib/engine/prices/price-source';
import { periodBounds, PeriodName } from '../../nodes/lib/engine/cost/totals';
import { MAX_CHART_POINTS } from '../../nodes/lib/engine/common/limits';
import { DST_ZONES, FC, slowPrice, tariffArb, workdayTariff } from './engine-fixtures';

/** Zones whose clocks change at midnight: a local day starts at 01:00 or lasts 25 hours. */
const MIDNIGHT_ZONES = ['Atlantic/Azores', 'America/Havana', 'Asia/Beirut', 'America/Santiago'];
const ZONES = [...DST_ZONES, ...MIDNIGHT_ZONES, 'UTC'];
const HOUR = 3600_000;

/** The test's own reading of a step line: the last point at or before t (at a change, the new value). */
function stepValue(points: ChartPoint[], t: number): number | null | undefined {
  let y: number | null | undefined;
  for (const p of points) if ((p.x as number) <= t) y = p.y;
  return y;
}

describe('chart data for Dashboard 2 (ui-chart)', () => {
  it('doubles the points at each change so the line steps, and merges equal neighbours', () => {
    const segments = [
      { from: 0, to: 10, price: 1 },
      { from: 10, to: 20, price: 1 }, // another rule, same price: one step
      { from: 20, to: 30, price: null },
      { from: 30, to: 40, price: 2 },
    ];
    should(stepPoints(segments, (p) => p)).eql([
      { x: 0, y: 1 },
      { x: 20, y: 1 },
      { x: 20, y: null },
      { x: 30, y: null },
      { x: 30, y: 2 },
      { x: 40, y: 2 },
    ]);
    should(stepPoints([], (p) => p)).eql([]);
  });

  it('sends net and gross as two series that together replace the chart', () => {
    const messages = scheduleChart([{ from: 0, to: 10, price: 0.5 }], 'GBP', 20);
    should(messages.map((m) => [m.topic, m.action])).eql([
      ['net GBP/kWh', 'replace'],
      ['gross GBP/kWh', 'append'],
    ]);
    should(messages[1].payload.map((p) => p.y)).eql([0.5 * 1.2, 0.5 * 1.2]);
  });

  it(`cuts a line at ${MAX_CHART_POINTS} points after a whole step, both lines alike, and says truncated`, () => {
    // a price change every second for a day: 172,800 points a line uncut
    const segments = Array.from({ length: 86_400 }, (_, k) => ({ from: k * 1000, to: (k + 1) * 1000, price: k % 2 ? 0.2 : 0.3 }));
    const [net, gross] = scheduleChart(segments, 'EUR', 20);
    const whole = stepPoints(segments, (p) => p);
    for (const line of [net, gross]) {
      should(line.truncated).be.true();
      should(line.payload).have.length(MAX_CHART_POINTS);
      should(line.payload.map((p) => p.x)).eql(whole.slice(0, MAX_CHART_POINTS).map((p) => p.x));
    }
    should(net.payload).eql(whole.slice(0, MAX_CHART_POINTS));
    // the last point ends a step: the next point of the whole line starts another at the same instant
    should(whole[MAX_CHART_POINTS].x).equal(net.payload[MAX_CHART_POINTS - 1].x);
    should(gross.payload.map((p) => p.y)).eql(net.payload.map((p) => (p.y as number) * 1.2));
    // at the limit exactly: whole, not truncated
    const fits = segments.slice(0, MAX_CHART_POINTS / 2);
    should(scheduleChart(fits, 'EUR', 20).map((m) => [m.truncated, m.payload.length])).eql([
      [false, MAX_CHART_POINTS],
      [false, MAX_CHART_POINTS],
    ]);
  });

  // The reference is the per-instant slow evaluation of the rules, not the engine's
  // schedule the chart is drawn from; samples at every change (and 1 ms either side)
  // and at random instants, 24 h and 7-day windows.
  it('draws exactly the price the rules give at every instant (property)', () => {
    fc.assert(
      fc.property(
        tariffArb,
        fc.constantFrom(...ZONES),
        fc.integer({ min: Date.UTC(2019, 0, 1) / 1000, max: Date.UTC(2031, 0, 1) / 1000 }),
        fc.constantFrom(24, 24 * 7),
        fc.constantFrom<SensorValues[]>({}, { gw: { 1: 0 } }, { gw: { 1: 1 } }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), { minLength: 10, maxLength: 10 }),
        (tariff, timezone, fromSec, hours, sensors, picks) => {
          const from = fromSec * 1000;
          const to = from + hours * HOUR;
          const segments = schedule(tariff, from, to, { timezone, sensors });
          const [net, gross] = scheduleChart(segments, tariff.currency, tariff.vat);
          const xs = net.payload.map((p) => p.x as number);
          should(xs[0]).equal(from);
          should(xs[xs.length - 1]).equal(to);
          for (let i = 1; i < xs.length; i++) should(xs[i]).be.aboveOrEqual(xs[i - 1]);
          // points come in pairs (start and end of a run), and neighbouring runs differ
          should(xs.length % 2).equal(0);
          for (let i = 2; i < xs.length; i += 2) {
            should(xs[i]).equal(xs[i - 1]);
            should(net.payload[i].y).not.equal(net.payload[i - 1].y);
          }
          const samples = [...picks.map((u) => from + Math.floor(u * (to - from))), ...xs.flatMap((x) => [x - 1, x, x + 1])].filter(
            (t) => t >= from && t < to,
          );
          for (const t of samples) {
            const expected = slowPrice(tariff, t, timezone, sensors);
            should(stepValue(net.payload, t)).equal(expected);
            const engine = priceAt(tariff, t, { timezone, sensors });
            should(stepValue(gross.payload, t)).equal(engine === null ? null : engine.gross);
          }
        },
      ),
      { ...FC, numRuns: 600 },
    );
  });

  it('labels a closed period by its local date, also on days that start at 01:00 (property)', () => {
    const formats: Record<PeriodName, string> = { day: 'YYYY-MM-DD', week: 'YYYY-MM-DD', month: 'YYYY-MM' };
    fc.assert(
      fc.property(
        fc.constantFrom<PeriodName>('day', 'week', 'month'),
        fc.constantFrom(...ZONES),
        fc.integer({ min: Date.UTC(2019, 0, 1) / 1000, max: Date.UTC(2031, 0, 1) / 1000 }),
        (period, timezone, sec) => {
          const { from } = periodBounds(period, sec * 1000, timezone);
          should(periodLabel(period, from, timezone)).equal(
            moment
              .tz(sec * 1000, timezone)
              .startOf(period === 'week' ? 'isoWeek' : period)
              .format(formats[period]),
          );
        },
      ),
      { ...FC, numRuns: 2000 },
    );
    // Santiago's clocks went forward at midnight on 2022-09-11: the day began at 01:00
    const sept11 = periodBounds('day', Date.UTC(2022, 8, 11, 12), 'America/Santiago');
    should(periodLabel('day', sept11.from, 'America/Santiago')).equal('2022-09-11');
    should(sept11.from).equal(Date.UTC(2022, 8, 11, 4));
  });

  it('makes one bar per closed period, gross rounded to the minor unit of the currency', () => {
    const from = periodBounds('day', Date.UTC(2026, 10, 22, 12), 'Europe/London').from;
    should(closedPeriodBar('day', { from, gross: 3.14159 }, 'GBP', 'Europe/London')).eql({
      topic: 'cost per day (GBP)',
      period: 'day',
      payload: [{ x: '2026-11-22', y: 3.14 }],
      action: 'append',
    });
    should(closedPeriodBar('month', { from, gross: 1234.5 }, 'JPY', 'Europe/London').payload).eql([{ x: '2026-11', y: 1235 }]);
  });

  it("charts the example tariff's working day", () => {
    const monday = Date.UTC(2026, 10, 23); // midnight in London (GMT)
    const [net] = scheduleChart(schedule(workdayTariff(), monday, monday + 24 * HOUR, { timezone: 'Europe/London' }), 'GBP', 20);
    should(net.payload).eql([
      { x: monday, y: 0.6 },
      { x: monday + 9 * HOUR, y: 0.6 },
      { x: monday + 9 * HOUR, y: 0.5 },
      { x: monday + 17 * HOUR, y: 0.5 },
      { x: monday + 17 * HOUR, y: 0.6 },
      { x: monday + 24 * HOUR, y: 0.6 },
    ]);
  });
});
