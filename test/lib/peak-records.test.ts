// easy-peak's records (docs/records.md, `energy_peak`, `peak_month`, `peak_projected`):
// every window PeakStream closes is one point, checked against the slow demand reference
// (Intl's wall clock, plain interpolation, peaks by sorting) on generated readings in zones
// whose clocks change, with the month's value and the window's rank as they were when it
// closed; then the builders attacked with missing and wrong fields.
import should from 'should';
import fc from 'fast-check';
import { PeakStream } from '../../nodes/lib/runtime/peak/peak-stream';
import { peakSettings } from '../../nodes/lib/runtime/peak/peak-settings';
import { peakPoints } from '../../nodes/lib/engine/records/figure-points';
import { peakEntities } from '../../nodes/lib/engine/records/ha-figures';
import { RecordsOutput, recordsSettings } from '../../nodes/lib/runtime/common/records-output';
import { MINUTE, ZONES, slowDemandWindows, slowMonthlyPeaks, slowWindowOf, wallClock } from './demand-reference';

const FAR = Date.parse('2100-01-01T00:00:00Z');
/** Streams opened by a test, closed after it: a restored stream listens for clock steps until it is closed. */
const opened: PeakStream[] = [];

async function newStream(zone: string, config: Record<string, unknown>, records = true) {
  const stream = new PeakStream({
    records,
    timezone: zone,
    settings: peakSettings(config),
    store: { load: async () => undefined, save: async () => undefined },
    warn: () => undefined,
    onGuard: () => undefined,
  });
  await stream.restore();
  opened.push(stream);
  return stream;
}

describe('easy-peak records', () => {
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  it('every closed window is one point at its start, meter and site, with the month value and rank when it closed (reference on generated readings across clock changes)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(ZONES)),
        fc.nat(3),
        fc.constantFrom(15, 30, 60),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        fc.integer({ min: -300, max: 120 }),
        fc.array(
          fc.tuple(fc.integer({ min: 1, max: 40 }), fc.nat(59), fc.oneof(fc.constant(0), fc.double({ min: 0, max: 20, noNaN: true }))),
          {
            minLength: 2,
            maxLength: 40,
          },
        ),
        async (zone, change, minutes, top, distinctDays, startMinutes, steps) => {
          const around = ZONES[zone];
          const t0 = Date.parse(around[change % around.length]) + startMinutes * MINUTE;
          const readings: Array<[number, number]> = [[t0, 1000]];
          for (const [gapMin, sec, kw] of steps) {
            const [ts, value] = readings[readings.length - 1];
            const next = ts + gapMin * MINUTE + (sec % 2 === 0 ? 0 : sec * 1000);
            readings.push([next, value + (kw * (next - ts)) / 3_600_000]);
          }
          const stream = await newStream(zone, { minutes: String(minutes), top: String(top), distinctDays });
          const got: Array<Record<string, any>> = [];
          for (const [ts, value] of readings) {
            const out = await stream.handle({ topic: 'e1.kvah', gateway: 'G', payload: value, ts }, FAR);
            for (const w of out?.records?.closed ?? []) got.push({ ...w, at: ts });
            should(out!.records === null || out!.records.minutes === minutes).be.true();
          }
          const last = readings[readings.length - 1][0];
          const want = slowDemandWindows(readings, zone, minutes, {
            from: slowWindowOf(zone, t0, minutes).from,
            to: slowWindowOf(zone, last, minutes).from,
            maxGapMinutes: 5, // the node's default: its *stale after*
          });
          for (const scope of ['meter', 'site']) {
            const mine = got.filter((w) => w.scope === scope);
            should(mine.map((w) => w.fromMs)).eql(want.map((w) => w.from));
            for (const [i, w] of mine.entries()) {
              const ref = want[i];
              should(w).match({ toMs: ref.to, complete: ref.complete, unit: 'kVA' });
              should(w.gap && { from: w.gap.fromMs, to: w.gap.toMs }).eql(ref.gap);
              should(w.energy).be.approximately(ref.energy, 1e-6);
              should(w.kw).be.approximately(ref.kw, 1e-6);
              // the month when this window closed: every window up to it, by the slow peaks
              const month = new Date(wallClock(zone, ref.from)).toISOString().slice(0, 7);
              const slow = slowMonthlyPeaks(
                want.filter((x) => x.from <= ref.from),
                zone,
                { top, distinctDays },
              ).find((m) => m.month === month)!;
              if (slow.value === null) should(w.monthValue).be.null();
              else should(w.monthValue).be.approximately(slow.value, 1e-6);
              // the rank where no other window of the month so far has the same kW to 1e-9: two ways of
              // splitting the same energy differ in the last bits, so a near tie may go either way
              const nearTie = want.some(
                (x) =>
                  x.from < ref.from &&
                  x.complete &&
                  new Date(wallClock(zone, x.from)).toISOString().slice(0, 7) === month &&
                  Math.abs(x.kw - ref.kw) < 1e-9,
              );
              const rank = slow.peaks.findIndex((p) => p.from === ref.from) + 1;
              if (!nearTie) should(w.rank).equal(rank > 0 ? rank : undefined);
              else if (w.rank !== undefined) should(w.rank).be.within(1, top);
              should(w.at).be.aboveOrEqual(ref.to); // written once the window is over, never before
            }
          }
          const points = peakPoints({ minutes, closed: got }, 'site one');
          should(points).have.length(got.length);
          should(new Set(points.map((p) => JSON.stringify([p.tags, p.timestamp]))).size).equal(points.length); // one point each
        },
      ),
      {
        numRuns: 150,
        examples: [
          [
            'Atlantic/Azores',
            0,
            15,
            1,
            false,
            -1,
            [
              [34, 0, 5.015595781836003e-13],
              [1, 0, 0],
              [1, 0, 0],
            ],
          ],
        ],
      },
    );
  });

  it('without a records output, closed windows are not built for it (the same readings close windows with one)', async () => {
    const t0 = Date.parse('2026-03-04T09:00:00Z');
    for (const records of [true, false]) {
      const stream = await newStream('UTC', { minutes: '15' }, records);
      let closed = 0;
      for (let i = 0; i <= 40; i++) {
        const out = await stream.handle({ topic: 'e1.kwh', gateway: 'G', payload: 100 + i / 60, ts: t0 + i * MINUTE }, FAR);
        should(records || out!.records === null).be.true();
        closed += out!.records?.closed.length ?? 0;
      }
      should(closed > 0).equal(records);
    }
  });

  it('points: tags name the series (never the figures), fields the figures, the window start in ms; wrong fields are left out', () => {
    const closed = [
      {
        scope: 'meter',
        gateway: 'G1',
        topic: 'e1.kwh',
        unit: 'kW',
        fromMs: 1000,
        toMs: 901_000,
        energy: 2,
        kw: 8,
        complete: true,
        monthValue: 8,
        rank: 1,
      },
      { scope: 'site', unit: 'kW', fromMs: 1000, toMs: 901_000, energy: 2, kw: 8, complete: false, monthValue: null },
      { scope: 'meter', gateway: '__proto__', topic: 'constructor', fromMs: 'x', kw: 1 },
      { scope: 'site', fromMs: 5, kw: 'much', energy: null },
      null,
      42,
    ];
    should(peakPoints({ minutes: 15, closed }, 'workshop')).eql([
      {
        measurement: 'energy_peak',
        tags: { site: 'workshop', scope: 'meter', gateway: 'G1', meter: 'e1.kwh', minutes: '15', unit: 'kW' },
        fields: { average: 8, energy: 2, complete: true, month_value: 8, rank: 1, end_ms: 901_000 },
        timestamp: 1000,
      },
      {
        measurement: 'energy_peak',
        tags: { site: 'workshop', scope: 'site', minutes: '15', unit: 'kW' },
        fields: { average: 8, energy: 2, complete: false, end_ms: 901_000 },
        timestamp: 1000,
      },
    ]);
    for (const bad of [null, undefined, 7, 'x', [], {}, { closed: 'no' }, { closed: {} }]) should(peakPoints(bad, 's')).eql([]);
  });

  it('Home Assistant: the month peak and the projection are power (kW, kVA for kVAh counters), `measurement`, never a total', () => {
    const payload = (unit: string) => ({
      site: { unit, month: { value: 7.5 }, window: { projectedKw: 9.25, fromMs: 0 }, bill: { billedKw: 8, demandCharge: 32 } },
    });
    should(peakEntities(payload('kW'))).eql([
      {
        objectId: 'peak_month',
        name: "Month's peak",
        unit: 'kW',
        deviceClass: 'power',
        stateClass: 'measurement',
        icon: 'mdi:chart-bell-curve',
        value: 7.5,
      },
      {
        objectId: 'peak_projected',
        name: 'Window projected',
        unit: 'kW',
        deviceClass: 'power',
        stateClass: 'measurement',
        icon: 'mdi:gauge',
        value: 9.25,
      },
      {
        objectId: 'peak_billed',
        name: 'Billed demand',
        unit: 'kW',
        deviceClass: 'power',
        stateClass: 'measurement',
        icon: 'mdi:cash-multiple',
        value: 8,
      },
    ]);
    should(peakEntities(payload('kVA')).map((e) => [e.unit, e.deviceClass])).eql([
      ['kVA', 'apparent_power'],
      ['kVA', 'apparent_power'],
      ['kVA', 'apparent_power'],
    ]);
    // no month value yet, an unknown projection: unknown, never 0
    should(peakEntities({ site: { month: { value: null }, window: { projectedKw: 'x' } } }).map((e) => e.value)).eql([null, null, null]);
    for (const bad of [null, 3, { site: null }, { site: [] }, { reset: true, site: null }]) should(peakEntities(bad)).eql([]);
  });

  it('RecordsOutput.peak: influx messages only for closed windows, HA configs once then states', () => {
    const influx = new RecordsOutput(recordsSettings({ id: 'p1', type: 'easy-peak', name: 'hall', records: 'influx-batch' })!);
    should(influx.peak({ site: {} }, null)).eql([]);
    const [batch] = influx.peak(
      {},
      { minutes: 30, closed: [{ scope: 'site', unit: 'kW', fromMs: 0, toMs: 1_800_000, energy: 1, kw: 2, complete: true }] },
    );
    should(batch).match({
      precision: 'ms',
      payload: [{ measurement: 'energy_peak', tags: { site: 'hall', minutes: '30' }, timestamp: 0 }],
    });
    const ha = new RecordsOutput(recordsSettings({ id: 'p1', type: 'easy-peak', records: 'homeassistant' })!);
    const p = { site: { unit: 'kW', month: { value: 3 }, window: { projectedKw: 4 } } };
    should(ha.peak(p, null).map((m) => m.topic)).eql([
      'homeassistant/sensor/p1/peak_month/config',
      'homeassistant/sensor/p1/peak_projected/config',
      'homeassistant/sensor/p1/peak_billed/config',
      'node-red-easy/status',
      'node-red-easy/p1/peak_month',
      'node-red-easy/p1/peak_projected',
      'node-red-easy/p1/peak_billed',
    ]);
    should(ha.peak(p, null).map((m) => [m.topic, m.payload])).eql([
      ['node-red-easy/p1/peak_month', { value: 3 }],
      ['node-red-easy/p1/peak_projected', { value: 4 }],
      ['node-red-easy/p1/peak_billed', { value: null }],
    ]);
  });
});
