// npm run bench (stream): what a reading costs easy-cost's stream mode in-process, and the
// memory its late-reading window holds, for 128 meters at a 10 s cadence: just after a
// restart (the window holds what was stored: about one reading per meter), after 50 minutes
// (300 readings per meter) and after 8.3 hours (3,000 readings per meter, the window's
// limit). CPU per reading is the median of 15 ticks of 128 readings (one per meter); the
// ratio is against the 300-reading case of the same run (the first minutes after a restart
// also open every meter and period, and run slower). bench:pi measures the same
// node inside a real Node-RED, whose window is the restart case during its minutes.
import { CostStream } from '../nodes/lib/runtime/cost/cost-stream';
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
  return process.memoryUsage().heapUsed / 1048576;
};

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
  const rows: Array<{ label: string; window: number; ms: number; heap: number }> = [];
  for (const window of [1, 300, 3000]) {
    while (tick < window) await oneTick();
    const times: number[] = [];
    for (let i = 0; i < 15; i++) times.push(await oneTick());
    rows.push({ label: `${window} reading${window === 1 ? '' : 's'} per meter`, window, ms: median(times), heap: heapMb() - heap0 });
  }
  console.log(`stream mode, ${METERS} meters, one reading each per 10 s tick (DEMO-WORKDAY, ${ZONE}), in-process`);
  console.log('late-reading window'.padEnd(28) + 'CPU ms/reading'.padStart(16) + 'ratio'.padStart(8) + 'heap MB (all meters)'.padStart(24));
  for (const r of rows) {
    const heap = gc ? r.heap.toFixed(1) : '(run with --expose-gc)';
    console.log(r.label.padEnd(28) + r.ms.toFixed(3).padStart(16) + `${(r.ms / rows[1].ms).toFixed(2)}x`.padStart(8) + heap.padStart(24));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
