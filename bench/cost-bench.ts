// npm run bench: a year of one-minute readings (525 600 intervals) costed with the
// interface's three-rule tariff in Europe/London, against a naive baseline measured in
// the same run. Prints medians and ratios, then the heap allocated by one run for 1x
// and 4x the input (measured in a child process with a young generation large enough
// that nothing is collected during the run), and what that growth is per interval.
import { spawnSync } from 'child_process';
import * as os from 'os';
import moment from 'moment-timezone';
import { computeCost } from '../nodes/lib/engine/cost/cost';
import type { Tariff } from '../nodes/lib/engine/tariff/tariff';
import { elapsedMs, interleaved, median } from './measure';

const ZONE = 'Europe/London';
const ROUNDS = 31; // timed runs per input shape
const WARM_UP = 10; // untimed runs before them
const NAIVE_ROUNDS = 3; // the baseline takes seconds a run
const INTERVALS = 525600;
const START = Date.UTC(2023, 0, 1); // a whole year with both DST changes

const tariff: Tariff = {
  id: 'bench',
  name: 'Workday',
  vat: 20,
  currency: 'GBP',
  rules: [
    { priority: 50, price: 0.5, time_start: '09:00', time_end: '17:00', weekdays: [1, 2, 3, 4, 5] },
    { priority: 60, price: 0.6, weekdays: [1, 2, 3, 4, 5] },
    { priority: 70, price: 0.7 },
  ],
};

/** One-minute readings of a varying load; `years` repeats the year for larger inputs. */
function epochReadings(intervals: number): Array<[number, number]> {
  const rows: Array<[number, number]> = [];
  let kwh = 1000;
  for (let i = 0; i <= intervals; i++) {
    rows.push([START + i * 60000, kwh]);
    kwh += 0.005 + (0.02 * ((i * 7919) % 13)) / 13;
  }
  return rows;
}

/** The same as the archival endpoint sends them: ISO without offset, via JSON. */
function isoReadings(rows: Array<[number, number]>): Array<[string, number]> {
  return JSON.parse(JSON.stringify(rows.map(([ts, v]) => [new Date(ts).toISOString().slice(0, 19), v])));
}

/** The naive loop: moment.tz for every reading, then try the rules in priority order. */
function naiveCost(t: Tariff, rows: Array<[number, number]>, zone: string): number {
  const rules = t.rules.slice().sort((a, b) => a.priority - b.priority);
  const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
  let net = 0;
  for (let i = 1; i < rows.length; i++) {
    const local = moment.tz(rows[i - 1][0], zone);
    const weekday = local.isoWeekday();
    const minute = local.hours() * 60 + local.minutes();
    for (const r of rules) {
      if (r.weekdays && !r.weekdays.includes(weekday)) continue;
      if (r.time_start && r.time_end && !(minute >= minutes(r.time_start) && minute < minutes(r.time_end))) continue;
      net += (rows[i][1] - rows[i - 1][1]) * r.price;
      break;
    }
  }
  return net;
}

/** The floor: only reading every row and adding up the deltas, nothing else. */
function readOnly(rows: Array<[number, number]>): number {
  let sum = 0;
  for (let i = 1; i < rows.length; i++) if (rows[i][0] > rows[i - 1][0]) sum += rows[i][1] - rows[i - 1][1];
  return sum;
}

/**
 * Child process: heap allocated by one computeCost run for 1x and 4x the input, in
 * bytes, each the median of several runs. Both inputs are costed in one process and
 * warmed up together, long enough that the code running only per chunk or per price
 * change (a few hundred times a pass) is optimised too: compiling allocates as well,
 * and what the optimiser decides (which values it boxes at a price change) must be the
 * same for both sizes, or the difference would measure the JIT, not the input.
 */
function allocatedByOneRun(shape: string): number[] {
  const gc = (global as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const inputs = [1, 4].map((factor) => rowsOf(shape, factor));
  gc();
  for (let k = 0; k < 20; k++) for (const rows of inputs) computeCost(tariff, rows, { timezone: ZONE });
  return inputs.map((rows) => {
    const sizes: number[] = [];
    for (let k = 0; k < 5; k++) {
      const before = process.memoryUsage().heapUsed;
      const result = computeCost(tariff, rows, { timezone: ZONE });
      const after = process.memoryUsage().heapUsed;
      if (!(result.energy > 0)) throw new Error('no energy');
      sizes.push(after - before);
    }
    return median(sizes);
  });
}

type Shape = 'epoch' | 'iso' | 'objects' | 'naive';

function rowsOf(shape: string, factor = 1): unknown[] {
  const epoch = epochReadings(INTERVALS * factor);
  if (shape === 'iso') return isoReadings(epoch);
  if (shape === 'objects') return epoch.map(([ts, value]) => ({ ts, value }));
  return epoch;
}

/**
 * Child process: median time of one input shape, in rounds interleaved with the floor
 * so both see the same machine. One shape per process, as in use: a process costing
 * one kind of input, with the JIT tuned to it.
 */
function timeShape(shape: Shape): { ms: number; floorMs: number; net: number; firstMs: number } {
  const rows = rowsOf(shape);
  const epoch = shape === 'epoch' ? (rows as Array<[number, number]>) : epochReadings(INTERVALS);
  const run = shape === 'naive' ? () => naiveCost(tariff, epoch, ZONE) : () => computeCost(tariff, rows, { timezone: ZONE }).net;
  let net = NaN;
  const firstMs = elapsedMs(() => (net = run())); // the first call in a fresh process, before the JIT
  const rounds = shape === 'naive' ? NAIVE_ROUNDS : ROUNDS;
  for (let k = 0; k < (shape === 'naive' ? 0 : WARM_UP); k++) run(); // warm up the JIT
  const [ms, floorMs] = interleaved(rounds, [{ fn: run }, { fn: () => readOnly(epoch) }]);
  return { ms, floorMs, net, firstMs };
}

// Allocation is read off heapUsed, so nothing may be collected during the run: a young
// generation larger than the run allocates, and the JIT done before it starts.
const ALLOCATION_FLAGS = ['--expose-gc', '--no-concurrent-recompilation', '--min-semi-space-size=256', '--max-semi-space-size=256'];

function child(flags: string[], args: string[]): unknown {
  const out = spawnSync(process.execPath, [...flags, __filename, ...args], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(out.stderr);
  return JSON.parse(out.stdout);
}

function main(): void {
  const [mode, ...args] = process.argv.slice(2);
  if (mode === '--allocated') {
    process.stdout.write(JSON.stringify(allocatedByOneRun(args[0])));
    return;
  }
  if (mode === '--time') {
    process.stdout.write(JSON.stringify(timeShape(args[0] as Shape)));
    return;
  }
  const results = Object.fromEntries(
    (['epoch', 'iso', 'objects', 'naive'] as Shape[]).map((shape) => [shape, child([], ['--time', shape]) as ReturnType<typeof timeShape>]),
  );
  const check = results.naive.net;
  for (const shape of ['epoch', 'iso', 'objects'] as Shape[]) {
    if (Math.abs(results[shape].net - check) > 1e-9 * Math.abs(check))
      throw new Error(`${shape}: engine ${results[shape].net} != naive ${check}`);
  }

  const fmt = (ms: number) => `${ms.toFixed(2).padStart(9)} ms`;
  const line = (label: string, shape: Shape, note = '') =>
    console.log(
      `  ${label.padEnd(24)}${fmt(results[shape].ms)}   floor ${fmt(results[shape].floorMs)}   first ${fmt(results[shape].firstMs)}   ${note}`,
    );
  console.log(`computeCost, ${INTERVALS} one-minute intervals, 3-rule tariff, ${ZONE} (node ${process.version}, net ${check.toFixed(4)})`);
  console.log(`  medians of ${ROUNDS} runs after ${WARM_UP} warm-up runs (naive: ${NAIVE_ROUNDS}), one process per input; floor = only`);
  console.log(`  reading the same rows, measured in alternation (how fast this shared machine was then);`);
  console.log(
    `  first = the very first call of the process, JIT not warm; load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`,
  );
  line('epoch ms [ts, kWh]', 'epoch', 'target <= 10 ms');
  line('ISO strings [ts, kWh]', 'iso', 'target <= 80 ms');
  line('epoch ms { ts, value }', 'objects');
  line('naive (moment.tz each)', 'naive');
  console.log(`  ratio naive / epoch     ${(results.naive.ms / results.epoch.ms).toFixed(0).padStart(9)} x    target >= 100 x`);
  console.log(`  ratio naive / ISO       ${(results.naive.ms / results.iso.ms).toFixed(0).padStart(9)} x`);

  console.log('heap allocated by one run (no GC during it; median of 5 after a common warm-up), 1x vs 4x input:');
  for (const shape of ['epoch', 'iso']) {
    const sizes = child(ALLOCATION_FLAGS, ['--allocated', shape]) as number[];
    const perInterval = (sizes[1] - sizes[0]) / (3 * INTERVALS);
    console.log(
      `  ${shape.padEnd(5)}  1x ${(sizes[0] / 1024).toFixed(1).padStart(8)} KiB   4x ${(sizes[1] / 1024).toFixed(1).padStart(8)} KiB   growth ${perInterval.toFixed(3)} B per added interval`,
    );
  }
  console.log(
    `  (one boxed number per row would be 16 B per interval, ${((16 * INTERVALS) / 1048576).toFixed(0)} MiB a year. What grows is per price`,
  );
  console.log('  change (the walk entering a segment; segment lists per 32 days) and, for ISO, two');
  console.log("  11-character strings per distinct date (the parser's same-date range): garbage after");
  console.log('  the run, so peak memory beyond the input stays constant.)');
}

main();
