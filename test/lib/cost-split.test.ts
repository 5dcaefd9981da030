// computeCost splitBy: energy and cost by a sensor's value, against the test's own slow
// evaluation (moment.tz per instant, the sensor value looked up by scanning the
// timeline) on generated tariffs, readings with resets, flapping sensors and sensors
// unknown before their first sample, in zones whose clocks change (some at midnight).
import should from 'should';
import fc from 'fast-check';
import { computeCost, SensorTimelines } from '../../nodes/lib/engine/cost/cost';
import type { Rule, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { FC, tariffArb, slowPrice, DST_ZONES, Timeline, readingsWithResetsArb } from './engine-fixtures';

const close = (actual: number, expected: number) =>
  should(Math.abs(actual - expected)).be.belowOrEqual(1e-9 * Math.max(1, Math.abs(expected)));
const HOUR = 3600000;
const GRID = 30000; // readings, rule boundaries and (for prorate) sensor changes lie on it
const ZONES = [...DST_ZONES, 'UTC', 'Atlantic/Azores', 'America/Havana', 'Asia/Beirut', 'America/Santiago'];

/** The value at ms: the last sample at or before it, of equal instants the later given (the test's own scan). */
function valueAt(timeline: Timeline, ms: number): number | undefined {
  let best: [number, number] | undefined;
  for (const sample of timeline) if (sample[0] <= ms && (best === undefined || sample[0] >= best[0])) best = sample;
  return best === undefined ? undefined : best[1];
}

/**
 * The test's own split: interval by interval (resets counted 0), each piece priced at
 * its start with the tariff's sensor (gw/1) as known then, and given to the split
 * sensor's value then ('unknown' before its first sample); prorate cuts pieces on GRID.
 */
function slowSplit(
  tariff: Tariff,
  rows: Array<[number, number]>,
  zone: string,
  tariffTimeline: Timeline,
  splitTimeline: Timeline,
  prorate: boolean,
) {
  const byValue = new Map<string, { energy: number; net: number; unpriced: number }>();
  for (let i = 1; i < rows.length; i++) {
    const [t0, v0] = rows[i - 1];
    const [t1, v1] = rows[i];
    const delta = v1 - v0;
    if (delta < 0) continue;
    const pieces: Array<[number, number]> = [];
    if (prorate) for (let s = t0; s < t1; s += GRID) pieces.push([s, Math.min(t1, s + GRID)]);
    else pieces.push([t0, t1]);
    for (const [a, b] of pieces) {
      const share = (delta * (b - a)) / (t1 - t0);
      const known = valueAt(tariffTimeline, a);
      const price = slowPrice(tariff, a, zone, known === undefined ? {} : { gw: { 1: known } });
      const split = valueAt(splitTimeline, a);
      const key = split === undefined || Number.isNaN(split) ? 'unknown' : String(split);
      const entry = byValue.get(key) ?? { energy: 0, net: 0, unpriced: 0 };
      entry.energy += share;
      if (price === null) entry.unpriced += share;
      else entry.net += share * price;
      byValue.set(key, entry);
    }
  }
  return byValue;
}

const readingsArb = readingsWithResetsArb(GRID, 2 * 60 * 4, 25);

/** A flapping sensor: up to 30 samples, often minutes apart, starting after the readings at times (unknown before). */
const timelineArb = (rows: Array<[number, number]>, grid: number) =>
  fc
    .array(fc.tuple(fc.integer({ min: (rows[0][0] - HOUR) / grid, max: rows[rows.length - 1][0] / grid }), fc.constantFrom(0, 1, 1, 2)), {
      maxLength: 30,
    })
    .map((events) => events.map(([at, v]): [number, number] => [at * grid, v]));

const splitCase = (grid: number) =>
  fc.tuple(tariffArb, fc.constantFrom(...ZONES), readingsArb, fc.boolean()).chain(([tariff, zone, rows, ownSensor]) =>
    fc.tuple(timelineArb(rows, grid), timelineArb(rows, grid)).map(([tariffTimeline, otherTimeline]) => ({
      tariff,
      zone,
      rows,
      tariffTimeline,
      splitTimeline: ownSensor ? tariffTimeline : otherTimeline,
      ownSensor,
    })),
  );

function runCase(
  {
    tariff,
    zone,
    rows,
    tariffTimeline,
    splitTimeline,
    ownSensor,
  }: { tariff: Tariff; zone: string; rows: Array<[number, number]>; tariffTimeline: Timeline; splitTimeline: Timeline; ownSensor: boolean },
  prorate: boolean,
): void {
  const splitBy = ownSensor ? { gatewayId: 'gw', sensorId: '1' } : { gatewayId: 'gw', sensorId: '2' };
  const sensors: SensorTimelines = ownSensor ? { gw: { 1: tariffTimeline } } : { gw: { 1: tariffTimeline, 2: splitTimeline } };
  const options = { timezone: zone, sensors, attribution: prorate ? ('prorate' as const) : ('start' as const) };
  const r = computeCost(tariff, rows, { ...options, splitBy });
  const plain = computeCost(tariff, rows, options);
  // splitBy changes nothing else
  close(r.net, plain.net);
  close(r.energy, plain.energy);
  close(r.unpricedEnergy, plain.unpricedEnergy);
  should(r.byRule.map((b) => b.ruleIndex)).eql(plain.byRule.map((b) => b.ruleIndex));
  should(r.unknownSensors).eql(plain.unknownSensors);
  // against the slow split
  const slow = slowSplit(tariff, rows, zone, tariffTimeline, splitTimeline, prorate);
  const entries = r.bySensorValue as NonNullable<typeof r.bySensorValue>;
  const keys = entries.map((e) => (e.value === null ? 'unknown' : String(e.value)));
  should(keys).eql([...slow.keys()].sort((a, b) => (a === 'unknown' ? 1 : b === 'unknown' ? -1 : Number(a) - Number(b))));
  for (const e of entries) {
    const s = slow.get(e.value === null ? 'unknown' : String(e.value))!;
    close(e.energy, s.energy);
    close(e.net, s.net);
    close(e.unpricedEnergy, s.unpriced);
    close(e.gross, s.net * 1.2);
  }
  close(
    entries.reduce((sum, e) => sum + e.energy, 0),
    r.energy,
  );
  close(
    entries.reduce((sum, e) => sum + e.net, 0),
    r.net,
  );
}

describe('cost splitBy: against the slow evaluation (fast-check, fixed seed)', () => {
  it("'start': each interval to the sensor's value at its start", () => {
    fc.assert(
      fc.property(splitCase(1), (c) => runCase(c, false)),
      { ...FC, numRuns: 1500 },
    );
  });

  it("'prorate': split at the sensor's changes and the rules' in proportion to time", () => {
    fc.assert(
      fc.property(splitCase(GRID), (c) => runCase(c, true)),
      { ...FC, numRuns: 600 },
    );
  });
});

describe('cost splitBy: worked by hand', () => {
  const genset: Tariff = {
    id: 'G',
    name: 'genset',
    vat: 10,
    currency: 'EUR',
    rules: [
      { priority: 1, price: 0.9, gateway_id: 'gw', sensor_id: 'gen', sensor_value: 1, sensor_condition: 'eq' },
      { priority: 2, price: 0.2 },
    ],
  };
  const t = (h: number, m = 0) => Date.UTC(2024, 5, 3, h, m);
  const rows: Array<[number, number]> = [
    [t(10), 100],
    [t(11), 102], // 2 kWh, generator off at 10:00
    [t(12), 105], // 3 kWh, on from 11:30: start gives off, prorate half and half
    [t(13), 106], // 1 kWh, on
  ];
  const sensors = { gw: { gen: [[t(9), 0] as [number, number], [t(11, 30), 1] as [number, number]] } };

  it("'start': 5 kWh off at 0.2, 1 kWh on at 0.9", () => {
    const r = computeCost(genset, rows, { timezone: 'UTC', sensors, splitBy: { gatewayId: 'gw', sensorId: 'gen' } });
    should(r.bySensorValue).have.length(2);
    const [off, on] = r.bySensorValue!;
    should(off.value).equal(0);
    close(off.energy, 5);
    close(off.net, 1);
    should(on.value).equal(1);
    close(on.energy, 1);
    close(on.net, 0.9);
    close(on.gross, 0.99);
  });

  it("'prorate': 3.5 kWh off, 2.5 kWh on", () => {
    const r = computeCost(genset, rows, {
      timezone: 'UTC',
      sensors,
      attribution: 'prorate',
      splitBy: { gatewayId: 'gw', sensorId: 'gen' },
    });
    const [off, on] = r.bySensorValue!;
    close(off.energy, 3.5);
    close(off.net, 0.7);
    close(on.energy, 2.5);
    close(on.net, 2.25);
  });

  it('a sensor the tariff does not use, unknown before its first sample: that energy under value null, last', () => {
    const flat: Tariff = { id: 'F', name: 'flat', vat: 0, currency: 'EUR', rules: [{ priority: 1, price: 0.3 }] };
    const r = computeCost(flat, rows, {
      timezone: 'UTC',
      sensors: { gw: { door: [[t(11), '1']] } } as never, // a value as text, as a gateway may send it
      splitBy: { gatewayId: 'gw', sensorId: 'door' },
    });
    should(r.bySensorValue!.map((e) => e.value)).eql([1, null]);
    close(r.bySensorValue![0].energy, 4);
    close(r.bySensorValue![1].energy, 2);
    should(r.unknownSensors).eql([]); // the tariff never consulted it
  });

  it('no readings: an empty list; a constant sensor: one entry', () => {
    should(computeCost(genset, [], { timezone: 'UTC', splitBy: { gatewayId: 'gw', sensorId: 'gen' } }).bySensorValue).eql([]);
    const r = computeCost(genset, rows, { timezone: 'UTC', sensors: { gw: { gen: 1 } }, splitBy: { gatewayId: 'gw', sensorId: 'gen' } });
    should(r.bySensorValue!.map((e) => e.value)).eql([1]);
    close(r.bySensorValue![0].net, 6 * 0.9);
  });

  it('without splitBy there is no bySensorValue', () => {
    should(computeCost(genset, rows, { timezone: 'UTC', sensors })).not.have.property('bySensorValue');
  });

  it('bad splitBy: a clear error', () => {
    for (const bad of [{}, { gatewayId: 'gw' }, 'gw/gen', { gatewayId: '', sensorId: 'x' }, { gatewayId: {}, sensorId: 'x' }]) {
      should(() => computeCost(genset, rows, { timezone: 'UTC', splitBy: bad as never })).throw(TypeError, { message: /splitBy must be/ });
    }
    const noisy: Array<[number, number]> = Array.from({ length: 300 }, (_, i) => [t(0) + i * 1000, i / 7]);
    should(() =>
      computeCost(genset, rows, { timezone: 'UTC', sensors: { gw: { temp: noisy } }, splitBy: { gatewayId: 'gw', sensorId: 'temp' } }),
    ).throw(RangeError, { message: /more than 256 different values/ });
  });

  it('ids are data: __proto__ as gateway and sensor', () => {
    const rule: Rule = { priority: 1, price: 1, gateway_id: '__proto__', sensor_id: '__proto__', sensor_value: 1, sensor_condition: 'eq' };
    const tariff: Tariff = { id: 'P', name: 'p', vat: 0, currency: 'EUR', rules: [rule] };
    const sensors = JSON.parse('{"__proto__": {"__proto__": [[0, 1]]}}');
    const r = computeCost(
      tariff,
      [
        [1000, 0],
        [2000, 2],
      ],
      { timezone: 'UTC', sensors, splitBy: { gatewayId: '__proto__', sensorId: '__proto__' } },
    );
    should(r.bySensorValue).eql([{ value: 1, energy: 2, unpricedEnergy: 0, net: 2, gross: 2 }]);
  });
});
