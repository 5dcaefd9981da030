// The cases of the power-saver re-run (docs/power-saver.md, "The re-run"): power-saver
// 5.2.2's own Lowest Price tests, each with the fixture it plans (test/fixtures/power-saver/,
// copied from its repository), its settings and the schedule it expects; and what the
// re-run's two halves share (bench/power-saver-rerun.ts, bench/power-saver-best-save.ts).
import * as fs from 'fs';
import * as path from 'path';

export const MINUTE = 60_000;
/** Costs and savings compare to this relative tolerance (sums of the same prices in another order). */
const EPS = 1e-9;

const ROOT = fs.existsSync(path.join(__dirname, '..', 'package.json')) ? path.join(__dirname, '..') : path.join(__dirname, '..', '..');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'power-saver');

export const sameCost = (a: number, b: number) => Math.abs(a - b) <= EPS * Math.max(1, Math.abs(a), Math.abs(b));
export const pad = (n: number) => String(n).padStart(2, '0');

export interface LowestPriceCase {
  /** The power-saver test it comes from. */
  test: string;
  file: string;
  from: string;
  to: string;
  minutesOn: number;
  doNotSplit: boolean;
  maxPrice: number | null;
  /** The schedule the test expects: in a result file of the fixtures, or written in the test. */
  expected?: string;
  schedule?: Switch[];
}

export interface Switch {
  time: string;
  value: boolean;
}

/**
 * The Lowest Price tests of power-saver 5.2.2 that plan a fixture's price list, one entry
 * per distinct price list and settings (variants that change only the outputs outside the
 * period or with no schedule plan the same windows; "0 hours on" plans nothing).
 */
export const LOWEST_PRICE_CASES: LowestPriceCase[] = [
  {
    test: 'continuous schedule',
    expected: 'lowest-price-result-cont.json',
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 240,
    doNotSplit: true,
    maxPrice: null,
  },
  {
    test: 'splitted schedule',
    expected: 'lowest-price-result-split.json',
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 360,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: 'negative prices continuous',
    expected: 'lowest-price-result-neg-cont.json',
    file: 'negative-prices.json',
    from: '00:00',
    to: '00:00',
    minutesOn: 300,
    doNotSplit: true,
    maxPrice: null,
  },
  {
    test: 'negative prices splitted',
    expected: 'lowest-price-result-neg-split.json',
    file: 'negative-prices.json',
    from: '00:00',
    to: '00:00',
    minutesOn: 300,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: 'continuous, max price ok',
    expected: 'lowest-price-result-cont-max.json',
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 240,
    doNotSplit: true,
    maxPrice: 1.0,
  },
  {
    test: 'continuous, max price too high',
    expected: 'lowest-price-result-cont-max-fail.json',
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 240,
    doNotSplit: true,
    maxPrice: 0.23,
  },
  {
    test: 'splitted, max price',
    expected: 'lowest-price-result-split-max.json',
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 360,
    doNotSplit: false,
    maxPrice: 0.51,
  },
  {
    test: 'all day 00-00',
    expected: 'lowest-price-result-split-allday.json',
    file: 'converted-prices.json',
    from: '00:00',
    to: '00:00',
    minutesOn: 480,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: 'all day 10-10',
    expected: 'lowest-price-result-split-allday10.json',
    file: 'converted-prices.json',
    from: '10:00',
    to: '10:00',
    minutesOn: 600,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: '1 hour on',
    schedule: [
      { time: '2021-10-11T00:00:00.000+02:00', value: false },
      { time: '2021-10-11T12:00:00.000+02:00', value: true },
      { time: '2021-10-11T13:00:00.000+02:00', value: false },
      { time: '2021-10-12T14:00:00.000+02:00', value: true },
      { time: '2021-10-12T15:00:00.000+02:00', value: false },
      { time: '2021-10-13T00:00:00.000+02:00', value: true },
    ],
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 60,
    doNotSplit: true,
    maxPrice: null,
  },
  {
    test: '24 hours on',
    schedule: [
      { time: '2021-10-11T00:00:00.000+02:00', value: false },
      { time: '2021-10-11T10:00:00.000+02:00', value: true },
      { time: '2021-10-11T20:00:00.000+02:00', value: false },
      { time: '2021-10-12T10:00:00.000+02:00', value: true },
      { time: '2021-10-12T20:00:00.000+02:00', value: false },
      { time: '2021-10-13T00:00:00.000+02:00', value: true },
    ],
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 1440,
    doNotSplit: true,
    maxPrice: null,
  },
  {
    test: 'hours on > period',
    schedule: [
      { time: '2021-10-11T00:00:00.000+02:00', value: true },
      { time: '2021-10-13T00:00:00.000+02:00', value: false },
    ],
    file: 'converted-prices.json',
    from: '17:00',
    to: '22:00',
    minutesOn: 360,
    doNotSplit: true,
    maxPrice: null,
  },
  {
    test: 'period end on hour 0, 12 hours',
    expected: 'tibber-result-end-0.json',
    file: 'tibber-data-end-0.json',
    from: '16:00',
    to: '00:00',
    minutesOn: 180,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: 'period end on hour 0, 24 hours',
    expected: 'tibber-result-end-0-24h.json',
    file: 'tibber-data-end-0-24h.json',
    from: '16:00',
    to: '00:00',
    minutesOn: 180,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: 'missing end',
    expected: 'lowest-price-result-missing-end.json',
    file: 'lowest-price-input-missing-end.json',
    from: '22:00',
    to: '08:00',
    minutesOn: 180,
    doNotSplit: true,
    maxPrice: null,
  },
  {
    test: 'send/replan commands',
    expected: 'commands-result-lowest-price.json',
    file: 'converted-prices.json',
    from: '10:00',
    to: '20:00',
    minutesOn: 180,
    doNotSplit: true,
    maxPrice: 2,
  },
  {
    test: 'three days (19-07)',
    expected: 'nordpool-3-days-result.json',
    file: 'nordpool-3-days-prices.json',
    from: '19:00',
    to: '07:00',
    minutesOn: 60,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: 'bug 184',
    expected: 'lowest-price-bug184.json',
    file: 'lowest-price-bug184-input.json',
    from: '20:00',
    to: '05:00',
    minutesOn: 240,
    doNotSplit: false,
    maxPrice: null,
  },
  { test: 'bug 231 a', file: 'bug-231-input.json', from: '00:41', to: '08:41', minutesOn: 50, doNotSplit: false, maxPrice: null },
  {
    test: 'bug 231 b',
    schedule: [
      { time: '2025-11-22T00:00:00.000+01:00', value: false },
      { time: '2025-11-22T04:40:00.000+01:00', value: true },
      { time: '2025-11-22T05:30:00.000+01:00', value: false },
      { time: '2025-11-23T04:30:00.000+01:00', value: true },
      { time: '2025-11-23T05:20:00.000+01:00', value: false },
    ],
    file: 'bug-231-input.json',
    from: '04:30',
    to: '05:30',
    minutesOn: 50,
    doNotSplit: false,
    maxPrice: null,
  },
  {
    test: 'bug 231 stale context, day 1',
    file: 'bug-231-day1.json',
    from: '20:00',
    to: '05:00',
    minutesOn: 180,
    doNotSplit: true,
    maxPrice: 0.3,
  },
  {
    test: 'bug 231 stale context, day 2',
    // the test states 3 switches, the second on at 02:00 for 180 minutes
    schedule: [
      { time: '2026-01-09T16:15:00+01:00', value: false },
      { time: '2026-01-10T02:00:00.000+01:00', value: true },
      { time: '2026-01-10T05:00:00.000+01:00', value: false },
    ],
    file: 'bug-231-day2.json',
    from: '20:00',
    to: '05:00',
    minutesOn: 180,
    doNotSplit: true,
    maxPrice: 0.3,
  },
];
