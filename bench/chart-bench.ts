// npm run bench, chart: what easy-tariff's chart output costs on a tariff at the rule limit
// whose price changes every second for 16 minutes a day (consecutive one-second windows),
// charted for 7 days with *Chart* ticked, in such a minute: the bytes of one chart (as JSON) and of a minute of them, uncut and one at every
// change (as before) against cut at MAX_CHART_POINTS and at most one a minute (now), and
// the time to make one.
import { scheduleChart, stepPoints } from '../nodes/lib/engine/reports/chart';
import { MAX_CHART_POINTS, MAX_RULES_PER_TARIFF } from '../nodes/lib/engine/common/limits';
import { schedule } from '../nodes/lib/engine/prices/price-source';
import type { Rule, Tariff } from '../nodes/lib/engine/tariff/tariff';
import { CHART_CHANGE_INTERVAL_MS } from '../nodes/lib/runtime/tariff/tariff-chart';
import { elapsedMs, median } from './measure';

const ZONE = 'Europe/London';
const NOW = Date.UTC(2026, 2, 25, 12);
const DAYS = 7;

/** Consecutive one-second windows from 12:00 at alternating prices, then a fallback: a change a second for 16 minutes a day. */
function secondsTariff(): Tariff {
  const two = (n: number) => String(n).padStart(2, '0');
  const clock = (sec: number) => `${two(Math.floor(sec / 3600))}:${two(Math.floor(sec / 60) % 60)}:${two(sec % 60)}`;
  const n = MAX_RULES_PER_TARIFF - 1;
  const rules: Rule[] = [];
  for (let k = 0; k < n; k++)
    rules.push({ priority: k, price: k % 2 ? 0.2 : 0.3, time_start: clock(43_200 + k), time_end: clock(43_200 + k + 1) });
  rules.push({ priority: n, price: 0.1 });
  return { id: 'seconds', name: 'windows', vat: 20, currency: 'GBP', rules };
}

function main(): void {
  const segments = schedule(secondsTariff(), NOW, NOW + DAYS * 86_400_000, { timezone: ZONE });
  const uncut = JSON.stringify([stepPoints(segments, (p) => p), stepPoints(segments, (p) => p * 1.2)]).length;
  const cut = JSON.stringify(scheduleChart(segments, 'GBP', 20)).length;
  const ms = median(Array.from({ length: 9 }, () => elapsedMs(() => scheduleChart(segments, 'GBP', 20))));
  const perMinute = 60_000 / CHART_CHANGE_INTERVAL_MS;
  console.log(
    `chart: ${MAX_RULES_PER_TARIFF} rules, a price change a second for 16 minutes a day (${segments.length} segments in ${DAYS} days), Chart ticked`,
  );
  console.log(
    `  one chart uncut ${(uncut / 1e6).toFixed(2)} MB, cut at ${MAX_CHART_POINTS} points a line ${(cut / 1e3).toFixed(0)} kB (${ms.toFixed(1)} ms to make)`,
  );
  console.log(
    `  a minute of changes a second: before (a chart each) ${((uncut * 60) / 1e6).toFixed(0)} MB, now (at most ${perMinute} a minute) ${((cut * perMinute) / 1e3).toFixed(0)} kB`,
  );
}

main();
