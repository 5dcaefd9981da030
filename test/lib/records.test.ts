// Records (docs/records.md): which InfluxDB points and Home Assistant entities each figure
// makes, checked against a plain reference on generated payloads, then attacked with
// hostile ids, missing and wrong fields. The real servers' side is test/servers/.
import should from 'should';
import fc from 'fast-check';
import { influxMessages, recordPoint } from '../../nodes/lib/engine/records/influx-points';
import { planPoints, pricePoints, rangeCostPoints, streamCostPoints, switchPoints } from '../../nodes/lib/engine/records/figure-points';
import { haDiscovery, HaEntity, haObjectId, haState, HaTarget } from '../../nodes/lib/engine/records/home-assistant';
import { planEntities, priceEntities, streamCostEntities, switchEntities } from '../../nodes/lib/engine/records/ha-figures';
import { MAX_ANNOUNCED, RecordsOutput, recordsSettings } from '../../nodes/lib/runtime/common/records-output';
import { MAX_METERS } from '../../nodes/lib/engine/common/limits';

const DAY = 86_400_000;
const amount = fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true });
const id = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'e1.kwh', 'DEMO', 'a b/c+#'), fc.string({ maxLength: 12 }));
const bucket = fc.record({
  fromMs: fc.integer({ min: 0, max: 4e12 }),
  energy: amount,
  net: amount,
  gross: amount,
  unpricedEnergy: amount,
  intervals: fc.nat(1000),
  resets: fc.nat(5),
  currency: fc.constant('GBP'),
});
const withEnd = <T extends { fromMs: number }>(b: T) => ({ ...b, toMs: b.fromMs + DAY });

describe('records', () => {
  describe('InfluxDB points', () => {
    it('a stream message makes one running point per period at its start, and one final point per closed period (reference on 500 payloads)', () => {
      fc.assert(
        fc.property(
          id,
          id,
          fc.option(bucket.map(withEnd), { nil: null }),
          bucket.map(withEnd),
          bucket.map(withEnd),
          fc.option(bucket.map(withEnd)),
          (gateway, topic, today, week, month, closedDay) => {
            const payload = {
              tariffId: 'T',
              currency: 'GBP',
              meter: { gateway, topic, name: 'x' },
              today,
              week,
              month,
              ...(closedDay ? { closed: { day: closedDay } } : {}),
            };
            const points = streamCostPoints(payload);
            // the reference: what the doc says, spelled out
            const expected: Array<[string, string, number, number]> = [];
            if (closedDay) expected.push(['energy_cost', 'day', closedDay.fromMs, closedDay.gross]);
            for (const [p, b] of [
              ['day', today],
              ['week', week],
              ['month', month],
            ] as const)
              if (b) expected.push(['energy_cost_running', p, b.fromMs, b.gross]);
            should(points.map((p) => [p.measurement, p.tags.period, p.timestamp, p.fields.gross])).eql(expected);
            for (const p of points) {
              should(Object.getPrototypeOf(p.tags)).equal(Object.prototype);
              should(p.tags).eql({
                tariff: 'T',
                currency: 'GBP',
                ...(gateway ? { gateway } : {}),
                ...(topic ? { meter: topic } : {}),
                period: p.tags.period,
              });
              for (const v of Object.values(p.fields)) should(typeof v === 'boolean' || Number.isFinite(v)).be.true();
            }
          },
        ),
        { numRuns: 500 },
      );
    });

    it('the price is a point at the instant it took effect, none without a price; tags never hold what changes', () => {
      const payload = {
        price: 0.2,
        gross: 0.24,
        vat: 20,
        currency: 'GBP',
        tariffId: 'T',
        validFromMs: 1000,
        validUntilMs: 5000,
        ruleIndex: 2,
        stale: false,
      };
      should(pricePoints(payload, 9999)).eql([
        {
          measurement: 'energy_price',
          tags: { tariff: 'T', currency: 'GBP' },
          fields: { price: 0.2, gross: 0.24, vat: 20 },
          timestamp: 1000,
        },
      ]);
      should(pricePoints({ ...payload, validFromMs: null }, 9999)[0].timestamp).equal(9999); // beyond the look-back: when it was sent
      should(pricePoints({ ...payload, price: null }, 1)).eql([]);
      for (const junk of [null, 'x', 42, [], { price: 'cheap' }, { price: NaN }]) should(pricePoints(junk, 1)).eql([]);
    });

    it('a range is one point at its start (the named period kind as its tag), a split range one more per day', () => {
      const payload = {
        tariffId: 'T',
        currency: 'GBP',
        gateway: 'G',
        sensor: 'e1.kwh',
        fromMs: 0,
        toMs: 2 * DAY,
        energy: 3,
        net: 1,
        gross: 1.2,
        days: [withEnd({ fromMs: 0, energy: 1, net: 0.5, gross: 0.6 }), withEnd({ fromMs: DAY, energy: 2, net: 0.5, gross: 0.6 })],
      };
      const points = rangeCostPoints(payload, 'last-month');
      should(points.map((p) => [p.measurement, p.tags.period, p.timestamp])).eql([
        ['energy_cost', 'month', 0],
        ['energy_cost', 'day', 0],
        ['energy_cost', 'day', DAY],
      ]);
      should(rangeCostPoints(payload, undefined)[0].tags.period).equal('range');
      should(rangeCostPoints(payload, '__proto__')[0].tags.period).equal('range');
      for (const p of points) should(p.tags).not.have.property('direction');
      // an export meter's range (and each of its days) is tagged as its credit, as in stream mode
      const exported = rangeCostPoints({ ...payload, direction: 'export' }, 'last-month');
      should(exported.map((p) => p.tags.direction)).eql(['export', 'export', 'export']);
    });

    it('a plan is a point at its window start; the switch a point with on 1/0', () => {
      const plan = {
        tariffId: 'T',
        currency: 'GBP',
        request: 'plan',
        window: { fromMs: 5000 },
        requested: 3 * 3600_000,
        planned: 3600_000,
        shortfall: 'only 1 h of 3 h planned: the window ends at 07:00',
        slots: [{}, {}],
        averagePrice: 0.1,
        costPerKw: { net: 0.1, gross: 0.12 },
      };
      should(planPoints(plan, 'heater')).eql([
        {
          measurement: 'plan',
          tags: { tariff: 'T', currency: 'GBP', plan: 'heater', request: 'plan' },
          fields: {
            requested_hours: 3,
            planned_hours: 1,
            shortfall_hours: 2,
            slots: 2,
            average_price: 0.1,
            cost_per_kw_net: 0.1,
            cost_per_kw_gross: 0.12,
          },
          timestamp: 5000,
        },
      ]);
      // the shortfall is counted from the hours, never read from the message's text
      should(planPoints({ ...plan, planned: plan.requested, shortfall: null }, 'heater')[0].fields.shortfall_hours).equal(0);
      should(switchPoints('on', 'heater', 7)[0]).eql({
        measurement: 'plan_switch',
        tags: { plan: 'heater' },
        fields: { on: 1, outside: false },
        timestamp: 7,
      });
      should(switchPoints('sideways', 'heater', 7)).eql([]);
    });

    it('no point without a field or an instant; empty tags are left out', () => {
      should(recordPoint('m', { a: '' }, { x: 'text', y: NaN, z: Infinity }, 1)).be.null();
      should(recordPoint('m', { a: 'x' }, { x: 1 }, NaN)).be.null();
      should(recordPoint('m', { a: '', b: null, c: 'c' }, { x: 1 }, 1.7)).eql({
        measurement: 'm',
        tags: { c: 'c' },
        fields: { x: 1 },
        timestamp: 1,
      });
    });

    it('messages in the shapes `influxdb out` and `influxdb batch` take, precision ms', () => {
      const p = recordPoint('energy_price', { tariff: 'T' }, { price: 1 }, 123)!;
      should(influxMessages([p, p], 'influx-out')).eql([
        { topic: 'energy_price', measurement: 'energy_price', precision: 'ms', payload: [{ price: 1, time: 123 }, { tariff: 'T' }] },
        { topic: 'energy_price', measurement: 'energy_price', precision: 'ms', payload: [{ price: 1, time: 123 }, { tariff: 'T' }] },
      ]);
      should(influxMessages([p], 'influx-batch')).eql([
        {
          topic: 'records',
          precision: 'ms',
          payload: [{ measurement: 'energy_price', tags: { tariff: 'T' }, fields: { price: 1 }, timestamp: 123 }],
        },
      ]);
      should(influxMessages([], 'influx-out')).eql([]);
    });
  });

  describe('Home Assistant', () => {
    const target: HaTarget = { device: 'easy energy', nodeId: 'n1', prefix: 'homeassistant', base: 'node-red-easy' };

    it('object ids are topic-safe and keep different ids apart (2,000 generated pairs)', () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 }), (a, b) => {
          for (const x of [a, b]) should(haObjectId(x)).match(/^[A-Za-z0-9_-]+$/);
          if (a !== b) should(haObjectId(a)).not.equal(haObjectId(b));
        }),
        { numRuns: 2000 },
      );
      should(haObjectId('e1.kwh')).not.equal(haObjectId('e1_kwh'));
    });

    it('a cost that resets each period is `total` with last_reset; the meter is `total_increasing` kWh; the price has the currency per kWh', () => {
      const payload = {
        currency: 'EUR',
        meter: { gateway: 'G', topic: 'e1.kwh', name: 'G/e1.kwh' },
        today: withEnd({ fromMs: DAY, energy: 2, gross: 0.5 }),
        reading: { value: 1234.5 },
      };
      const entities = streamCostEntities(payload);
      const cost = entities.find((e) => e.objectId.endsWith('cost_today'))!;
      should(cost).match({ unit: 'EUR', deviceClass: 'monetary', stateClass: 'total', value: 0.5, lastReset: DAY });
      should(entities.find((e) => e.objectId.endsWith('energy_today'))).match({ unit: 'kWh', deviceClass: 'energy', stateClass: 'total' });
      should(entities.find((e) => e.objectId.endsWith('meter'))).match({
        unit: 'kWh',
        deviceClass: 'energy',
        stateClass: 'total_increasing',
        value: 1234.5,
      });
      for (const e of entities) should(e.stateClass).not.equal(e.lastReset === undefined ? 'total' : 'total_increasing');
      const config = haDiscovery(target, cost);
      should(config).match({ topic: `homeassistant/sensor/n1/${cost.objectId}/config`, retain: true });
      should(config.payload).match({
        state_class: 'total',
        device_class: 'monetary',
        unit_of_measurement: 'EUR',
        last_reset_value_template: '{{ value_json.last_reset }}',
        value_template: '{{ value_json.value }}',
        availability_topic: 'node-red-easy/status',
        state_topic: `node-red-easy/n1/${cost.objectId}`,
        device: { identifiers: ['node-red-easy_' + haObjectId('easy energy')], name: 'easy energy' },
      });
      should(haState(target, cost)).eql({
        topic: `node-red-easy/n1/${cost.objectId}`,
        payload: { value: 0.5, last_reset: new Date(DAY).toISOString() },
        retain: true,
        qos: 0,
      });
      should(priceEntities({ currency: 'GBP', gross: 0.3, price: 0.25 })[0]).match({
        unit: 'GBP/kWh',
        stateClass: 'measurement',
        value: 0.3,
      });
      should(priceEntities({ gross: 0.3 })).eql([]); // no currency: no unit to state
      should(switchEntities('outside')[0]).match({ deviceClass: 'enum', options: ['on', 'off', 'outside'], value: 'outside' });
      should(planEntities({ slots: [{ fromMs: 10 }, { fromMs: 50 }], planned: 3600_000 }, 20).map((e) => e.value)).eql([
        new Date(50).toISOString(),
        1,
      ]);
    });

    it('configs go out once per entity (again when one changes), online before the states', () => {
      const out = new RecordsOutput(recordsSettings({ id: 'n1', type: 'easy-tariff', records: 'homeassistant' })!);
      const first = out.price({ currency: 'GBP', gross: 0.3, price: 0.25 }, 0);
      should(first.map((m) => m.topic)).eql([
        'homeassistant/sensor/n1/price/config',
        'homeassistant/sensor/n1/price_net/config',
        'node-red-easy/status',
        'node-red-easy/n1/price',
        'node-red-easy/n1/price_net',
      ]);
      should(out.price({ currency: 'GBP', gross: 0.31, price: 0.26 }, 0).map((m) => m.topic)).eql([
        'node-red-easy/n1/price',
        'node-red-easy/n1/price_net',
      ]);
      should(out.price({ currency: 'EUR', gross: 0.31, price: 0.26 }, 0)).have.length(5); // the unit changed: configs again
    });

    it('a config goes out exactly when its text would differ from the last one sent for that object id (reference: the texts compared, 300 generated runs)', () => {
      const entity = fc.record(
        {
          objectId: fc.constantFrom('a', 'b', '__proto__'),
          name: fc.constantFrom('A', 'B'),
          unit: fc.constantFrom('kWh', 'EUR'),
          deviceClass: fc.constantFrom('energy' as const, 'monetary' as const),
          stateClass: fc.constantFrom('total' as const, 'measurement' as const),
          options: fc.constantFrom<string[]>(['on', 'off'], ['on', 'off', 'outside'], ['on', 'of']).map((o) => [...o]), // new arrays: compared by content
          icon: fc.constantFrom('mdi:cash', 'mdi:flash'),
          value: fc.oneof(fc.constant(null), fc.double({ noNaN: true })),
          lastReset: fc.integer({ min: 0, max: 4e12 }),
        },
        { requiredKeys: ['objectId', 'name', 'value'] },
      );
      fc.assert(
        fc.property(fc.array(fc.array(entity, { maxLength: 4 }), { maxLength: 12 }), (calls) => {
          const settings = recordsSettings({ id: 'n1', type: 'easy-cost', records: 'homeassistant' })!;
          const out = new RecordsOutput(settings);
          const sentTexts = new Map<string, string>();
          for (const list of calls) {
            // the reference: every config built and compared as text with the last sent
            const want: string[] = [];
            for (const e of list) {
              const config = haDiscovery(settings.target, e);
              const text = JSON.stringify(config.payload);
              if (sentTexts.get(e.objectId) === text) continue;
              sentTexts.set(e.objectId, text);
              want.push(config.topic);
            }
            const got = (out as unknown as { out(p: () => never[], e: () => HaEntity[]): Array<{ topic: string }> })
              .out(
                () => [],
                () => list,
              )
              .filter((m) => m.topic.endsWith('/config'))
              .map((m) => m.topic);
            should(got).eql(want);
          }
        }),
        { numRuns: 300 },
      );
    });

    it('remembers the configs of MAX_METERS meters for good; a flood of other meters (after resets) is forgotten, not kept without bound', () => {
      const out = new RecordsOutput(recordsSettings({ id: 'n1', type: 'easy-cost', records: 'homeassistant' })!);
      const reading = (m: number) => ({
        currency: 'EUR',
        meter: { gateway: 'G', topic: `e${m}.kwh`, name: `G/e${m}.kwh` },
        today: { fromMs: DAY, energy: 2, gross: 0.5 },
        week: { fromMs: DAY, energy: 2, gross: 0.5 },
        month: { fromMs: DAY, energy: 2, gross: 0.5 },
        reading: { value: 1234.5 + m },
      });
      const configs = (m: number) => out.streamCost(reading(m)).filter((msg) => String(msg.topic).endsWith('/config')).length;
      for (let m = 0; m < MAX_METERS; m++) should(configs(m)).equal(7);
      for (let round = 0; round < 3; round++) for (let m = 0; m < MAX_METERS; m++) should(configs(m)).equal(0);
      let sent = 0;
      for (let m = MAX_METERS; m < 20_000; m++) sent += configs(m);
      should(sent).equal(7 * (20_000 - MAX_METERS));
      should(MAX_ANNOUNCED).be.aboveOrEqual(7 * MAX_METERS);
      should(configs(0)).equal(7); // forgotten in the flood: announced again (retained, HA takes it unchanged)
    });

    it('settings: off, formats, topics refused in words', () => {
      should(recordsSettings({ id: 'x', type: 't' })).be.null();
      should(recordsSettings({ id: 'x', type: 't', records: '' })).be.null();
      should(() => recordsSettings({ id: 'x', type: 't', records: 'csv' })).throw(
        /records must be one of influx-out, influx-batch, homeassistant/,
      );
      should(() => recordsSettings({ id: 'x', type: 't', records: 'homeassistant', recordsTopic: 'a/#' })).throw(
        /not a topic one may publish to/,
      );
      should(recordsSettings({ id: 'x.y', type: 't', records: 'homeassistant', recordsTopic: ' site/ ' })!.target).match({
        base: 'site',
        nodeId: haObjectId('x.y'),
      });
    });
  });
});
