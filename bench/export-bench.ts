// npm run bench (export): what a reading of an export meter costs easy-cost's stream mode
// against an import meter's, in the same run, and the bytes a save hands the context store
// with export meters. Three streams of 128 meters each at a 10 s cadence: all import (the
// baseline), all export (the export tariff, the floor on), half of each; ticks interleaved
// across the streams, CPU per reading the median of 40 ticks of 128 readings, after 100
// warm-up ticks each; the same three netted per quarter hour (rule 48), against the netted import
// meters. A save is at most one a minute, so its bytes are the most a minute
// hands the store (the Pi budget: docs/limits.md, stream mode at 128 meters).
import { CostStream } from '../nodes/lib/runtime/cost/cost-stream';
import { ExportMeters } from '../nodes/lib/runtime/common/meter-direction';
import { parseTariffs } from '../nodes/lib/engine/tariff/tariff';
import { DEMO_TARIFFS } from '../sim/demo-data';
import { median } from './measure';
import type { Netting } from '../nodes/lib/engine/net/net-cost';

const METERS = 128;
const CADENCE_MS = 10_000;
const ZONE = 'Europe/London';
const tariffs = parseTariffs(JSON.parse(JSON.stringify(DEMO_TARIFFS))).tariffs;
const importTariff = tariffs.find((t) => t.id === 'DEMO-WORKDAY')!;
const exportTariff = tariffs.find((t) => t.id === 'DEMO-NIGHT')!;

interface Case {
  label: string;
  stream: CostStream;
  saved: () => number;
}

async function newCase(label: string, exportPattern: string, netting: Netting = 'none'): Promise<Case> {
  let bytes = 0;
  const stream = new CostStream({
    timezone: ZONE,
    tariffId: importTariff.id,
    store: {
      load: async () => undefined,
      save: async (value) => void (bytes = Buffer.byteLength(JSON.stringify(value))),
    },
    warn: (w) => console.warn(w),
    saveEveryMs: 3_600_000,
    exportMeters: new ExportMeters(exportPattern),
    exportPricing: { exportVat: false, floorAtZero: true, key: `tariff:${exportTariff.id}|vat:false|floor:true` },
    ledger: { netting, minutes: 15, production: false, key: netting },
  });
  await stream.restore();
  return { label, stream, saved: () => bytes };
}

async function main(): Promise<void> {
  const cases = [
    await newCase('import meters', ''),
    await newCase('export meters', 'm*'),
    await newCase('half each', 'm*5,m*0,m*2,m*4,m*8'),
    // netted per quarter hour (rule 48): the ratio is against the import meters netted alike
    await newCase('import, netted', '', 'interval'),
    await newCase('export, netted', 'm*', 'interval'),
    await newCase('half, netted', 'm*5,m*0,m*2,m*4,m*8', 'interval'),
  ];
  const start = Date.now() - 400 * CADENCE_MS;
  let tick = 0;
  /** One reading per meter of one stream at tick t; ms of CPU per reading. */
  const oneTick = async (c: Case, t: number): Promise<number> => {
    const ts = start + t * CADENCE_MS;
    const c0 = process.cpuUsage();
    for (let m = 0; m < METERS; m++)
      await c.stream.handle({ topic: `m${m}`, payload: 1000 + m + (ts / 3_600_000) * 2, ts }, importTariff, ts, exportTariff);
    const u = process.cpuUsage(c0);
    return (u.user + u.system) / 1000 / METERS;
  };
  for (; tick < 100; tick++) for (const c of cases) await oneTick(c, tick);
  const times = cases.map(() => [] as number[]);
  for (let i = 0; i < 40; i++, tick++) {
    // interleaved, each tick in another order, so no stream always runs after the same one
    const order = cases.map((_, k) => (k + i) % cases.length);
    for (const k of order) times[k].push(await oneTick(cases[k], tick));
  }
  for (const c of cases) await c.stream.close();
  const baseOf = (k: number) => median(times[k < 3 ? 0 : 3]);
  console.log(`stream mode with export meters, ${METERS} meters, one reading each per 10 s tick (${ZONE}), in-process`);
  console.log('meters'.padEnd(16) + 'CPU ms/reading'.padStart(16) + 'ratio'.padStart(8) + 'bytes a save'.padStart(14));
  cases.forEach((c, k) =>
    console.log(
      c.label.padEnd(16) +
        median(times[k]).toFixed(3).padStart(16) +
        `${(median(times[k]) / baseOf(k)).toFixed(2)}x`.padStart(8) +
        `${(c.saved() / 1000).toFixed(1)} kB`.padStart(14),
    ),
  );
  console.log(
    `ratio: against the import meters of the same run and netting (goal: export at most 1.2x); netted import against plain import ${(median(times[3]) / median(times[0])).toFixed(2)}x; a save is at most one a minute`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
