import should from 'should';
import * as http from 'http';
import { parse as parseCsv } from 'csv-parse/sync';
import { startSimulator, Simulator } from '../../sim/server';
import { DEMO_SENSORS, MAX_ARCHIVE_POINTS, energyKwh, generatorOn } from '../../sim/demo-data';
import { getJson, manualClock, request } from './helpers';

// Wednesday 6 March 2024, 14:07:30 UTC: the generator is off (it runs :00-:05, :15-:20, ...).
const T0 = '2024-03-06T14:07:30Z';

describe('simulator: endpoints', () => {
  const clock = manualClock(T0);
  let sim: Simulator;

  before(async () => {
    sim = await startSimulator({ now: clock.now });
  });
  after(() => sim.close());
  beforeEach(() => clock.set(T0));

  it('listens on loopback on a free port by default', () => {
    should(sim.url).match(/^http:\/\/127\.0\.0\.1:\d+$/);
    should(sim.port).be.above(0);
  });

  describe('GET /easy/v1/tariffs', () => {
    it('returns the demo tariffs as a JSON array, with or without .json', async () => {
      const withSuffix = await request(sim.url, '/easy/v1/tariffs.json');
      const without = await request(sim.url, '/easy/v1/tariffs');
      should(withSuffix.status).equal(200);
      should(withSuffix.headers['content-type']).match(/^application\/json/);
      should(without.body).equal(withSuffix.body);
      const ids = JSON.parse(withSuffix.body).map((t: { id: string }) => t.id);
      should(ids).containDeep(['DEMO-WORKDAY', 'DEMO-NIGHT', 'DEMO-WEEKEND', 'DEMO-GENERATOR', 'DEMO-FLAT', 'Q123456789', 'Q123456799']);
    });

    it('includes the interface example, a night range over midnight, the weekday spelling and a generator rule', async () => {
      const { json } = await getJson(sim.url, '/easy/v1/tariffs.json');
      const byId = (id: string) => json.find((t: { id: string }) => t.id === id);
      should(byId('DEMO-WORKDAY').rules.map((r: { priority: number }) => r.priority)).eql([50, 60, 70]);
      should(byId('DEMO-WORKDAY').rules[0]).containEql({ time_start: '09:00', time_end: '17:00', weekdays: [1, 2, 3, 4, 5] });
      should(byId('DEMO-NIGHT').rules[0]).containEql({ time_start: '22:00', time_end: '06:00:00' });
      should(byId('DEMO-WEEKEND').rules[0]).have.property('weekday').eql([6, 7]);
      should(byId('DEMO-WEEKEND').rules[0]).not.have.property('weekdays');
      should(byId('DEMO-GENERATOR').rules[0]).containEql({ gateway_id: 'DEMO', sensor_id: '1', sensor_value: 1, sensor_condition: 'eq' });
    });

    it('answers with the tariffs option instead of the demo tariffs, asked afresh each request', async () => {
      let calls = 0;
      const custom = await startSimulator({
        tariffs: () => [{ id: `T${++calls}`, name: 'n', vat: 0, currency: 'GBP', rules: [{ priority: 1, price: 1 }] }],
      });
      try {
        should((await getJson(custom.url, '/easy/v1/tariffs.json')).json[0].id).equal('T1');
        should((await getJson(custom.url, '/easy/v1/tariffs.json')).json[0].id).equal('T2');
      } finally {
        await custom.close();
      }
    });

    it('has no CSV form: tariffs.csv is 406, and Accept: text/csv still gets JSON', async () => {
      should((await request(sim.url, '/easy/v1/tariffs.csv')).status).equal(406);
      const res = await request(sim.url, '/easy/v1/tariffs', { headers: { Accept: 'text/csv' } });
      should(res.headers['content-type']).match(/^application\/json/);
    });
  });

  describe('authorisation', () => {
    for (const [label, token] of [
      ['no Authorization header', null],
      ['an unknown token', 'not-a-token'],
      ['an empty token', ''],
    ] as const) {
      it(`answers 401 with a JSON error to ${label}, on every endpoint`, async () => {
        for (const path of [
          '/easy/v1/tariffs.json',
          '/easy/v1/gateways/DEMO.json',
          '/easy/v1/gateways/DEMO/e1.kwh/data.json?from=2024-03-06T14:00Z',
        ]) {
          const res = await request(sim.url, path, { token });
          should(res.status).equal(401, path);
          should(JSON.parse(res.body)).have.property('error', 'unauthorized');
          should(res.headers['www-authenticate']).match(/^Bearer/);
        }
      });
    }

    it('answers 401 to a scheme other than Bearer', async () => {
      const res = await request(sim.url, '/easy/v1/tariffs.json', { token: null, headers: { Authorization: 'Basic demo-token' } });
      should(res.status).equal(401);
    });

    it('answers 403 on tariffs to demo-no-tariffs, which still reads sensors', async () => {
      const tariffs = await getJson(sim.url, '/easy/v1/tariffs.json', 'demo-no-tariffs');
      should(tariffs.status).equal(403);
      should(tariffs.json).have.property('error', 'forbidden');
      should((await request(sim.url, '/easy/v1/gateways/DEMO.json', { token: 'demo-no-tariffs' })).status).equal(200);
    });

    it('accepts the tokens it is given instead of the demo ones', async () => {
      const custom = await startSimulator({ tokens: { 'canary-123': { tariffs: true } } });
      try {
        should((await request(custom.url, '/easy/v1/tariffs.json', { token: 'canary-123' })).status).equal(200);
        should((await request(custom.url, '/easy/v1/tariffs.json', { token: 'demo-token' })).status).equal(401);
      } finally {
        await custom.close();
      }
    });
  });

  describe('GET /easy/v1/gateways/{id}', () => {
    it('lists every DEMO sensor with its value and minute timestamp at the clock', async () => {
      const { status, json } = await getJson(sim.url, '/easy/v1/gateways/DEMO.json');
      should(status).equal(200);
      should(json.map((s: { id: string }) => s.id)).eql(DEMO_SENSORS.map((s) => s.id));
      should(json.map((s: { id: string }) => s.id)).containDeep([
        'e1.kwh',
        'e1.v3p@1',
        'e1.i3p@3',
        'e1.freq',
        'e1.pf',
        'e2.kwh',
        '1',
        '2',
        '17',
        '18',
        '129',
        '130',
        '158',
      ]);
      const kwh = json.find((s: { id: string }) => s.id === 'e1.kwh');
      should(kwh).eql({
        id: 'e1.kwh',
        name: 'Main Incomer kWh',
        timestamp: '2024-03-06T14:07Z',
        value: Math.round(energyKwh(Date.parse('2024-03-06T14:07Z')) * 100) / 100,
        unit: 'kWh',
        interval: 60,
      });
      for (const sensor of json) {
        should(sensor.timestamp).match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z$/);
        should(sensor.value).be.a.Number();
        should(sensor.name).be.a.String();
      }
    });

    it('answers 404 with a JSON error for a gateway not on the account, decoding the id', async () => {
      const { status, json } = await getJson(sim.url, '/easy/v1/gateways/NO%20SUCH.json');
      should(status).equal(404);
      should(json).eql({ error: 'not_found', message: 'gateway NO SUCH not found on this account' });
    });

    it('serves the CSV form for .csv and for Accept: text/csv, with the same values as the JSON', async () => {
      const { json } = await getJson(sim.url, '/easy/v1/gateways/DEMO.json');
      const bySuffix = await request(sim.url, '/easy/v1/gateways/DEMO.csv');
      const byAccept = await request(sim.url, '/easy/v1/gateways/DEMO', { headers: { Accept: 'text/csv' } });
      should(bySuffix.status).equal(200);
      should(bySuffix.headers['content-type']).match(/^text\/csv/);
      should(byAccept.body).equal(bySuffix.body);
      should(bySuffix.body.split('\n')[0]).equal('id,name,timestamp,value,unit,interval');
      // Text quoted like the docs sample: e1.kwh,"Main Incomer kWh",2020-01-02T15:22Z,1554.12,"kWh",60
      should(bySuffix.body.split('\n')[1]).match(/^e1\.kwh,"Main Incomer kWh",2024-03-06T14:07Z,[\d.]+,"kWh",60$/);
      const rows = parseCsv(bySuffix.body, { columns: true }) as Array<Record<string, string>>;
      should(rows.map((r) => ({ ...r, value: Number(r.value), interval: Number(r.interval), unit: r.unit || null }))).eql(json);
    });

    it('answers JSON to .json even when Accept asks for CSV', async () => {
      const res = await request(sim.url, '/easy/v1/gateways/DEMO.json', { headers: { Accept: 'text/csv' } });
      should(res.headers['content-type']).match(/^application\/json/);
    });

    it('moves with the clock and is the same for the same instant', async () => {
      const first = await request(sim.url, '/easy/v1/gateways/DEMO.json');
      const again = await request(sim.url, '/easy/v1/gateways/DEMO.json');
      should(again.body).equal(first.body);
      clock.advance(60 * 60_000);
      const hourLater = await getJson(sim.url, '/easy/v1/gateways/DEMO.json');
      const before = JSON.parse(first.body);
      for (const id of ['e1.kwh', 'e1.v3p@1', 'e1.i3p@1', '129', '130']) {
        const value = (list: Array<{ id: string; value: number }>) => list.find((s) => s.id === id)!.value;
        should(value(hourLater.json)).not.equal(value(before), id);
      }
      should(hourLater.json[0].value).be.above(before[0].value);
    });

    it('reports generator input "1" and relay 17 as the schedule says', async () => {
      for (const at of [
        '2024-03-06T14:00:00Z',
        '2024-03-06T14:04:59Z',
        '2024-03-06T14:05:00Z',
        '2024-03-06T14:16:00Z',
        '2024-03-06T14:29:00Z',
      ]) {
        clock.set(at);
        const { json } = await getJson(sim.url, '/easy/v1/gateways/DEMO.json');
        const expected = generatorOn(Date.parse(at)) ? 1 : 0;
        should(json.find((s: { id: string }) => s.id === '1').value).equal(expected, at);
        should(json.find((s: { id: string }) => s.id === '17').value).equal(expected, at);
      }
    });
  });

  describe('GET /easy/v1/gateways/{gw}/{sensor}/data.json', () => {
    const data = '/easy/v1/gateways/DEMO/e1.kwh/data.json';

    it('returns one row per minute, both ends included, timestamps UTC without offset', async () => {
      const { status, json } = await getJson(sim.url, `${data}?from=2024-03-06T12:00Z&to=2024-03-06T12:03:00Z`);
      should(status).equal(200);
      should(json.map((row: [string, number]) => row[0])).eql([
        '2024-03-06T12:00:00',
        '2024-03-06T12:01:00',
        '2024-03-06T12:02:00',
        '2024-03-06T12:03:00',
      ]);
      for (const [ts, value] of json) should(value).equal(Math.round(energyKwh(Date.parse(`${ts}Z`)) * 100) / 100);
    });

    it('ends at now without `to` and never returns the future', async () => {
      const open = await getJson(sim.url, `${data}?from=2024-03-06T14:00Z`);
      const future = await getJson(sim.url, `${data}?from=2024-03-06T14:00Z&to=2030-01-01T00:00Z`);
      should(open.json[open.json.length - 1][0]).equal('2024-03-06T14:07:00');
      should(future.json).eql(open.json);
    });

    it('agrees with the live value of e1.kwh and input "1" at the live timestamp', async () => {
      for (const sensorId of ['e1.kwh', '1']) {
        for (const at of ['2024-03-06T14:07:30Z', '2024-03-06T14:15:10Z', '2024-03-07T02:00:00Z']) {
          clock.set(at);
          const live = (await getJson(sim.url, '/easy/v1/gateways/DEMO.json')).json.find((s: { id: string }) => s.id === sensorId);
          const rows = (await getJson(sim.url, `/easy/v1/gateways/DEMO/${sensorId}/data.json?from=2024-03-06T00:00Z`)).json;
          should(rows[rows.length - 1]).eql([live.timestamp.replace('Z', ':00'), live.value], `${sensorId} at ${at}`);
        }
      }
    });

    it('caps a long range at MAX_ARCHIVE_POINTS with a coarser, round step', async () => {
      clock.set('2025-01-01T00:00:00Z');
      const { json } = await getJson(sim.url, `${data}?from=2024-01-01T00:00Z&to=2025-01-01T00:00Z`);
      should(json.length).be.belowOrEqual(MAX_ARCHIVE_POINTS);
      should(json[0][0]).equal('2024-01-01T00:00:00');
      const stepMs = Date.parse(`${json[1][0]}Z`) - Date.parse(`${json[0][0]}Z`);
      should(stepMs).equal(2 * 3_600_000);
      should(json[json.length - 1][0]).equal('2025-01-01T00:00:00');
      // Cumulative energy never decreases over the year.
      for (let i = 1; i < json.length; i++) should(json[i][1]).be.aboveOrEqual(json[i - 1][1]);
    });

    it('serves other sensors, ids with @ URL-encoded, the path without suffix and the CSV form', async () => {
      const voltage = await getJson(sim.url, '/easy/v1/gateways/DEMO/e1.v3p%401/data.json?from=2024-03-06T14:00Z&to=2024-03-06T14:01Z');
      should(voltage.json).have.length(2);
      const bare = await request(sim.url, `/easy/v1/gateways/DEMO/e1.kwh/data?from=2024-03-06T14:00Z&to=2024-03-06T14:01Z`);
      should(JSON.parse(bare.body)).have.length(2);
      const csv = await request(sim.url, `/easy/v1/gateways/DEMO/e1.kwh/data.csv?from=2024-03-06T14:00Z&to=2024-03-06T14:01Z`);
      should(csv.headers['content-type']).match(/^text\/csv/);
      should(csv.body.split('\n').slice(0, 2)).eql(['timestamp,value', `"2024-03-06T14:00:00",${JSON.parse(bare.body)[0][1]}`]);
    });

    it('returns nothing before the meter started', async () => {
      const { json } = await getJson(sim.url, `${data}?from=2019-12-31T23:00Z&to=2020-01-01T00:01Z`);
      should(json.map((row: [string, number]) => row[0])).eql(['2020-01-01T00:00:00', '2020-01-01T00:01:00']);
    });

    for (const [label, query, message] of [
      ['a missing from', '', /from is required/],
      ['a from without Z', '?from=2024-03-06T12:00', /from must be a UTC/],
      ['a to that is not a date', '?from=2024-03-06T12:00Z&to=yesterday', /to must be a UTC/],
      ['a to before from', '?from=2024-03-06T12:00Z&to=2024-03-06T11:00Z', /before/],
    ] as const) {
      it(`answers 400 to ${label}`, async () => {
        const { status, json } = await getJson(sim.url, `${data}${query}`);
        should(status).equal(400);
        should(json.message).match(message);
      });
    }

    it('answers 404 to an unknown sensor or gateway', async () => {
      should((await request(sim.url, '/easy/v1/gateways/DEMO/e9.kwh/data.json?from=2024-03-06T12:00Z')).status).equal(404);
      should((await request(sim.url, '/easy/v1/gateways/OTHER/e1.kwh/data.json?from=2024-03-06T12:00Z')).status).equal(404);
    });
  });

  it('answers 404 to unknown paths and 405 to other methods', async () => {
    should((await request(sim.url, '/easy/v2/tariffs.json')).status).equal(404);
    should((await request(sim.url, '/easy/v1/gateways/DEMO/e1.kwh')).status).equal(404);
    const post = await request(sim.url, '/easy/v1/tariffs.json', { method: 'POST' });
    should(post.status).equal(405);
    should(post.headers.allow).equal('GET');
  });

  it('gives the same answers to two simulators on the same clock', async () => {
    const other = await startSimulator({ now: clock.now });
    try {
      for (const path of ['/easy/v1/gateways/DEMO.json', '/easy/v1/gateways/DEMO/1/data.json?from=2024-03-06T00:00Z']) {
        should((await request(other.url, path)).body).equal((await request(sim.url, path)).body);
      }
    } finally {
      await other.close();
    }
  });
});

describe('simulator: close()', () => {
  it('keeps idle connections longer than clients (30 s), yet closes promptly while one is open', async () => {
    const sim = await startSimulator();
    const agent = new http.Agent({ keepAlive: true });
    const keepAlive = await new Promise<string | undefined>((resolve, reject) => {
      http
        .get(`${sim.url}/easy/v1/tariffs.json`, { agent, headers: { Authorization: 'Bearer demo-token' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(String(res.headers['keep-alive'])));
        })
        .on('error', reject);
    });
    should(keepAlive).equal('timeout=30');
    const started = Date.now();
    await sim.close();
    agent.destroy();
    should(Date.now() - started).be.below(1000);
  });

  it('closes promptly while a request waits out added latency', async () => {
    const sim = await startSimulator({ faults: { latencyMs: 60_000 } });
    const pending = request(sim.url, '/easy/v1/tariffs.json').catch((err: Error) => err);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await sim.close();
    should(Date.now() - started).be.below(1000);
    should(await pending).be.an.Error();
  });
});
