// npm run bench (records outage): the budget of Keep until written (docs/records.md,
// "Outages") through a 24-hour InfluxDB outage at 128 meters, in-process and in simulated
// time: easy-peak (15-minute windows, each meter's and the site's) and easy-cost's stream
// mode (running and closed periods), one reading per meter every 5 minutes, their records
// through RecordsOutput with the writer failing every write (as its Catch says). Measured:
// the points kept, the heap they hold (after a full collection, against the same streams'
// heap once the records are dropped), the bytes handed to the context store per minute
// (one save a minute at most: the stored form's size, measured each hour, the mean over the
// outage and the last), the longest event-loop block of one save at the end and of reading
// it back at a restart; then 40 hours more, beyond the bound: what is kept stays at
// MAX_RECORDS_KEPT, the oldest let go, said once.
import { CostStream } from '../nodes/lib/runtime/cost/cost-stream';
import { PeakStream } from '../nodes/lib/runtime/peak/peak-stream';
import { peakSettings } from '../nodes/lib/runtime/peak/peak-settings';
import { parseTariffs } from '../nodes/lib/engine/tariff/tariff';
import { monitorEventLoopDelay } from 'perf_hooks';
import { DEMO_TARIFFS } from '../sim/demo-data';
import { median } from './measure';
import { RecordsOutput, recordsSettings } from '../nodes/lib/runtime/common/records-output';
import { MAX_RECORDS_KEPT, RecordsDelivery } from '../nodes/lib/runtime/common/records-delivery';
import type { NodeMessage } from '../nodes/lib/runtime/common/red-types';

const METERS = 128;
const CADENCE_MS = 5 * 60_000;
/** The stored form is measured once an hour (each measure deflates it), its size taken for that hour's minutes. */
const SAMPLE_MS = 3_600_000;
const ZONE = 'Europe/Brussels';
const tariff = parseTariffs(JSON.parse(JSON.stringify(DEMO_TARIFFS))).tariffs.find((t) => t.id === 'DEMO-WORKDAY')!;
const gc = (global as { gc?: () => void }).gc;

/** The writer's failure of each message, as its Catch node wired back says it (on the next turn, as Node-RED's would). */
function fail(output: RecordsOutput, messages: NodeMessage[]): void {
  if (messages.length)
    setImmediate(() => {
      for (const m of messages) output.control({ ...m, error: { message: 'connect ECONNREFUSED 127.0.0.1:8086' } });
    });
}

/** A records output with Keep until written whose writer fails every write (InfluxDB away). */
function failingRecords(type: string, warned: string[]): RecordsOutput {
  const output: RecordsOutput = new RecordsOutput(recordsSettings({ id: type, type, records: 'influx-batch', recordsConfirm: true })!, {
    nodeId: type,
    send: (messages) => fail(output, messages),
    store: { load: async () => undefined, save: async () => undefined },
    warn: (t) => warned.push(t),
    log: () => undefined,
    error: (t) => warned.push(t),
  });
  return output;
}

/** The longest the event loop was held while `work` ran (a 1 ms timer's worst delay), in ms. */
async function worstBlock(work: () => Promise<void>): Promise<number> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await work();
  await new Promise((resolve) => setTimeout(resolve, 5));
  h.disable();
  return h.max / 1e6;
}

function heapMb(): number {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 1e6;
}

async function main(): Promise<void> {
  if (!gc) throw new Error('run with node --expose-gc (npm run bench does)');
  const warned: string[] = [];
  const peak = new PeakStream({
    timezone: ZONE,
    settings: peakSettings({ minutes: '15', limit: 'peak' }),
    store: { load: async () => undefined, save: async () => undefined },
    onGuard: () => undefined,
    warn: () => undefined,
    saveEveryMs: 3_600_000,
  });
  const cost = new CostStream({
    timezone: ZONE,
    tariffId: tariff.id,
    store: { load: async () => undefined, save: async () => undefined },
    warn: () => undefined,
    saveEveryMs: 3_600_000,
  });
  await Promise.all([peak.restore(), cost.restore()]);
  let peakRecords: RecordsOutput | null = failingRecords('easy-peak', warned);
  let costRecords: RecordsOutput | null = failingRecords('easy-cost', warned);
  await Promise.all([peakRecords.restore(), costRecords.restore()]);
  for (const r of [peakRecords, costRecords]) r.control({ records: 'send' });

  const start = Date.now() - 2 * 24 * 3_600_000;
  const kwh = (m: number, ts: number) => 1000 + m + (ts / 3_600_000) * (2 + (m % 5)) + Math.sin(ts / 600_000 + m);
  const sizes: number[] = [];
  const costSizes: number[] = [];
  let ts = start;
  const readFor = async (hours: number, withCost = true) => {
    const until = ts + hours * 3_600_000;
    for (; ts < until; ts += CADENCE_MS) {
      for (let m = 0; m < METERS; m++) {
        const msg = { topic: `e${m}.kwh`, gateway: 'DEMO', payload: kwh(m, ts), ts };
        const p = await peak.handle({ ...msg }, ts);
        if (p) fail(peakRecords!, peakRecords!.peak(p.payload, p.records));
        if (!withCost) continue;
        const c = await cost.handle({ ...msg }, tariff, ts);
        if (c) fail(costRecords!, costRecords!.streamCost(c.payload));
      }
      await new Promise((resolve) => setImmediate(resolve)); // the writer's failures come back
      if (!withCost || (ts + CADENCE_MS - start) % SAMPLE_MS !== 0) continue;
      // one save a minute at most: what each would hand to the store, taken for every minute of the sample's hour
      const peakBytes = Buffer.byteLength(JSON.stringify((await peakRecords!.delivery!.storedForm()) ?? null));
      const costBytes = Buffer.byteLength(JSON.stringify((await costRecords!.delivery!.storedForm()) ?? null));
      for (let minute = 0; minute < SAMPLE_MS / 60_000; minute++) {
        sizes.push(peakBytes);
        costSizes.push(costBytes);
      }
    }
  };
  await readFor(24);
  const heldPeak = peakRecords.delivery!.held;
  const heldCost = costRecords.delivery!.held;
  const withRecords = heapMb();

  // one save at the end of the outage, and reading it back at a restart: the worst event-loop block of each (the
  // stored form and the read built a slice at a time; deflating and inflating off the main thread)
  const saveMs: number[] = [];
  const readMs: number[] = [];
  let value: unknown;
  for (let i = 0; i < 5; i++) {
    saveMs.push(await worstBlock(async () => void (value = await peakRecords!.delivery!.storedForm())));
    const back = new RecordsDelivery({
      nodeId: 'restart',
      format: 'influx-batch',
      confirm: true,
      send: () => undefined,
      store: { load: async () => JSON.parse(JSON.stringify(value)), save: async () => undefined },
      warn: (t) => warned.push(t),
      log: () => undefined,
    });
    readMs.push(await worstBlock(() => back.restore()));
    if (back.held !== heldPeak) throw new Error(`read back ${back.held} of ${heldPeak}`);
    await back.close();
  }
  const storedBytes = Buffer.byteLength(JSON.stringify(value));
  const outageWarnings = warned.length;

  // the heap of the same streams once the records kept are let go
  await Promise.all([peakRecords.close(), costRecords.close()]);
  peakRecords = null;
  costRecords = null;
  const without = heapMb();

  // beyond the bound: the same readings on, 40 hours more into a new output (more than MAX_RECORDS_KEPT windows)
  peakRecords = failingRecords('easy-peak', warned);
  await peakRecords.restore();
  peakRecords.control({ records: 'send' });
  await readFor(40, false);
  const heldAfter = peakRecords.delivery!.held;
  const letGo = warned.filter((w) => /oldest are let go/.test(w));
  await peakRecords.close();
  await Promise.all([peak.close(), cost.close()]);

  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const kb = (b: number) => `${(b / 1000).toFixed(1)} kB`;
  const day = (xs: number[]) => xs.slice(0, 24 * 60);
  console.log(`records outage: InfluxDB away 24 h, ${METERS} meters read every ${CADENCE_MS / 60_000} min (${ZONE}), Keep until written`);
  console.log(
    `  easy-peak (15 min windows): ${heldPeak} points kept (24 h: ${24 * 4 * (METERS + 1)} windows made), ` +
      `bytes handed to the store per minute: mean ${kb(mean(day(sizes)))}, last ${kb(day(sizes)[24 * 60 - 1])}`,
  );
  console.log(
    `  easy-cost (stream mode): ${heldCost} points kept, bytes per minute: mean ${kb(mean(day(costSizes)))}, last ${kb(day(costSizes)[24 * 60 - 1])}`,
  );
  console.log(
    `  heap of what both keep: ${(withRecords - without).toFixed(1)} MB (${withRecords.toFixed(1)} MB with, ${without.toFixed(1)} MB without)`,
  );
  console.log(
    `  the longest event-loop block of one save at the end (${kb(storedBytes)}): ${median(saveMs).toFixed(1)} ms; of reading it back at a restart: ${median(readMs).toFixed(1)} ms (medians of 5)`,
  );
  console.log(
    `  warnings in the outage, one per node: ${warned
      .slice(0, outageWarnings)
      .map((w) => w.slice(0, 60))
      .join(' | ')}`,
  );
  console.log(
    `  40 h more: ${heldAfter} points kept (at most ${MAX_RECORDS_KEPT}), the oldest let go, said ${letGo.length} time(s): ${letGo[0] ?? 'never'}`,
  );
  if (heldAfter > MAX_RECORDS_KEPT || letGo.length !== 1) throw new Error('the bound did not hold');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
