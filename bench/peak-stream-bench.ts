// npm run bench (peak stream): what a reading costs easy-peak in-process at 1 and 128 meters on a
// 10 s cadence, against easy-cost's stream mode on the same readings in the same run (the
// baseline), the bytes one save of its state takes, and so the bytes stored per minute (at
// most one save a minute). CPU per reading: the median of 15 ticks (one reading per meter),
// after a warm-up hour; with 128 meters each reading also sums the site (every meter).
// Records (docs/records.md): the same readings through two more streams whose messages also
// go through RecordsOutput.peak (influx-batch: points for the windows a reading closed;
// homeassistant: the site's two states each reading), as a ratio to the stream without; and
// easy-cost's stream through RecordsOutput.streamCost (homeassistant: seven entities per
// meter, a state each per reading, their configs once), as a ratio to easy-cost's without.
import { CostStream } from '../nodes/lib/runtime/cost/cost-stream';
import { PeakStream } from '../nodes/lib/runtime/peak/peak-stream';
import { peakSettings } from '../nodes/lib/runtime/peak/peak-settings';
import { parseTariffs } from '../nodes/lib/engine/tariff/tariff';
import { DEMO_TARIFFS } from '../sim/demo-data';
import { median } from './measure';
import { RecordsOutput, recordsSettings } from '../nodes/lib/runtime/common/records-output';

const CADENCE_MS = 10_000;
const ZONE = 'Europe/Brussels';
const tariff = parseTariffs(JSON.parse(JSON.stringify(DEMO_TARIFFS))).tariffs.find((t) => t.id === 'DEMO-WORKDAY')!;
const silent = { warn: (w: string) => console.warn(w), saveEveryMs: 3_600_000 };

type Variant = 'peak' | 'cost' | 'influx' | 'ha' | 'costHa';

async function measure(meters: number) {
  let saved: unknown;
  const newPeak = (save: (v: unknown) => void) =>
    new PeakStream({
      timezone: ZONE,
      settings: peakSettings({ minutes: '15', top: '3', distinctDays: true, limit: 'peak', floorKw: '2.5' }),
      store: { load: async () => undefined, save: async (v) => save(v) },
      onGuard: () => undefined,
      ...silent,
    });
  const peak = newPeak((v) => (saved = v));
  const withRecords = {
    influx: {
      stream: newPeak(() => undefined),
      records: new RecordsOutput(recordsSettings({ id: 'b', type: 'easy-peak', records: 'influx-batch' })!),
    },
    ha: {
      stream: newPeak(() => undefined),
      records: new RecordsOutput(recordsSettings({ id: 'b', type: 'easy-peak', records: 'homeassistant' })!),
    },
  };
  let sent = 0;
  const newCost = () =>
    new CostStream({
      timezone: ZONE,
      tariffId: tariff.id,
      store: { load: async () => undefined, save: async () => undefined },
      ...silent,
    });
  const cost = newCost();
  const costHa = {
    stream: newCost(),
    records: new RecordsOutput(recordsSettings({ id: 'c', type: 'easy-cost', records: 'homeassistant' })!),
  };
  let costSent = 0;
  const streams = [peak, cost, withRecords.influx.stream, withRecords.ha.stream, costHa.stream];
  await Promise.all(streams.map((s) => s.restore()));
  const start = Date.now() - 2 * 3_600_000;
  let tick = 0;
  // each meter's load rises and falls over the hour, so windows close and peaks move
  const kwh = (m: number, ts: number) => 1000 + m + (ts / 3_600_000) * (2 + (m % 5)) + Math.sin(ts / 600_000) * 0.1;
  const oneTick = async (which: Variant): Promise<number> => {
    const ts = start + tick * CADENCE_MS;
    const c0 = process.cpuUsage();
    for (let m = 0; m < meters; m++) {
      const msg = { topic: `e${m}.kwh`, gateway: 'DEMO', payload: kwh(m, ts), ts };
      if (which === 'peak') await peak.handle(msg, ts);
      else if (which === 'cost') await cost.handle(msg, tariff, ts);
      else if (which === 'costHa') {
        const out = await costHa.stream.handle(msg, tariff, ts);
        if (out) costSent += costHa.records.streamCost(out.payload).length;
      } else {
        const { stream, records } = withRecords[which];
        const out = await stream.handle(msg, ts);
        if (out) sent += records.peak(out.payload, out.records).length;
      }
    }
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000 / meters;
  };
  const both = async () => {
    const p = await oneTick('peak');
    const c = await oneTick('cost');
    const i = await oneTick('influx');
    const h = await oneTick('ha');
    const ch = await oneTick('costHa');
    tick++;
    return [p, c, i, h, ch];
  };
  for (let i = 0; i < 360; i++) await both(); // an hour: four windows closed, the month's peaks set
  const times: number[][] = [];
  for (let i = 0; i < 15; i++) times.push(await both());
  await peak.flush();
  const bytes = Buffer.byteLength(JSON.stringify(saved));
  await Promise.all(streams.map((s) => s.close()));
  if (sent === 0 || costSent === 0) throw new Error('the records streams sent nothing');
  const [peakMs, costMs, influxMs, haMs, costHaMs] = [0, 1, 2, 3, 4].map((k) => median(times.map((t) => t[k])));
  return { meters, peakMs, costMs, influxMs, haMs, costHaMs, bytes };
}

async function main(): Promise<void> {
  console.log(`easy-peak, 15 min windows, top 3 on distinct days (${ZONE}), one reading per meter per 10 s tick, in-process`);
  console.log(
    'meters'.padEnd(8) +
      'CPU ms/reading'.padStart(16) +
      'stream mode'.padStart(14) +
      'ratio'.padStart(8) +
      'bytes a save'.padStart(14) +
      'bytes/min (max)'.padStart(17) +
      'records influx'.padStart(16) +
      'records HA'.padStart(12) +
      'stream mode records HA'.padStart(24),
  );
  for (const meters of [1, 128]) {
    const r = await measure(meters);
    console.log(
      String(r.meters).padEnd(8) +
        r.peakMs.toFixed(3).padStart(16) +
        r.costMs.toFixed(3).padStart(14) +
        `${(r.peakMs / r.costMs).toFixed(2)}x`.padStart(8) +
        String(r.bytes).padStart(14) +
        String(r.bytes).padStart(17) +
        `${(r.influxMs / r.peakMs).toFixed(2)}x`.padStart(16) +
        `${(r.haMs / r.peakMs).toFixed(2)}x`.padStart(12) +
        `${(r.costHaMs / r.costMs).toFixed(2)}x`.padStart(24),
    );
  }
  console.log(
    'stream mode: easy-cost stream on the same readings in the same run (the baseline); bytes/min: at most one save a minute (JSON as the context store gets it); records: CPU per reading with Records set (influx-batch, homeassistant) over CPU without, same readings, same run; stream mode records HA: easy-cost stream with Records homeassistant over easy-cost stream without.',
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
