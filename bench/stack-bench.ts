// Price stacks (semantics rules 50-54): planning two days (192) and a week (672) of
// quarter-hour spot prices stacked with a time-of-use grid tariff, against power-saver's
// own Lowest Price search on the same prices (bench/peer-lowest-price.ts, given the stacked
// prices: power-saver has no fees of its own); a stacked priceAt against a plain tariff's;
// the memory a 62-day quarter-hour history takes as a list and as a walked stack. Every
// comparison in one run, interleaved rounds of batched calls, medians and ratios.
import * as os from 'os';
import { spawnSync } from 'child_process';
import { cheapestWindows } from '../nodes/lib/engine/plan/plan';
import { keptPiecesBytes } from '../nodes/lib/engine/plan/plan-segments';
import { priceAt, schedule } from '../nodes/lib/engine/prices/price-source';
import { priceList } from '../nodes/lib/engine/prices/price-list';
import { compileStack, PriceStack } from '../nodes/lib/engine/prices/price-stack';
import { zoneInfo } from '../nodes/lib/engine/time/zone-data';
import { computeCost } from '../nodes/lib/engine/cost/cost';
import { batched, interleaved, median, pairedRatio } from './measure';
import { doPlanning, getBestContinuous, getBestX, wholeDayNode } from './peer-lowest-price';

const ZONE = 'Europe/Oslo';
const Q = 15 * 60_000;
/** A Norwegian-style grid tariff: day and night energy fees, weekends at the night rate. */
const GRID = {
  id: 'grid',
  name: 'grid fees',
  vat: 25,
  currency: 'NOK',
  rules: [
    { priority: 1, price: 0.3928, time_start: '06:00', time_end: '22:00', weekdays: [1, 2, 3, 4, 5] },
    { priority: 2, price: 0.2928 },
  ],
};
const FROM = Date.parse('2026-10-24T22:00:00Z'); // Sunday 25 October 2026 00:00 in Oslo: a 25-hour day
const spot = (k: number) => Math.round((0.05 + ((k * 7919) % 1009) / 1000 - 0.15) * 1e4) / 1e4; // some negative

function stackOf(quarters: number): PriceStack {
  const list = priceList(
    Array.from({ length: quarters }, (_, k) => ({ start: FROM + k * Q, price: spot(k) })),
    { resolution: Q },
  );
  return { list, fees: GRID, addOns: 0.0891, vat: 25 };
}

/** The cost of running the slots a peer's plan switches on, one price a quarter hour: price × hours. */
const peerCost = (values: number[], on: boolean[]) => on.reduce((sum, v, k) => sum + (v ? values[k] * 0.25 : 0), 0);

/** Ours must be as cheap as the peer's on the same prices (the same plan, or an equally cheap one). */
function asGood(what: string, ours: { costPerKw: { net: number }; planned: number }, peer: number, wanted: number): void {
  if (ours.planned !== wanted || ours.costPerKw.net > peer + 1e-9 * Math.abs(peer) + 1e-12) {
    throw new Error(`${what}: ours plans ${ours.planned} ms at ${ours.costPerKw.net}, the peer's costs ${peer}`);
  }
}

/** How long each timed batch of calls lasts, µs. */
const BATCH_US = 300;

/** `peer / ours` as a person reads it. */
const times = (ours: number, peer: number) =>
  peer >= ours ? `${(peer / ours).toFixed(1)} x faster` : `${(ours / peer).toFixed(1)} x slower`;
const us = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

function planning(): void {
  console.log(
    `price stacks: quarter-hour spot prices + a 2-rule grid tariff + add-ons, ${ZONE} (a 25-hour day in the window), a sixth of the window to run (node ${process.version}, load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores)\n` +
      `  the same question on the same prices: ours is cheapestWindows(stack, window), from the stack and the window to the plan the node sends ` +
      `(the window's stacked prices, the search, the block's priced pieces and slots, run time, cost per kW net and gross, average price, the cost of starting now and the saving); ` +
      `power-saver's search gets the stacked prices already in an array, one a quarter hour, and the number of slots, and returns one on/off flag a slot (no times, no cost). ` +
      `Batches of calls of about ${BATCH_US} µs (a slower call: fewer calls), each comparison a pair timed in rounds of its own, both sides every round, the order turned every round, after 20 warm-up rounds; ` +
      `no GC forced while timing (each side's garbage is collected as it comes, in its own batches: a full GC between rounds made power-saver's search some 25 % slower here); ` +
      `medians of the time a call, and the median of each round's ratio (paired)`,
  );
  for (const quarters of [192, 672]) {
    const stack = stackOf(quarters);
    const window = { timezone: ZONE, from: FROM, to: FROM + quarters * Q, duration: (quarters / 6) * Q };
    const block = { ...window, contiguous: true };
    // the peer searches the same stacked prices, one a quarter hour (schedule's, cut per quarter)
    const values: number[] = [];
    for (const e of schedule(stack, window.from, window.to, window)) for (let t = e.from; t < e.to; t += Q) values.push(e.price as number);
    const count = quarters / 6;
    asGood(`split, ${quarters}`, cheapestWindows(stack, window), peerCost(values, getBestX(values, count)), window.duration);
    asGood(`one block, ${quarters}`, cheapestWindows(stack, block), peerCost(values, getBestContinuous(values, count)), window.duration);
    const priceData = values.map((value, k) => ({ value, start: new Date(FROM + k * Q).toISOString() }));
    const node = wholeDayNode(count);
    const small = quarters <= 192;
    // each comparison a pair of its own: the split searches' garbage (power-saver's getBestX makes ~100 kB a call) is not collected in the block's batches
    const blockPair = batched(small ? 200 : 120, [() => cheapestWindows(stack, block), () => getBestContinuous(values, count)], {
      warmup: 20,
      batchUs: BATCH_US,
    });
    const splitPair = batched(small ? 100 : 60, [() => cheapestWindows(stack, window), () => getBestX(values, count)], {
      warmup: 10,
      batchUs: BATCH_US,
    });
    const [oursBlock, peerBlock] = blockPair.medians;
    const [oursSplit, peerSplit] = splitPair.medians;
    const fromList = batched(small ? 40 : 20, [() => cheapestWindows(stack, window), () => doPlanning(node, priceData)], {
      warmup: 3,
      batchUs: BATCH_US,
    });
    const [oursAgain, peerNode] = fromList.medians;
    console.log(
      `  ${quarters} quarter hours (${count} to run):\n` +
        `    one block: ours ${us(oursBlock)} µs a plan, power-saver's getBestContinuous ${us(peerBlock)} µs: ours ${times(oursBlock, peerBlock)} ` +
        `(paired rounds ${pairedRatio(blockPair, 1, 0).toFixed(1)} x; goal: at least 10 x; ${blockPair.calls[0]} and ${blockPair.calls[1]} calls a batch)\n` +
        `    split: ours ${us(oursSplit)} µs a plan, its getBestX ${us(peerSplit)} µs: ours ${times(oursSplit, peerSplit)} (paired rounds ${pairedRatio(splitPair, 1, 0).toFixed(1)} x; goal: at least 10 x)\n` +
        `    its planning from the list with the slots' start times (doPlanning, split) ${(peerNode / 1000).toFixed(2)} ms against ours ${(oursAgain / 1000).toFixed(3)} ms: ours ${times(oursAgain, peerNode)}; ` +
        `the plans as cheap as the peer's (checked)`,
    );
  }
}

/** priceAt of the stack against priceAt of the grid tariff alone, at the same instants. */
function pricing(): void {
  const stack = stackOf(192);
  const instants = Array.from({ length: 1000 }, (_, k) => FROM + ((k * 7_777_777) % (192 * Q)));
  const options = { timezone: ZONE };
  const run = (source: unknown) => () => {
    let sum = 0;
    for (const at of instants) sum += (priceAt(source, at, options) as { price: number }).price;
    return sum;
  };
  // each sample is 1,000 calls (some 0.4 ms): interleaved samples, as the other comparisons' batches
  const [plainMs, stackedMs] = interleaved(200, [{ fn: run(GRID) }, { fn: run(stack) }]);
  const [plain, stacked] = [plainMs, stackedMs].map((ms) => (ms * 1000) / instants.length);
  console.log(
    `  priceAt, 1,000 instants in a scattered order (no two in a row in the same hour): the grid tariff alone ${plain.toFixed(3)} µs a call, the stack ${stacked.toFixed(3)} µs: ${(stacked / plain).toFixed(2)} x (goal: at most 1.5 x)`,
  );
}

/** computeCost of a month of one-minute readings: the stack (a price change every quarter hour) against the grid tariff alone. */
function costing(): void {
  const quarters = 31 * 96;
  const stack = stackOf(quarters);
  const readings = Array.from({ length: quarters * 15 + 1 }, (_, k) => [FROM + k * 60_000, k * 0.01]);
  const options = { timezone: ZONE };
  const [plain, stacked] = batched(15, [() => computeCost(GRID, readings, options), () => computeCost(stack, readings, options)], {
    warmup: 3,
    batchUs: 20_000,
    warmCalls: 20,
  }).medians.map((us) => us / 1000);
  console.log(
    `  computeCost, a month of one-minute readings (${readings.length}): the grid tariff alone ${plain.toFixed(1)} ms, the stack (${quarters} quarter hours) ${stacked.toFixed(1)} ms: ${(stacked / plain).toFixed(2)} x`,
  );
}

const gc = (globalThis as { gc?: () => void }).gc;
function heapUsed(): number {
  for (let k = 0; k < 3; k++) gc?.();
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
}

/**
 * A 62-day quarter-hour history (5,952 entries): the list, then the stack once every slot is
 * met (a cost walk over it); each measured in a process of its own, before any timing there
 * (after the timings V8 had dropped the bytecode of functions not run for a few collections:
 * the heap read before the list held bytes the heap after it did not, a list of -330 kB).
 */
function memory(): void {
  const runs: HistoryBytes[] = [];
  for (let k = 0; k < MEMORY_RUNS; k++) {
    const child = spawnSync(process.execPath, ['--expose-gc', '--no-flush-bytecode', __filename, 'memory'], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`the memory measure failed: ${child.stderr}`);
    runs.push(JSON.parse(child.stdout) as HistoryBytes);
  }
  const range = (pick: (r: HistoryBytes) => number, unit: number, digits: number) => {
    const xs = runs.map(pick).sort((x, y) => x - y);
    return `${(median(xs) / unit).toFixed(digits)} (${(xs[0] / unit).toFixed(digits)}-${(xs[xs.length - 1] / unit).toFixed(digits)})`;
  };
  const { feeRules, visits, keptBytes, piecesBytes } = runs[0];
  console.log(
    `  memory of a 62-day quarter-hour history (${HISTORY_QUARTERS} entries, every price different; medians of ${MEMORY_RUNS} processes, their range in brackets): the list ${range((r) => r.listBytes, 1024, 0)} kB; ` +
      `the stack with every slot met (a cost walk over the 62 days, ${feeRules} fee rules) ${range((r) => r.stackBytes, 1024, 0)} kB; ` +
      `a plan on it keeps the stack's walk over the list for the zone (${visits} visits, ${(keptBytes / 1024).toFixed(0)} kB) and its pieces, summed (${(piecesBytes / 1024).toFixed(0)} kB); ` +
      `in all ${range((r) => r.stackBytes + r.keptBytes + r.piecesBytes, 1024 * 1024, 2)} MB (goal: at most 2 MB)`,
  );
}

const HISTORY_QUARTERS = 62 * 96;

/** In the child: the history measured once, after the same work on two days (the code it compiles is not what the history keeps). */
function measureHistory(): void {
  if (!gc) throw new Error('run with --expose-gc');
  const warm: PriceStack = { list: stackOf(192).list, fees: GRID, addOns: 0.0891, vat: 25 };
  computeCost(
    warm,
    [
      [FROM, 0],
      [FROM + 192 * Q, 1],
    ],
    { timezone: ZONE },
  );
  cheapestWindows(warm, { timezone: ZONE, from: FROM, to: FROM + 192 * Q, duration: 4 * 3_600_000, contiguous: true });
  process.stdout.write(JSON.stringify(historyBytes(HISTORY_QUARTERS)));
}

const MEMORY_RUNS = 5;

interface HistoryBytes {
  listBytes: number;
  stackBytes: number;
  keptBytes: number;
  piecesBytes: number;
  feeRules: number;
  visits: number;
}

/** One 62-day history built, measured and let go: the heap it adds as a list, then as a stack; what a plan keeps, by its arrays. */
function historyBytes(quarters: number): HistoryBytes {
  // every price different (the most slots a stack can need: real lists repeat prices)
  const entries = Array.from({ length: quarters }, (_, k) => ({ start: FROM + k * Q, price: spot(k) + k / 1e7 }));
  const before = heapUsed();
  const list = priceList(entries, { resolution: Q });
  const listBytes = heapUsed() - before;
  const stack: PriceStack = { list, fees: GRID, addOns: 0.0891, vat: 25 };
  // the readings go before the heap is read: only what the stack keeps is counted
  const feeRules = computeCost(
    stack,
    Array.from({ length: quarters + 1 }, (_, k) => [FROM + k * Q, k]),
    { timezone: ZONE },
  ).byRule.length;
  const stackBytes = heapUsed() - before;
  // a plan keeps the stack's walk over the whole list for its zone (three typed arrays) and its usable pieces, summed (eight)
  const window = { timezone: ZONE, from: FROM, to: FROM + quarters * Q, duration: 4 * 3_600_000, contiguous: true };
  if (cheapestWindows(stack, window).planned !== window.duration) throw new Error('unreachable');
  const kept = compileStack(stack).listVisits!(zoneInfo(ZONE))!;
  const keptBytes = kept.starts.byteLength + kept.slots.byteLength + kept.prices.byteLength;
  if (list.length !== quarters || (stack as { list: unknown }).list !== list) throw new Error('unreachable');
  return { listBytes, stackBytes, keptBytes, piecesBytes: keptPiecesBytes(kept), feeRules, visits: kept.length };
}

if (process.argv[2] === 'memory') measureHistory();
else {
  planning();
  pricing();
  costing();
  memory();
}
