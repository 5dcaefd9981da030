import should from 'should';
import { dataRecord, nestedField, ownField, setNested } from '../../nodes/lib/engine/common/id-map';
import { priceAt, schedule } from '../../nodes/lib/engine/prices/price-source';
import { computeCost } from '../../nodes/lib/engine/cost/cost';

const HOSTILE = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

describe('id-map: ids are data, never prototype keys', () => {
  afterEach(() => {
    // nothing written onto Object.prototype by any case
    should(({} as Record<string, unknown>).polluted).be.undefined();
    should(Object.keys).be.a.Function();
    should(typeof ({} as Record<string, unknown>)['x-gw']).equal('undefined');
  });

  for (const id of HOSTILE) {
    it(`setNested/nestedField keep "${id}" as an ordinary key`, () => {
      const rec = dataRecord<Record<string, number>>();
      setNested(rec, id, id, 7);
      setNested(rec, id, 'other', 8);
      should(nestedField(rec, id, id)).equal(7);
      should(nestedField(rec, id, 'other')).equal(8);
      should(Object.keys(rec)).eql([id]);
      should(Object.getPrototypeOf(rec)).be.null();
    });

    it(`ownField does not read "${id}" from Object.prototype`, () => {
      should(ownField({}, id)).be.undefined();
      should(nestedField({}, id, 'keys')).be.undefined();
      should(ownField(JSON.parse(`{"${id}": 3}`), id)).equal(3);
    });

    it(`a sensor rule on gateway "${id}", sensor "${id}" prices as data`, () => {
      const tariff = {
        id: id,
        name: 'hostile',
        vat: 0,
        currency: 'EUR',
        rules: [
          { priority: 1, price: 0.55, gateway_id: id, sensor_id: id, sensor_value: 1, sensor_condition: 'eq' },
          { priority: 2, price: 0.22 },
        ],
      };
      const on = JSON.parse(`{"${id}": {"${id}": 1}}`);
      const off = JSON.parse(`{"${id}": {"${id}": 0}}`);
      should(priceAt(tariff, 0, { timezone: 'UTC', sensors: on })!.price).equal(0.55);
      should(priceAt(tariff, 0, { timezone: 'UTC', sensors: off })!.price).equal(0.22);
      // no sensors given: {}[id] must not find Object.prototype's members
      const unknown = priceAt(tariff, 0, { timezone: 'UTC', sensors: {} })!;
      should(unknown.price).equal(0.22);
      should(unknown.unknownSensors).eql([{ gatewayId: id, sensorId: id }]);
      should(schedule(tariff, 0, 3600_000, { timezone: 'UTC', sensors: {} })[0].price).equal(0.22);
      const timeline = JSON.parse(`{"${id}": {"${id}": [[0, 1]]}}`);
      const cost = computeCost(
        tariff,
        [
          [0, 0],
          [3600_000, 2],
        ],
        { timezone: 'UTC', sensors: timeline },
      );
      should(cost.net).be.approximately(1.1, 1e-12);
      const none = computeCost(
        tariff,
        [
          [0, 0],
          [3600_000, 2],
        ],
        { timezone: 'UTC', sensors: {} },
      );
      should(none.net).be.approximately(0.44, 1e-12);
    });
  }
});
