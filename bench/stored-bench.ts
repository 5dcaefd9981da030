// npm run bench (stored state at start): easy-cost's stream mode restoring its totals at
// deploy from what the node itself writes (128 meters, their share of the 128 stored
// readings) and from forged stores of 128 meters × 20,000 readings each (docs/semantics.md,
// "Stored state"): version 3 lines of 1.9 MB of text, and version 2 objects as 0.1.x wrote
// them but 20,000 readings long. The store hands the value over as Node-RED's
// localfilesystem store does, already parsed from its file (that parse is Node-RED's, before
// any node starts, and is not counted). Printed: the longest stretch the event loop was held
// while restoring (gaps between turns, garbage collection included), the time to restore,
// and the heap left once the node has stored its repaired totals (which replace the forged
// value in the store) and memory was collected.
import { CostStream } from '../nodes/lib/runtime/cost/cost-stream';
import { addReading, newTotals, TotalsState } from '../nodes/lib/engine/cost/totals';
import { plainTotals } from '../nodes/lib/engine/cost/stored-totals';
import { encodeStored } from '../nodes/lib/runtime/cost/stream-store';
import { PriceBook } from '../nodes/lib/runtime/prices/price-book';
import { encodePrices, MAX_HISTORY_CHARS, MAX_HISTORY_ENTRIES } from '../nodes/lib/engine/prices/price-history';

const METERS = 128;
const READINGS = 20_000;
const STEP_MS = 10_000;
const ZONE = 'UTC';
const TARIFF = 'T';
const gc = (globalThis as { gc?: () => void }).gc;

const interval = (a: { value: number }, b: { value: number }) => {
  const energy = b.value - a.value;
  return { energy, net: energy * 0.25, gross: energy * 0.3, unpricedEnergy: 0, resets: 0 };
};

/** One meter's real totals over `readings` readings STEP_MS apart, ending a minute ago. */
function meterTotals(readings: number, m: number): TotalsState {
  let t = newTotals(ZONE, TARIFF);
  const first = Date.now() - 60_000 - readings * STEP_MS;
  for (let i = 0; i < readings; i++)
    t = addReading(t, { ts: first + i * STEP_MS, value: 1000 + m + i / 360 }, interval, readings, true).state;
  return t;
}

/** What the node writes: each meter with its share of the stored readings. */
const written = () =>
  encodeStored(
    Array.from({ length: METERS }, (_, m) => ({ gateway: null, topic: `m${m}`, totals: meterTotals(2, m) })),
    { timezone: ZONE, tariffId: TARIFF },
  );

/** Version 3 lines of READINGS readings each: the node's own line format, 20,000 long. */
function forgedV3(): unknown {
  const first = Date.now() - 60_000 - READINGS * STEP_MS;
  const zero = [0, 0, 0, 0, 0, 0];
  const meters = Array.from({ length: METERS }, (_, m) => {
    const flat: number[] = [first, 1000 + m];
    const costs: number[] = [];
    for (let i = 1; i < READINGS; i++) {
      flat.push(STEP_MS, 1000 + m + i / 360);
      costs.push(1 / 360, 0.25 / 360, 0.3 / 360, 0, 0);
    }
    return JSON.stringify([null, `m${m}`, first, [zero, zero, zero, [55.5, 13.9, 16.7, 0, 0, READINGS - 1]], flat, costs]);
  });
  return { version: 3, timezone: ZONE, tariffId: TARIFF, meters };
}

/** Version 2 (0.1.x's shape: every meter's whole state as objects), READINGS readings each. */
function forgedV2(): unknown {
  // the window as lists of readings and costs, as 0.1.x wrote it (JSON of today's typed-array
  // window is not that shape: the store would be refused unread, and measure nothing)
  const one = plainTotals(meterTotals(READINGS, 0));
  // the same readings for every meter (a copy each, as a parsed file gives)
  const meters = Array.from({ length: METERS }, (_, m) => ({ gateway: null, topic: `m${m}`, totals: JSON.parse(JSON.stringify(one)) }));
  return { version: 2, timezone: ZONE, tariffId: TARIFF, meters };
}

async function restore(label: string, make: () => unknown): Promise<void> {
  let value: unknown = make();
  gc?.();
  const warned: string[] = [];
  const stream = new CostStream({
    timezone: ZONE,
    tariffId: TARIFF,
    warn: (w) => warned.push(w),
    saveEveryMs: 3_600_000,
    store: {
      load: async () => value,
      save: async (v) => {
        value = v;
      },
    },
  });
  const { worst, took } = await heldWhile(() => stream.restore());
  await stream.flush();
  value = JSON.parse(JSON.stringify(value)); // as the store keeps it: a copy of what was saved
  gc?.();
  const heap = process.memoryUsage().heapUsed / 1048576;
  console.log(
    label.padEnd(40) +
      worst.toFixed(0).padStart(12) +
      took.toFixed(0).padStart(12) +
      heap.toFixed(0).padStart(10) +
      String(stream.site().meters).padStart(8) +
      `  ${warned.length ? warned[0].slice(0, 70) + '…' : '–'}`,
  );
}

/** The longest gap between event-loop turns while `work` runs, and how long it took, in ms. */
async function heldWhile(work: () => Promise<unknown>): Promise<{ worst: number; took: number }> {
  let worst = 0;
  let last = performance.now();
  let running = true;
  const turn = () => {
    const t = performance.now();
    worst = Math.max(worst, t - last);
    last = t;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  const t0 = performance.now();
  await work();
  const took = performance.now() - t0;
  await new Promise((r) => setImmediate(r));
  running = false;
  return { worst: Math.max(worst, performance.now() - last), took };
}

const QUARTER_MS = 15 * 60_000;

/** A price line of `count` quarter hours ending a day from now, prices with `digits` decimals (long lines). */
function priceLine(count: number, digits: number): unknown {
  const end = Math.ceil(Date.now() / QUARTER_MS) * QUARTER_MS + 86_400_000;
  const entries = Array.from({ length: count }, (_, k) => {
    const from = end - (count - k) * QUARTER_MS;
    return { from, to: from + QUARTER_MS, price: Number((0.1 + Math.sin(k / 7) * 0.08 + k / 1e7).toFixed(digits)) };
  });
  return { version: 1, prices: encodePrices(entries) };
}

/** easy-prices reading its kept line back at deploy: the event loop is held while it is decoded and merged. */
async function restorePrices(label: string, make: () => unknown): Promise<void> {
  const kept = make();
  const chars = String((kept as { prices: string }).prices.length);
  gc?.();
  const warned: string[] = [];
  let book: PriceBook | null = null;
  const { worst, took } = await heldWhile(async () => {
    book = new PriceBook({ input: {}, store: { load: async () => kept, save: async () => {} }, warn: (w) => warned.push(w) });
    await book.ready;
  });
  gc?.();
  const heap = process.memoryUsage().heapUsed / 1048576;
  const left = book === null ? 0 : (book as PriceBook).prices().length;
  console.log(
    label.padEnd(40) +
      worst.toFixed(1).padStart(12) +
      took.toFixed(1).padStart(12) +
      heap.toFixed(0).padStart(10) +
      chars.padStart(10) +
      String(left).padStart(8) +
      `  ${warned.length ? warned[0].slice(0, 70) + '…' : '–'}`,
  );
}

async function main(): Promise<void> {
  // first, on a fresh heap: the forged v2 stores below leave hundreds of MB for the collector
  console.log("easy-prices' kept prices at start (one line; the history keeps 62 days)");
  console.log(
    'stored'.padEnd(40) +
      'block ms'.padStart(12) +
      'restore ms'.padStart(12) +
      'heap MB'.padStart(10) +
      'chars'.padStart(10) +
      'kept'.padStart(8) +
      '  warning',
  );
  await restorePrices('63 days of quarter hours (the most kept)', () => priceLine(63 * 96, 4));
  await restorePrices(`forged: ${MAX_HISTORY_ENTRIES.toLocaleString('en-US')} prices, long decimals`, () => {
    let digits = 12;
    for (;;) {
      const line = priceLine(MAX_HISTORY_ENTRIES, digits);
      if ((line as { prices: string }).prices.length <= MAX_HISTORY_CHARS || digits === 0) return line;
      digits--;
    }
  });
  console.log();
  console.log(
    `stream mode's stored totals at start, ${METERS} meters (heap after the save and GC: the forged value is gone once replaced)`,
  );
  console.log(
    'stored'.padEnd(40) + 'block ms'.padStart(12) + 'restore ms'.padStart(12) + 'heap MB'.padStart(10) + 'meters'.padStart(8) + '  warning',
  );
  await restore("the node's own (share of 128 readings)", written);
  await restore(`forged v3: ${METERS} × ${READINGS.toLocaleString('en-US')} readings`, forgedV3);
  await restore(`forged v2: ${METERS} × ${READINGS.toLocaleString('en-US')} readings`, forgedV2);
}

void main();
