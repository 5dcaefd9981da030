// Ids from outside are data: tariff, gateway and sensor ids such as "__proto__" or
// "constructor" must neither write onto Object.prototype nor read its members, on every
// library path that takes them, and must price, chart and list like any other id.
// Gateway "constructor" with sensor "length" is the sharpest case: on a plain object,
// {}.constructor.length is Object.length, 1, which would match a rule "value 1".
import should from 'should';
import { chartData, gatewaysOfTariffs, tariffList } from '../../nodes/lib/editor/editor-data';
import { nestedField } from '../../nodes/lib/engine/common/id-map';
import { nextPriceChange, priceAt, schedule } from '../../nodes/lib/engine/prices/price-source';
import { cheapestWindows } from '../../nodes/lib/engine/plan/plan';
import { readSensors } from '../../nodes/lib/api/responses';
import { SensorHistory } from '../../nodes/lib/runtime/cost/cost-inputs';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { decodeSensorId } from '../../nodes/lib/api/sensor-ids';
import { parseTariffs, sensorsUsedBy, Tariff } from '../../nodes/lib/engine/tariff/tariff';

const HOSTILE = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];
/** [gateway, sensor] pairs: each hostile id both ways, and the Object.length trap. */
const PAIRS: Array<[string, string]> = HOSTILE.map((id): [string, string] => [id, id]).concat([
  ['constructor', 'length'],
  ['__proto__', 'toString'],
]);

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const NOW = Date.UTC(2026, 5, 10, 12);

function sensorTariff(id: string, gw: string, sensor: string): Tariff {
  return {
    id,
    name: `tariff ${id}`,
    vat: 10,
    currency: 'EUR',
    rules: [
      { priority: 1, price: 0.9, gateway_id: gw, sensor_id: sensor, sensor_value: 1, sensor_condition: 'eq' },
      { priority: 2, price: 0.1 },
    ],
  };
}

/** `{ [gw]: { [sensor]: value } }` as JSON gives it: own properties, "__proto__" included. */
const jsonSensors = (gw: string, sensor: string, value: unknown) =>
  JSON.parse(`{${JSON.stringify(gw)}: {${JSON.stringify(sensor)}: ${JSON.stringify(value)}}}`);

describe('hostile ids through every library path', () => {
  const protoKeys = Object.getOwnPropertyNames(Object.prototype).sort();
  afterEach(() => {
    should(Object.getOwnPropertyNames(Object.prototype).sort()).eql(protoKeys);
    should(typeof Object.keys).equal('function');
    should(({} as { constructor: unknown }).constructor).equal(Object);
    should(Object.length).equal(1);
  });

  for (const [gw, sensor] of PAIRS) {
    const label = `gateway "${gw}", sensor "${sensor}"`;

    it(`parseTariffs and sensorsUsedBy: tariff id "${gw}", ${label}`, () => {
      const { tariffs, problems } = parseTariffs([
        sensorTariff(gw, gw, sensor),
        sensorTariff(gw, gw, sensor),
        sensorTariff('plain', gw, sensor),
      ]);
      should(tariffs.map((t) => t.id)).eql([gw, gw, 'plain']);
      should(problems.map((p) => [p.tariffId, p.message])).eql([[gw, `tariff ${JSON.stringify(gw)}: id is used by more than one tariff`]]);
      should(sensorsUsedBy(tariffs[0])).eql([{ gatewayId: gw, sensorId: sensor }]);
      should(gatewaysOfTariffs(tariffs)).eql([gw]);
      const list = tariffList({ tariffs, problems }, { fetchedAt: 1 });
      should(list.tariffs.map((t) => [t.id, t.problems.length, t.rules[0].sensor])).eql([
        [gw, 1, { gatewayId: gw, sensorId: sensor, value: 1, condition: 'eq', never: false }],
        [gw, 1, { gatewayId: gw, sensorId: sensor, value: 1, condition: 'eq', never: false }],
        ['plain', 0, { gatewayId: gw, sensorId: sensor, value: 1, condition: 'eq', never: false }],
      ]);
    });

    it(`priceAt, nextPriceChange, schedule and cheapestWindows: ${label}`, () => {
      const t = sensorTariff('T', gw, sensor);
      const on = jsonSensors(gw, sensor, 1);
      const unknown = priceAt(t, NOW, { timezone: 'Europe/Paris', sensors: {} })!;
      should([unknown.price, unknown.unknownSensors]).eql([0.1, [{ gatewayId: gw, sensorId: sensor }]]);
      should(priceAt(t, NOW, { timezone: 'Europe/Paris', sensors: on })!.price).equal(0.9);
      should(nextPriceChange(t, NOW, { timezone: 'Europe/Paris', sensors: {} })).be.null();
      should(schedule(t, NOW, NOW + DAY, { timezone: 'Europe/Paris', sensors: on }).map((e) => e.price)).eql([0.9]);
      const plan = cheapestWindows(t, { timezone: 'Europe/Paris', sensors: {}, from: NOW, to: NOW + DAY, duration: HOUR });
      should([plan.planned, plan.averagePrice]).eql([HOUR, 0.1]);
      const planOn = cheapestWindows(t, { timezone: 'Europe/Paris', sensors: on, from: NOW, to: NOW + DAY, duration: HOUR });
      should(planOn.averagePrice).equal(0.9);
    });

    it(`chartData: ${label} gets its own line, keyed and valued as data`, () => {
      const d = chartData(sensorTariff('T', gw, sensor), NOW, 'Asia/Beirut');
      should(d.lines.map((l) => l.key)).eql(['base', `${gw}/${sensor}=1`]);
      should(nestedField(d.lines[0].sensors, gw, sensor)).equal(0);
      should(nestedField(d.lines[1].sensors, gw, sensor)).equal(1);
      should(d.lines.map((l) => l.segments.map((s) => s.price))).eql([[0.1], [0.9]]);
      should([d.minPrice, d.maxPrice]).eql([0.1, 0.9]);
      should(JSON.parse(JSON.stringify(d.lines[1].sensors))).eql(jsonSensors(gw, sensor, 1));
    });

    it(`SensorHistory and computeCost: ${label}`, () => {
      const history = new SensorHistory([{ gatewayId: gw, sensorId: sensor }]);
      history.record(gw, sensor, NOW, 0);
      history.record(gw, sensor, NOW + HOUR, 1);
      history.record(gw, 'other', NOW, 1);
      const timelines = history.timelines();
      should(nestedField(timelines, gw, sensor)).eql([
        [NOW, 0],
        [NOW + HOUR, 1],
      ]);
      const cost = computeCost(
        sensorTariff('T', gw, sensor),
        [
          [NOW, 0],
          [NOW + HOUR, 1],
          [NOW + 2 * HOUR, 3],
        ],
        { timezone: 'UTC', sensors: timelines },
      );
      should(cost.net).be.approximately(0.1 + 2 * 0.9, 1e-12);
      should(cost.unknownSensors).eql([]);
      const none = computeCost(
        sensorTariff('T', gw, sensor),
        [
          [NOW, 0],
          [NOW + HOUR, 1],
        ],
        { timezone: 'UTC', sensors: {} },
      );
      should([none.net, none.unknownSensors]).eql([0.1, [{ gatewayId: gw, sensorId: sensor }]]);
    });
  }

  for (const id of HOSTILE) {
    it(`readSensors and decodeSensorId: a sensor "${id}" in JSON and CSV answers`, async () => {
      const item = { id, name: id, timestamp: '2026-06-10T12:00Z', value: 1, unit: 'kWh', interval: 60 };
      const fromJson = await readSensors(JSON.stringify([item]), 'application/json', id);
      should(fromJson.map((s) => [s.id, s.name, s.value])).eql([[id, id, 1]]);
      const csv = `id,name,timestamp,value,unit,interval,${id}\n"${id}","${id}",2026-06-10T12:00Z,1,"kWh",60,{}\n`;
      const fromCsv = await readSensors(csv, 'text/csv', id);
      should(fromCsv.map((s) => [s.id, s.name, s.value, s.unit, s.interval])).eql([[id, id, 1, 'kWh', 60]]);
      should(decodeSensorId(id)).eql({ kind: 'unknown' });
    });
  }
});
