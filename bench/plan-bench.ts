// cheapestWindows: medians for windows of a day, a month and a year of a 3-rule tariff
// (two time ranges, weekdays) in a DST zone, split and in one block, beside the engine's
// own `schedule` of the same window measured in the same rounds (the baseline: the
// planner works on its segments). Time per segment staying flat from a day to a year is
// the "linear in the number of price segments" claim.
import * as os from 'os';
import { cheapestWindows } from '../nodes/lib/engine/plan';
import { schedule } from '../nodes/lib/engine/price';
import { elapsedMs, median } from './measure';

const ZONE = 'Europe/London';
const DAY = 86_400_000;
const HOUR = 3_600_000;
const TARIFF = {
  id: 'B',
  name: 'bench',
  vat: 20,
  currency: 'GBP',
  rules: [
    { priority: 1, price: 0.12, time_start: '00:30', time_end: '04:30' },
    { priority: 2, price: 0.42, time_start: '16:00', time_end: '19:00', weekdays: [1, 2, 3, 4, 5] },
    { priority: 3, price: 0.28 },
  ],
};
const FROM = Date.parse('2026-01-01T12:00:00Z');
const ROUNDS = 15;

function main(): void {
  console.log(
    `cheapestWindows, 3-rule tariff, ${ZONE}, medians of ${ROUNDS} rounds (node ${process.version}, load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores)`,
  );
  console.log('  window   segments   schedule    split   one block   split/schedule   block/schedule   block µs/segment');
  for (const [label, days] of [
    ['day', 1],
    ['month', 31],
    ['year', 365],
  ] as Array<[string, number]>) {
    const to = FROM + days * DAY;
    const options = { timezone: ZONE, from: FROM, to, duration: (Math.min(days * 4, 500) * HOUR) / 4 };
    const segments = schedule(TARIFF, FROM, to, { timezone: ZONE }).length;
    const times: number[][] = [[], [], []];
    for (let r = 0; r < ROUNDS + 3; r++) {
      const t = [
        elapsedMs(() => schedule(TARIFF, FROM, to, { timezone: ZONE })),
        elapsedMs(() => cheapestWindows(TARIFF, options)),
        elapsedMs(() => cheapestWindows(TARIFF, { ...options, contiguous: true })),
      ];
      if (r >= 3) t.forEach((ms, k) => times[k].push(ms)); // the first rounds warm the JIT
    }
    const [sched, split, block] = times.map(median);
    console.log(
      `  ${label.padEnd(7)}${String(segments).padStart(10)}${sched.toFixed(3).padStart(10)} ms${split.toFixed(3).padStart(9)} ms${block.toFixed(3).padStart(9)} ms${(split / sched).toFixed(1).padStart(12)} x${(block / sched).toFixed(1).padStart(16)} x${((block * 1000) / segments).toFixed(2).padStart(18)}`,
    );
  }
  // minimum block: a 36 h window on a 1-minute grid, 35 h planned in blocks of at least 1 h
  // (cells × planned cells near the worst case), beside the split plan without a minimum
  const grid = { ...TARIFF, rules: [...TARIFF.rules, { priority: 0, price: 0.05, time_start: '02:31', time_end: '03:07' }] };
  const window = { timezone: ZONE, from: FROM, to: FROM + 36 * HOUR, duration: 35 * HOUR };
  const pair: number[][] = [[], []];
  for (let r = 0; r < 8; r++) {
    const t = [elapsedMs(() => cheapestWindows(grid, window)), elapsedMs(() => cheapestWindows(grid, { ...window, minBlock: HOUR }))];
    if (r >= 2) t.forEach((ms, k) => pair[k].push(ms));
  }
  const [plain, blocks] = pair.map(median);
  console.log(
    `  minBlock 1 h, 36 h window, 1-minute grid (${36 * 60} × ${35 * 60} cells): split ${plain.toFixed(3)} ms, with minBlock ${blocks.toFixed(1)} ms (${(blocks / plain).toFixed(0)} x)`,
  );
}

main();
