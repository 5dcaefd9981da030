// npm run bench (stream): what a reading costs easy-cost's stream mode in-process, and the
// memory its late-reading window holds, for 128 meters at a 10 s cadence: just after a
// restart (the window holds what was stored: about one reading per meter), after 50 minutes
// (300 readings per meter) and after 8.3 hours (3,000 readings per meter, the window's
// limit). CPU per reading is the median of 15 ticks of 128 readings (one per meter); the
// ratio is against the 300-reading case of the same run (the first minutes after a restart
// also open every meter and period, and run slower). Heap: V8's heap and the typed arrays'
// buffers outside it (the window's columns live there), after a full collection. Worst
// block: the longest the event loop was busy over the 15 ticks of each case (a tick's 128
// readings run without a turn of the loop), as the main thread's own CPU time between two
// turns of a 1 ms timer (/proc/self/task/<pid>/schedstat: without the time other processes
// of a shared machine had the core) and as the loop's delay (wall); and one full garbage
// collection with the window held, in CPU time (what V8 does now and then anyway, and the
// cause of the worst blocks before the window became columns).
// bench:pi measures the same node inside a real Node-RED (PI_BENCH_FILL_WINDOW=1 fills it).
// Last, what rule 10's judge costs a reading (ruleCost; `--rule` prints that line alone).
import { readFileSync } from 'fs';
import { monitorEventLoopDelay } from 'perf_hooks';
import { CostStream } from '../nodes/lib/runtime/cost/cost-stream';
import { RULE_10 } from '../nodes/lib/engine/cost/totals';
import { parseTariffs } from '../nodes/lib/engine/tariff/tariff';
import { DEMO_TARIFFS } from '../sim/demo-data';
import { median } from './measure';

const METERS = 128;
const CADENCE_MS = 10_000;
const ZONE = 'Europe/London';
const tariff = parseTariffs(JSON.parse(JSON.stringify(DEMO_TARIFFS))).tariffs.find((t) => t.id === 'DEMO-WORKDAY')!;
const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = () => {
  gc?.();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 1048576;
};
/** The main thread's CPU time so far (ms). */
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
const threadMs = () => Number(readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6;
/** How long a full garbage collection takes now (ms of the main thread's CPU). */
const gcMs = () => {
  if (!gc) return NaN;
  const t0 = threadMs();
  gc();
  return threadMs() - t0;
};
/** The longest the main thread ran between two turns of a 1 ms timer while `work` runs (ms of CPU). */
async function busiest(work: () => Promise<void>): Promise<number> {
  let last = threadMs();
  let max = 0;
  const timer = setInterval(() => {
    const now = threadMs();
    max = Math.max(max, now - last);
    last = now;
  }, 1);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(max, threadMs() - last);
}

async function newStream(): Promise<CostStream> {
  const stream = new CostStream({
    timezone: ZONE,
    tariffId: tariff.id,
    store: { load: async () => undefined, save: async () => undefined },
    warn: (w) => console.warn(w),
    saveEveryMs: 3_600_000,
  });
  await stream.restore();
  return stream;
}

async function main(): Promise<void> {
  const start = Date.now() - 3100 * CADENCE_MS;
  if (process.argv.includes('--rule')) return printRule(await ruleCost(start)); // rule 10's line alone
  let stream = await newStream();
  let tick = 0;
  /** One reading per meter at the next 10 s tick; ms of CPU per reading. */
  const oneTick = async (): Promise<number> => {
    const ts = start + tick++ * CADENCE_MS;
    const c0 = process.cpuUsage();
    for (let m = 0; m < METERS; m++) await stream.handle({ topic: `m${m}`, payload: 1000 + m + (ts / 3_600_000) * 2, ts }, tariff, ts);
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000 / METERS;
  };
  // warmed up on a stream of its own, so the first case is not the compiler's
  for (let i = 0; i < 100; i++) await oneTick();
  stream = await newStream();
  tick = 0;
  const heap0 = heapMb();
  const rows: Array<{ label: string; window: number; ms: number; heap: number; busyMs: number; blockMs: number; gcMs: number }> = [];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  for (const window of [1, 300, 3000]) {
    while (tick < window) await oneTick();
    const times: number[] = [];
    loop.reset();
    loop.enable();
    // turns of the loop between ticks, as readings arrive 10 s apart
    const busyMs = await busiest(async () => {
      for (let i = 0; i < 15; i++) {
        times.push(await oneTick());
        await new Promise((r) => setTimeout(r, 5));
      }
    });
    loop.disable();
    const blockMs = loop.max / 1e6;
    rows.push({
      label: `${window} reading${window === 1 ? '' : 's'} per meter`,
      window,
      ms: median(times),
      heap: heapMb() - heap0,
      busyMs,
      blockMs,
      gcMs: median([gcMs(), gcMs(), gcMs()]),
    });
  }
  await stream.close();
  const rule = await ruleCost(start);
  console.log(`stream mode, ${METERS} meters, one reading each per 10 s tick (DEMO-WORKDAY, ${ZONE}), in-process`);
  console.log(
    'late-reading window'.padEnd(28) +
      'CPU ms/reading'.padStart(16) +
      'ratio'.padStart(8) +
      'heap MB (all meters)'.padStart(24) +
      'worst block ms: CPU'.padStart(21) +
      'wall'.padStart(7) +
      'full GC ms'.padStart(12),
  );
  for (const r of rows) {
    const heap = gc ? r.heap.toFixed(1) : '(run with --expose-gc)';
    console.log(
      r.label.padEnd(28) +
        r.ms.toFixed(3).padStart(16) +
        `${(r.ms / rows[1].ms).toFixed(2)}x`.padStart(8) +
        heap.padStart(24) +
        r.busyMs.toFixed(1).padStart(21) +
        r.blockMs.toFixed(1).padStart(7) +
        (gc ? r.gcMs.toFixed(1) : '-').padStart(12),
    );
  }
  console.log(
    "heap: V8 heap and array buffers over the empty stream, after a full collection; worst block over the 15 ticks: the main thread's " +
      'CPU between two turns of a 1 ms timer, and the event loop delay (wall: includes other processes); ' +
      'full GC: the median of 3 forced full collections with the window held (main thread CPU)',
  );
  printRule(rule);
}

function printRule(rule: { on: number; off: number; glitchy: number }): void {
  console.log(
    `rule 10 (glitches are not resets), ${METERS} meters, 300 readings each: CPU ms/reading with the judge ${rule.on.toFixed(3)}, ` +
      `without ${rule.off.toFixed(3)} (${(rule.on / rule.off).toFixed(2)}x; medians of ${RULE_ROUNDS} interleaved ticks each); ` +
      `with every ${GLITCH_EVERY}th reading a 0 (held, then dropped) ${rule.glitchy.toFixed(3)} on average (${(rule.glitchy / rule.off).toFixed(2)}x)`,
  );
}

const RULE_ROUNDS = 61;
const GLITCH_EVERY = 4;

/**
 * What rule 10 costs a reading: three streams of 128 meters filled to 300 readings each, then
 * ticks of each in turn (interleaved, so all see the same machine): the judge on clean
 * readings, the judge off (RULE_10.on = false: the rule before it), and the judge on with
 * every GLITCH_EVERY-th reading of a meter a 0 (held until the next reading drops it).
 */
async function ruleCost(start: number): Promise<{ on: number; off: number; glitchy: number }> {
  const streams = await Promise.all([newStream(), newStream(), newStream()]);
  const ticks = [0, 0, 0];
  const tick = async (k: number): Promise<number> => {
    const ts = start + ticks[k]++ * CADENCE_MS;
    const glitch = k === 2 && ticks[k] % GLITCH_EVERY === 0;
    RULE_10.on = k !== 1;
    const c0 = process.cpuUsage();
    for (let m = 0; m < METERS; m++) {
      const value = glitch ? 0 : 1000 + m + (ts / 3_600_000) * 2;
      await streams[k].handle({ topic: `m${m}`, payload: value, ts }, tariff, ts);
    }
    const c = process.cpuUsage(c0);
    RULE_10.on = true;
    return (c.user + c.system) / 1000 / METERS;
  };
  for (let k = 0; k < 3; k++) while (ticks[k] < 300) await tick(k);
  const times: number[][] = [[], [], []];
  for (let round = 0; round < RULE_ROUNDS; round++) {
    // the order turns each round: no stream always runs first after the pause
    for (const k of round % 2 ? [1, 0, 2] : [0, 1, 2]) {
      times[k].push(await tick(k));
      if (k === 2) for (let extra = 1; extra < GLITCH_EVERY; extra++) times[k].push(await tick(k)); // every kind of tick
      await new Promise((r) => setTimeout(r, 2));
    }
  }
  for (const s of streams) await s.close();
  // the glitchy stream's ticks differ by kind (held, deciding, normal): their mean, not a median
  return { on: median(times[0]), off: median(times[1]), glitchy: times[2].reduce((a, b) => a + b, 0) / times[2].length };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
