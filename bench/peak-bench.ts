// npm run bench (peaks): a year of one-minute readings (525 600 intervals) through
// demandWindows and monthlyPeaks, against computeCost of the same readings with the
// interface's 3-rule tariff, measured in alternation in the same run (medians, ratios);
// and the largest call accepted, MAX_DEMAND_WINDOWS windows.
import { computeCost } from '../nodes/lib/engine/cost/cost';
import { demandWindows } from '../nodes/lib/engine/peak/demand';
import { monthlyPeaks } from '../nodes/lib/engine/peak/monthly-peaks';
import { MAX_DEMAND_WINDOWS } from '../nodes/lib/engine/common/limits';
import { BASELINE_TARIFF, interleaved } from './measure';

const ZONE = 'Europe/London';
const START = Date.UTC(2023, 0, 1); // a whole year with both clock changes
const MINUTES = 525_600;
const ROUNDS = 15;

const readings: Array<[number, number]> = [];
for (let i = 0, kwh = 1000; i <= MINUTES; i++, kwh += 0.005 + (0.02 * ((i * 7919) % 13)) / 13) readings.push([START + i * 60_000, kwh]);
const iso = readings.map(([t, v]) => [new Date(t).toISOString().slice(0, 19), v]); // as the archive sends them

const opts = { timezone: ZONE };
const peaksOf = (minutes: 15 | 30 | 60, rows: unknown[]) =>
  monthlyPeaks(demandWindows(rows, { timezone: ZONE, minutes }), { timezone: ZONE, top: 3, distinctDays: true });
const windows15 = demandWindows(readings, { timezone: ZONE, minutes: 15 });

const [cost, w15, w60, p15, p15w, isoCost, isoP15] = interleaved(ROUNDS, [
  { fn: () => computeCost(BASELINE_TARIFF, readings, opts) },
  { fn: () => demandWindows(readings, { timezone: ZONE, minutes: 15 }) },
  { fn: () => demandWindows(readings, { timezone: ZONE, minutes: 60 }) },
  { fn: () => peaksOf(15, readings) },
  {
    fn: () =>
      monthlyPeaks(windows15, {
        timezone: ZONE,
        top: 3,
        distinctDays: true,
        when: { time_start: '17:00', time_end: '20:00', weekdays: [1, 2, 3, 4, 5] },
      }),
  },
  { fn: () => computeCost(BASELINE_TARIFF, iso, opts) },
  { fn: () => peaksOf(15, iso) },
]);
const [largest] = interleaved(5, [
  { fn: () => demandWindows([], { timezone: ZONE, minutes: 15, from: START, to: START + (MAX_DEMAND_WINDOWS - 200) * 15 * 60_000 }) },
]);

const ms = (x: number) => `${x.toFixed(2).padStart(8)} ms`;
const ratio = (x: number, base: number) => `ratio ${(x / base).toFixed(2)} x`;
console.log(`peaks: maximum demand from a year of one-minute readings (node ${process.version}), medians, measured in alternation`);
console.log(`  computeCost (3-rule tariff), the baseline           ${ms(cost)}`);
console.log(`  demandWindows, 15 minutes (${windows15.length} windows)          ${ms(w15)}   ${ratio(w15, cost)}`);
console.log(`  demandWindows, 60 minutes                           ${ms(w60)}   ${ratio(w60, cost)}`);
console.log(`  demandWindows 15 + monthlyPeaks (top 3, one a day)  ${ms(p15)}   ${ratio(p15, cost)}`);
console.log(`  monthlyPeaks alone, with when (17-20 h, Mon-Fri)    ${ms(p15w)}   ${ratio(p15w, cost)}`);
console.log(`  ISO readings: computeCost                           ${ms(isoCost)}`);
console.log(`  ISO readings: demandWindows 15 + monthlyPeaks       ${ms(isoP15)}   ${ratio(isoP15, isoCost)}`);
console.log(`  the largest call accepted (${MAX_DEMAND_WINDOWS - 200} windows, no readings) ${ms(largest)}`);
