// cheapestWindows: medians for windows of a day, a month and a year of a 3-rule tariff
// (two time ranges, weekdays) in a DST zone, split and in one block, beside the engine's
// own `schedule` of the same window measured in the same rounds (the baseline: the
// planner works on its segments). Time per segment staying flat from a day to a year is
// the "linear in the number of price segments" claim.
import * as os from 'os';
import { cheapestWindows, hours } from '../nodes/lib/engine/plan/plan';
import { MAX_PLAN_WORK, MAX_RULES_PER_TARIFF } from '../nodes/lib/engine/common/limits';
import { savingOffWindows } from '../nodes/lib/engine/plan/plan-saving';
import { schedule } from '../nodes/lib/engine/prices/price-source';
import { cheapestBlock, cheapestPieces } from '../nodes/lib/engine/plan/plan-split';
import { UsablePieces } from '../nodes/lib/engine/plan/plan-pieces';
import { elapsedMs, interleaved, median } from './measure';
import { doPlanning, getBestContinuous, getBestX, wholeDayNode } from './peer-lowest-price';

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
  blockBench();
  peerBench();
}

/** `peer / ours` as a person reads it: "12.3 x faster", or "2.0 x slower" below 1. */
function against(ours: number, peer: number): string {
  return peer >= ours ? `${(peer / ours).toFixed(1)} x faster` : `${(ours / peer).toFixed(1)} x slower`;
}

/**
 * Quarter-hour prices as power-saver gets them (one price a slot, all different, for each
 * weekday) and as a tariff (one rule a slot): our cheapestWindows against the peer's
 * Lowest Price search (bench/peer-lowest-price.ts) on 24, 96 and 672 slots, a sixth of
 * the window to run, split and in one block, medians of interleaved rounds. Ours starts
 * from the tariff and the window (checks the compiled tariff, walks its schedule, builds
 * the result); the peer's search from a list of prices, its planning from the list with
 * each slot's start time. The goal (issue 29): the week at least 10 x the peer's search.
 */
function peerBench(): void {
  const SLOT = 15 * 60_000;
  const priceOf = (k: number) => 0.05 + ((k * 7919) % 1009) / 2000;
  const clock = (quarter: number) =>
    `${String(Math.floor(quarter / 4) % 24).padStart(2, '0')}:${String((quarter % 4) * 15).padStart(2, '0')}`;
  const rules: Array<Record<string, unknown>> = [];
  for (let k = 0; k < 672; k++) {
    // 2026-01-05 is a Monday: slot k is weekday 1 + ⌊k / 96⌋, quarter k % 96
    rules.push({
      priority: k,
      price: priceOf(k),
      time_start: clock(k % 96),
      time_end: clock((k % 96) + 1),
      weekdays: [1 + Math.floor(k / 96)],
    });
  }
  const tariff = { id: 'q', name: 'quarter hours', vat: 0, currency: 'EUR', rules };
  const from = Date.parse('2026-01-05T00:00:00Z');
  const rounds = (slots: number) => (slots > 96 ? 100 : 300);
  console.log(
    `  against power-saver 5.2.2's Lowest Price, quarter-hour prices (${rules.length}-rule tariff, UTC), a sixth of the window to run, medians of ${rounds(672)}-${rounds(24)} interleaved rounds (the peer's planning apart, in half as many):`,
  );
  let week = '';
  for (const slots of [24, 96, 672]) {
    const values = Array.from({ length: slots }, (_, k) => priceOf(k));
    const count = slots / 6;
    const window = { timezone: 'UTC', from, to: from + slots * SLOT, duration: count * SLOT };
    const priceData = values.map((value, k) => ({ value, start: new Date(from + k * SLOT).toISOString() }));
    const node = wholeDayNode(count);
    // the searches in one set of rounds; the peer's planning (10-20 ms of luxon, leaving the
    // caches cold for whatever runs next) in another, beside our split plan run after it
    const [ours, peer, oursBlock, peerBlock] = interleaved(rounds(slots), [
      { fn: () => cheapestWindows(tariff, window) },
      { fn: () => getBestX(values, count) },
      { fn: () => cheapestWindows(tariff, { ...window, contiguous: true }) },
      { fn: () => getBestContinuous(values, count) },
    ]);
    const [oursAfterPlanning, peerNode] = interleaved(rounds(slots) / 2, [
      { fn: () => cheapestWindows(tariff, window) },
      { fn: () => doPlanning(node, priceData) },
    ]);
    console.log(
      `    ${String(slots).padStart(3)} slots: split ${ours.toFixed(3)} ms; the peer's search (getBestX) ${peer.toFixed(3)} ms: ours ${against(ours, peer)}; ` +
        `its planning with the slots' times (doPlanning) ${peerNode.toFixed(3)} ms against ${oursAfterPlanning.toFixed(3)} ms: ${against(oursAfterPlanning, peerNode)}; ` +
        `one block ${oursBlock.toFixed(3)} ms, the peer's (getBestContinuous) ${peerBlock.toFixed(3)} ms: ours ${against(oursBlock, peerBlock)}`,
    );
    if (slots === 672) {
      // our searches alone, on the pieces the plan searches (the schedule's, all priced), beside the peer's
      const pieces = schedule(tariff, window.from, window.to, window).map((p) => ({ from: p.from, to: p.to, price: p.price! }));
      const [split, block, peerSplit, peerOne] = interleaved(rounds(slots), [
        { fn: () => cheapestPieces(pieces, window.duration) },
        { fn: () => cheapestBlock(UsablePieces.of(pieces).window(), window.duration) },
        { fn: () => getBestX(values, count) },
        { fn: () => getBestContinuous(values, count) },
      ]);
      week =
        `  week (672 slots): split ${ours.toFixed(3)} ms, the peer's search ${peer.toFixed(3)} ms: ${against(ours, peer)} (goal: at least 10 x, against the search alone); ` +
        `its planning ${peerNode.toFixed(3)} ms: ${against(oursAfterPlanning, peerNode)}; one block ${oursBlock.toFixed(3)} ms, the peer's ${peerBlock.toFixed(3)} ms: ${against(oursBlock, peerBlock)}\n` +
        `    the searches alone (cheapestPieces, cheapestBlock on the week's 672 pieces): split ${split.toFixed(3)} ms against ${peerSplit.toFixed(3)} ms: ${against(split, peerSplit)}; ` +
        `one block ${block.toFixed(3)} ms against ${peerOne.toFixed(3)} ms: ${against(block, peerOne)}`;
    }
  }
  console.log(week);
}

function ruleLimitTariff() {
  const clock = (quarter: number) =>
    `${String(Math.floor(quarter / 4) % 24).padStart(2, '0')}:${String((quarter % 4) * 15).padStart(2, '0')}`;
  const rules: Array<Record<string, unknown>> = [];
  for (let i = 0; i < MAX_RULES_PER_TARIFF - 1; i++) {
    const quarter = (i * 7) % 96;
    rules.push({
      priority: i,
      price: 0.05 + ((i * 37) % 101) / 200,
      time_start: clock(quarter),
      time_end: clock(quarter + 1),
      weekdays: [1 + (i % 7)],
    });
  }
  rules.push({ priority: MAX_RULES_PER_TARIFF, price: 0.3 });
  return { id: 'limit', name: 'rule limit', vat: 20, currency: 'EUR', rules };
}

/**
 * The minimum-block search at its worst accepted size (the work just under MAX_PLAN_WORK)
 * on a tariff at the rule limit over the longest window a message may ask for (8 days),
 * from an instant off every grid, beside the split plan of the same window (baseline).
 */
function blockBench(): void {
  const tariff = ruleLimitTariff();
  const from = Date.parse('2026-03-23T10:07:13.456Z'); // a Monday, DST a week later in London
  // the longest duration (in steps of the grid) that is still accepted: refusals cost nothing, so search
  // (durations k·step + odd: an odd duration adds residue classes, the search's costliest shape)
  const worst = (to: number, minBlock: number, step: number, odd = 0): number => {
    let lo = step + odd;
    let hi = Math.floor((to - from) / step) * step + odd;
    while (hi - lo > step) {
      const mid = Math.round((lo + hi - 2 * odd) / 2 / step) * step + odd;
      try {
        cheapestWindows(tariff, { timezone: ZONE, from, to, duration: mid, minBlock });
        lo = mid;
      } catch {
        hi = mid;
      }
    }
    return lo;
  };
  const longest = worst(from + 8 * DAY, HOUR, 15 * 60_000);
  const fine = worst(from + DAY, 61 * 60_000, 60_000);
  const sevens = worst(from + 8 * DAY, 7 * 60_000, 60_000, 59_542);
  const cases: Array<{ label: string; to: number; duration: number; minBlock: number }> = [
    { label: `8 days, 1-min grid, ${hours(sevens)} in blocks >= 7 min`, to: from + 8 * DAY, duration: sevens, minBlock: 7 * 60_000 },
    { label: `8 days, 15-min grid, ${hours(longest)} in blocks >= 1 h`, to: from + 8 * DAY, duration: longest, minBlock: HOUR },
    { label: `24 h, 1-min grid, ${hours(fine)} in blocks >= 1 h 1 min`, to: from + DAY, duration: fine, minBlock: 61 * 60_000 },
    { label: 'rolling 24 h from now, 3 h in blocks >= 1 h', to: from + DAY, duration: 3 * HOUR, minBlock: HOUR },
  ];
  console.log(
    `  minimum block: ${tariff.rules.length}-rule tariff, window from ${new Date(from).toISOString()}, work cap ${MAX_PLAN_WORK.toLocaleString('en-US')} steps`,
  );
  let worstAccepted = { label: '', ms: 0, ratio: 0 };
  const accepted = (label: string, ms: number, split: number) => {
    if (ms > worstAccepted.ms) worstAccepted = { label, ms, ratio: ms / split };
  };
  for (const c of cases) {
    const window = { timezone: ZONE, from, to: c.to, duration: c.duration };
    const [split, blocks] = interleaved(12, [
      { fn: () => cheapestWindows(tariff, window) },
      { fn: () => cheapestWindows(tariff, { ...window, minBlock: c.minBlock }) },
    ]);
    console.log(
      `    ${c.label.padEnd(52)} split ${split.toFixed(2).padStart(6)} ms, with minimum block ${blocks.toFixed(1).padStart(6)} ms (${(blocks / split).toFixed(1)} x)`,
    );
    accepted(`cheapestWindows ${c.label}`, blocks, split);
  }
  // beyond the cap: refused before any work (a minimum block 7 s off the hourly grid)
  const refused = elapsedMs(() => {
    try {
      cheapestWindows(tariff, { timezone: ZONE, from, to: from + 8 * DAY, duration: 100 * HOUR, minBlock: HOUR + 7000 });
    } catch {
      // the RangeError saying why is the point
    }
  });
  console.log(`    refused (1-s grid, 8 days, 100 h): ${refused.toFixed(2)} ms to say so`);
  // switching off to save: the same tariff and window; with a recovery percentage the lattice is one minute
  const saving = [
    { label: 'off <= 2 h, on >= 15 min (15-min grid)', maxOffInRow: 2 * HOUR, minOnBetween: 15 * 60_000 },
    { label: 'off <= 5 h, on >= 1 min (1-min grid)', maxOffInRow: 5 * HOUR },
    { label: 'off <= 2 h, recovery 50 % <= 1 h (1-min grid)', maxOffInRow: 2 * HOUR, recoveryPercent: 50, recoveryMax: HOUR },
    { label: 'off 40 min-2 h, on >= 15 min (5-min grid)', maxOffInRow: 2 * HOUR, minOffInRow: 40 * 60_000, minOnBetween: 15 * 60_000 },
  ];
  for (const c of saving) {
    const window = { timezone: ZONE, from, to: from + 8 * DAY };
    const [split, off] = interleaved(12, [
      { fn: () => cheapestWindows(tariff, { ...window, duration: 24 * HOUR }) },
      { fn: () => savingOffWindows(tariff, { ...window, ...c }) },
    ]);
    console.log(
      `    savingOffWindows, 8 days, ${c.label.padEnd(44)} ${off.toFixed(1).padStart(6)} ms (${(off / split).toFixed(1)} x the split plan)`,
    );
    accepted(`savingOffWindows, 8 days, ${c.label}`, off, split);
  }
  console.log(
    `  worst accepted: ${worstAccepted.label}: ${worstAccepted.ms.toFixed(1)} ms, ${worstAccepted.ratio.toFixed(0)} x the split plan of the same window (budget 100 ms here)`,
  );
}

main();
