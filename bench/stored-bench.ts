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
import { encodeStored } from '../nodes/lib/runtime/cost/stream-store';

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
  const one = meterTotals(READINGS, 0);
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
  await stream.restore();
  const took = performance.now() - t0;
  running = false;
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

async function main(): Promise<void> {
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
