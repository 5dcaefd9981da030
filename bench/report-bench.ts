// npm run bench (reports): what the generator and the bill cost. A year of one-minute
// readings costed with splitBy on a generator that runs 5 minutes of every quarter hour,
// against the same without splitBy, and a tariff whose rule reads that input with and
// without (ratios, measured in alternation: the cost is per sensor change, not per row); compareTariffs of the
// demo account's 5 tariffs against 5 computeCost calls; stream mode's generator report:
// CPU per sensor value and reading, and the bytes of its stored state.
import { compareTariffs } from '../nodes/lib/engine/reports/compare';
import { computeCost } from '../nodes/lib/engine/cost/cost';
import { sensorRuns } from '../nodes/lib/engine/reports/sensor-runs';
import { StreamGenerator } from '../nodes/lib/runtime/generator/stream-generator';
import { DEMO_TARIFFS } from '../sim/demo-data';
import { BASELINE_TARIFF, interleaved } from './measure';

const ZONE = 'Europe/London';
const START = Date.UTC(2023, 0, 1);
const MINUTES = 525_600;
const ROUNDS = 15;

const readings: Array<[number, number]> = [];
for (let i = 0, kwh = 1000; i <= MINUTES; i++, kwh += 0.01 + (0.02 * (i % 7)) / 7) readings.push([START + i * 60_000, kwh]);
const generator: Array<[number, number]> = [];
for (let t = START; t <= START + MINUTES * 60_000; t += 5 * 60_000) generator.push([t, (t / 60_000) % 15 < 5 ? 1 : 0]);
const sensors = { gw: { gen: generator } };
const tariffs = DEMO_TARIFFS.map((t) =>
  JSON.parse(
    JSON.stringify(t)
      .replace(/"DEMO"/g, '"gw"')
      .replace(/"sensor_id":"1"/g, '"sensor_id":"gen"'),
  ),
);

const genset = tariffs.find((t) => t.id === 'DEMO-GENERATOR');
const [plain, split, rule, ruleSplit] = interleaved(ROUNDS, [
  { fn: () => computeCost(BASELINE_TARIFF, readings, { timezone: ZONE, sensors }) },
  { fn: () => computeCost(BASELINE_TARIFF, readings, { timezone: ZONE, sensors, splitBy: { gatewayId: 'gw', sensorId: 'gen' } }) },
  { fn: () => computeCost(genset, readings, { timezone: ZONE, sensors }) },
  { fn: () => computeCost(genset, readings, { timezone: ZONE, sensors, splitBy: { gatewayId: 'gw', sensorId: 'gen' } }) },
]);
const [each, compared] = interleaved(5, [
  { fn: () => tariffs.map((t) => computeCost(t, readings, { timezone: ZONE, sensors })) },
  { fn: () => compareTariffs(tariffs, readings, { timezone: ZONE, sensors }) },
]);
const [runs] = interleaved(ROUNDS, [{ fn: () => sensorRuns(generator, START, START + MINUTES * 60_000) }]);

// stream: a sensor value and a reading every minute for a month
const saved: number[] = [];
let now = 0;
const g = new StreamGenerator(
  { ref: { gatewayId: 'gw', sensorId: 'gen' }, on: 1 },
  ZONE,
  {
    load: async () => undefined,
    save: async (s) => void saved.push(JSON.stringify(s).length),
  },
  () => now,
);
const MONTH = 31 * 24 * 60;
const t0 = process.hrtime.bigint();
for (let i = 1; i <= MONTH; i++) {
  now = i * 60_000;
  g.record(START + i * 60_000, i % 15 < 5 ? 1 : 0);
  g.addChange(START + (i - 1) * 60_000, { energy: 0.01, net: 0.01, gross: 0.012, unpricedEnergy: 0, resets: 0 });
}
const perEventUs = Number(process.hrtime.bigint() - t0) / 1e3 / (2 * MONTH);

const ms = (x: number) => `${x.toFixed(2).padStart(8)} ms`;
console.log(`reports: the generator and the bill (node ${process.version}), medians, measured in alternation`);
console.log(`  computeCost, a year of minutes            ${ms(plain)}`);
console.log(
  `  the same with splitBy (generator input)   ${ms(split)}   ratio ${(split / plain).toFixed(2)} x (its ${generator.length} samples walked)`,
);
console.log(`  a tariff with a rule on that input        ${ms(rule)}   (the same samples walked for the price)`);
console.log(`  that tariff with splitBy on its input     ${ms(ruleSplit)}   ratio ${(ruleSplit / rule).toFixed(2)} x`);
console.log(`  5 tariffs: 5 x computeCost                ${ms(each)}`);
console.log(`  5 tariffs: compareTariffs                 ${ms(compared)}   ratio ${(compared / each).toFixed(2)} x`);
console.log(`  sensorRuns, a year of 5-minute samples    ${ms(runs)}   (${generator.length} samples)`);
console.log(`  stream generator report: ${perEventUs.toFixed(2)} µs per sensor value or reading (a month of minutes)`);
console.log(
  `  its stored state: ${Math.max(...saved)} bytes, saved ${saved.length} times in a month of minutes (at most every 5 minutes: ${((Math.max(...saved) * saved.length) / MONTH).toFixed(0)} B per minute)`,
);
