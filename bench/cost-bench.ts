// npm run bench: a year of one-minute readings (525 600 intervals) costed with the
// interface's three-rule tariff in Europe/London, against a naive baseline measured in
// the same run. Prints medians and ratios, then the heap allocated by one run for 1x
// and 4x the input (measured in a child process with a young generation large enough
// that nothing is collected during the run).
import { spawnSync } from 'child_process';
import * as os from 'os';
import moment from 'moment-timezone';
import { computeCost } from '../nodes/lib/cost';
import type { Tariff } from '../nodes/lib/tariff';

const ZONE = 'Europe/London';
const INTERVALS = 525600;
const START = Date.UTC(2023, 0, 1); // a whole year with both DST changes

const tariff: Tariff = {
  id: 'bench', name: 'Workday', vat: 20, currency: 'GBP',
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
    kwh += 0.005 + 0.02 * ((i * 7919) % 13) / 13;
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

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function timeMs(runs: number, fn: () => unknown): number {
  const times: number[] = [];
  for (let k = 0; k < runs; k++) {
    const t0 = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

/** Child process: heap allocated by one computeCost run, in bytes. */
function allocatedByOneRun(factor: number, shape: string): number {
  const gc = (global as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const epoch = epochReadings(INTERVALS * factor);
  const rows = shape === 'iso' ? isoReadings(epoch) : epoch;
  gc();
  for (let k = 0; k < 10; k++) computeCost(tariff, rows, { timezone: ZONE }); // warm up the JIT
  const before = process.memoryUsage().heapUsed;
  const result = computeCost(tariff, rows, { timezone: ZONE });
  const after = process.memoryUsage().heapUsed;
  if (!(result.energy > 0)) throw new Error('no energy');
  return after - before;
}

function main(): void {
  const child = process.argv.indexOf('--allocated');
  if (child >= 0) {
    process.stdout.write(String(allocatedByOneRun(Number(process.argv[child + 1]), process.argv[child + 2])));
    return;
  }
  const epoch = epochReadings(INTERVALS);
  const iso = isoReadings(epoch);
  const objects = epoch.map(([ts, value]) => ({ ts, value }));
  const cost = (rows: unknown[]) => computeCost(tariff, rows, { timezone: ZONE });

  const check = naiveCost(tariff, epoch, ZONE);
  for (const rows of [epoch, iso, objects]) {
    const net = cost(rows).net;
    if (Math.abs(net - check) > 1e-9 * Math.abs(check)) throw new Error(`engine ${net} != naive ${check}`);
  }
  for (let k = 0; k < 5; k++) { cost(epoch); cost(iso); cost(objects); } // warm up the JIT

  const epochMs = timeMs(21, () => cost(epoch));
  const isoMs = timeMs(11, () => cost(iso));
  const objectMs = timeMs(11, () => cost(objects));
  const naiveMs = timeMs(3, () => naiveCost(tariff, epoch, ZONE));
  const floorMs = timeMs(21, () => readOnly(epoch));

  const fmt = (ms: number) => `${ms.toFixed(2).padStart(9)} ms`;
  console.log(`computeCost, ${INTERVALS} one-minute intervals, 3-rule tariff, ${ZONE} (node ${process.version}, net ${check.toFixed(4)})`);
  console.log(`  medians; load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`);
  console.log(`  epoch ms [ts, kWh]     ${fmt(epochMs)}   target <= 10 ms`);
  console.log(`  ISO strings [ts, kWh]  ${fmt(isoMs)}   target <= 80 ms`);
  console.log(`  epoch ms { ts, value } ${fmt(objectMs)}`);
  console.log(`  naive (moment.tz each) ${fmt(naiveMs)}`);
  console.log(`  floor: read rows only  ${fmt(floorMs)}   (how fast this machine is right now)`);
  console.log(`  ratio naive / epoch    ${(naiveMs / epochMs).toFixed(0).padStart(9)} x    target >= 100 x`);
  console.log(`  ratio naive / ISO      ${(naiveMs / isoMs).toFixed(0).padStart(9)} x`);

  console.log('heap allocated by one run (no GC during it), 1x vs 4x input:');
  for (const shape of ['epoch', 'iso']) {
    const sizes = [1, 4].map((factor) => {
      const out = spawnSync(process.execPath, ['--expose-gc', '--no-concurrent-recompilation', '--min-semi-space-size=256', '--max-semi-space-size=256', __filename, '--allocated', String(factor), shape], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(out.stderr);
      return Number(out.stdout);
    });
    console.log(`  ${shape.padEnd(5)}  1x ${(sizes[0] / 1024).toFixed(1).padStart(8)} KiB   4x ${(sizes[1] / 1024).toFixed(1).padStart(8)} KiB   (input 1x ~${((INTERVALS * 16) / 1048576).toFixed(0)} MiB of values alone)`);
  }
}

main();
