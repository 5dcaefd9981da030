// Ids from a hostile (or merely odd) service through the real runtime: tariffs, gateways
// and sensors named `__proto__`, `constructor`, `prototype`, `toString`, `hasOwnProperty`
// (the simulator serves them verbatim) priced by easy-tariff with sensor polling and from
// wired-in messages, sent by easy-sensors, costed by easy-cost's range and stream modes and
// charted by the schedule route. They
// are data: each gets its right price, Object.prototype stays untouched and the runtime
// keeps answering.
import should from 'should';
import { Simulator } from '../../sim/server';
import easyCost = require('../../nodes/easy-cost');
import easySensors = require('../../nodes/easy-sensors');
import easyTariff = require('../../nodes/easy-tariff');
import { accountNode, catchNodes, FlowNode, helper, inbox, loadFlow, quiet, withSimulator } from './flow-support';

/** Gateway id, sensor id: every hostile name as a gateway and as a sensor. */
const PAIRS: Array<[string, string]> = [
  ['__proto__', 'keys'],
  ['constructor', 'keys'],
  ['prototype', 'toString'],
  ['toString', 'valueOf'],
  ['hasOwnProperty', '__proto__'],
];
const HOUR = 3600_000;
const ON_PRICE = 0.9;
const OFF_PRICE = 0.1;

/** Tariff `<gateway>`: ON_PRICE while sensor <gateway>/<sensor> is 1, else OFF_PRICE. */
function tariffFor([gateway, sensor]: [string, string]) {
  return {
    id: gateway,
    name: `reads ${gateway}/${sensor}`,
    vat: 0,
    currency: 'EUR',
    rules: [
      { priority: 1, price: ON_PRICE, gateway_id: gateway, sensor_id: sensor, sensor_value: 1, sensor_condition: 'eq' },
      { priority: 2, price: OFF_PRICE },
    ],
  };
}

/** JSON text with `key` as an own key even when it is "__proto__" (an object literal would set the prototype). */
function record(entries: Array<[string, unknown]>): Record<string, unknown> {
  return JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`);
}

function prototypeState() {
  return { names: Object.getOwnPropertyNames(Object.prototype).sort(), keys: Object.keys, toString: Object.prototype.toString };
}

describe('hostile ids through the runtime', function () {
  this.timeout(20000);
  let sim: Simulator;
  const before0 = prototypeState();
  const now = Math.floor(Date.now() / 60_000) * 60_000;
  const from = now - 6 * HOUR;
  const to = now - HOUR;

  before(async () => {
    sim = await withSimulator();
    const sensorRows = (sensor: string) => [
      {
        id: sensor,
        name: `sensor ${sensor}`,
        timestamp: new Date(now).toISOString().slice(0, 16) + 'Z',
        value: 1,
        unit: null,
        interval: 60,
      },
    ];
    sim.setAnswers({
      tariffs: PAIRS.map(tariffFor),
      sensors: record(PAIRS.map(([g, s]) => [g, sensorRows(s)])),
      // each rule's sensor is on (1) over the whole range, and a meter that counts 10 kWh in it
      data: record([
        ...PAIRS.map(([g, s]): [string, unknown] => [`${g}/${s}`, [[new Date(from - HOUR).toISOString(), 1]]]),
        [
          'meter/e1.kwh',
          [
            [new Date(from).toISOString(), 100],
            [new Date(to).toISOString(), 110],
          ],
        ],
      ]),
    });
  });
  after(() => sim.close());
  afterEach(async () => {
    await helper.unload();
    const after0 = prototypeState();
    should(after0.names).eql(before0.names);
    should(after0.keys).equal(before0.keys);
    should(after0.toString).equal(before0.toString);
    should(({} as Record<string, unknown>).keys).be.undefined();
    should(Object.keys({ a: 1 })).eql(['a']);
    should(String({})).equal('[object Object]');
  });

  it('easy-tariff polls the sensors its rules read and prices each hostile id right', async () => {
    const flow: FlowNode[] = [accountNode(sim, 'UTC')];
    PAIRS.forEach(([g], i) =>
      flow.push(
        { id: `t${i}`, type: 'easy-tariff', account: 'acc', tariff: g, refresh: 60, wires: [[`out${i}`]] },
        { id: `out${i}`, type: 'helper' },
      ),
    );
    await loadFlow([easyTariff], flow);
    for (let i = 0; i < PAIRS.length; i++) {
      const box = inbox(`out${i}`);
      // the first price may come before the sensor's first poll (unknown sensor: the fallback)
      let last: Record<string, any> | undefined;
      for (let k = 0; k < 3 && last?.payload.price !== ON_PRICE; k++) [last] = await box.next(1, 5000).catch(() => [last!]);
      should(last!.payload).match({ tariffId: PAIRS[i][0], price: ON_PRICE, unknownSensors: [] });
    }
  });

  it('easy-sensors sends the sensors of hostile gateways under their own ids', async () => {
    const flow: FlowNode[] = [accountNode(sim, 'UTC')];
    PAIRS.forEach(([g], i) =>
      flow.push(
        {
          id: `s${i}`,
          type: 'easy-sensors',
          account: 'acc',
          gateway: g,
          interval: 60,
          output: 'each',
          onlyChanged: false,
          sensors: '',
          wires: [[`out${i}`]],
        },
        { id: `out${i}`, type: 'helper' },
      ),
    );
    await loadFlow([easySensors], flow);
    for (let i = 0; i < PAIRS.length; i++) {
      const [msg] = await inbox(`out${i}`).next(1, 5000);
      should(msg).match({ topic: PAIRS[i][1], gateway: PAIRS[i][0] });
      should(msg.payload).match({ id: PAIRS[i][1], value: 1 });
    }
  });

  it('easy-cost range mode reads the sensor timelines of hostile ids and costs at their price', async () => {
    const flow: FlowNode[] = [accountNode(sim, 'UTC'), ...catchNodes()];
    PAIRS.forEach(([g], i) =>
      flow.push(
        { id: `c${i}`, type: 'easy-cost', account: 'acc', tariff: g, mode: 'range', wires: [[`out${i}`]] },
        { id: `out${i}`, type: 'helper' },
      ),
    );
    await loadFlow([easyCost], flow);
    const caught = inbox('caught');
    for (let i = 0; i < PAIRS.length; i++) {
      const out = inbox(`out${i}`);
      helper.getNode(`c${i}`).receive({ gateway: 'meter', sensor: 'e1.kwh', from, to });
      const [msg] = await out
        .next(1, 5000)
        .catch((err) =>
          Promise.reject(new Error(`${err.message}; caught: ${JSON.stringify(caught.received.map((m) => m.error?.message))}`)),
        );
      should(msg.payload.energy).be.approximately(10, 1e-9);
      should(msg.payload.net).be.approximately(10 * ON_PRICE, 1e-9);
      should(msg.payload.unpricedEnergy).equal(0);
    }
  });

  it('easy-cost stream mode follows the live values of hostile sensors and costs at their price', async () => {
    const flow: FlowNode[] = [accountNode(sim, 'UTC'), ...catchNodes()];
    PAIRS.forEach(([g], i) =>
      flow.push(
        { id: `c${i}`, type: 'easy-cost', account: 'acc', tariff: g, mode: 'stream', wires: [[`out${i}`]] },
        { id: `out${i}`, type: 'helper' },
      ),
    );
    sim.resetRequests();
    await loadFlow([easyCost], flow);
    // every gateway polled (the sensor's value is 1 from `now` on)
    for (
      let k = 0;
      k < 200 && new Set(sim.requests.filter((r) => r.endpoint === 'sensors' && r.status === 200).map((r) => r.path)).size < PAIRS.length;
      k++
    )
      await quiet(20);
    await quiet(50);
    for (let i = 0; i < PAIRS.length; i++) {
      const out = inbox(`out${i}`);
      const node = helper.getNode(`c${i}`);
      node.receive({ payload: 100, ts: now + 60_000 });
      node.receive({ payload: 110, ts: now + 120_000 });
      const [, second] = await out.next(2, 5000);
      should(second.payload.total.energy).be.approximately(10, 1e-9);
      should(second.payload.total.net).be.approximately(10 * ON_PRICE, 1e-9);
    }
  });

  it('easy-tariff takes hostile sensor ids from wired-in messages too', async () => {
    const [g, s] = PAIRS[1];
    await loadFlow(
      [easyTariff],
      [
        accountNode(sim, 'UTC'),
        { id: 't', type: 'easy-tariff', account: 'acc', tariff: g, refresh: 60, wires: [['out']] },
        { id: 'out', type: 'helper' },
      ],
    );
    const out = inbox('out');
    let last: Record<string, any> | undefined;
    for (let k = 0; k < 3 && last?.payload.price !== ON_PRICE; k++) [last] = await out.next(1, 5000);
    helper.getNode('t').receive({ topic: s, gateway: g, payload: 0 });
    const [off] = await out.next(1);
    should(off.payload).match({ tariffId: g, price: OFF_PRICE });
    helper.getNode('t').receive({ topic: s, gateway: g, payload: { id: s, value: 1 } });
    const [on] = await out.next(1);
    should(on.payload).match({ tariffId: g, price: ON_PRICE });
  });

  it('the schedule route charts hostile ids: the base line at the fallback, the sensor line at its price', async () => {
    await loadFlow([], [accountNode(sim, 'UTC')]);
    for (const [g, s] of PAIRS) {
      const res = await (helper as any)
        .request()
        .post('/easy-account/schedule')
        .send({ id: 'acc', tariff: g })
        .set('Content-Type', 'application/json');
      should(res.status).equal(200, res.text);
      should(res.body).match({ tariffId: g, minPrice: OFF_PRICE, maxPrice: ON_PRICE });
      should(res.body.lines.map((l: any) => l.key)).eql(['base', `${g}/${s}=1`]);
      should(res.body.lines[1].changed).eql({ gatewayId: g, sensorId: s, value: 1 });
      should(res.body.lines[0].segments.every((x: any) => x.price === OFF_PRICE)).be.true();
      should(res.body.lines[1].segments.every((x: any) => x.price === ON_PRICE)).be.true();
      const list = await (helper as any)
        .request()
        .post('/easy-account/tariffs')
        .send({ id: 'acc' })
        .set('Content-Type', 'application/json');
      should(list.body.tariffs.map((t: any) => t.id)).eql(PAIRS.map(([id]) => id));
    }
    should((await (helper as any).request().get('/easy-account/timezones')).status).equal(200);
  });
});
