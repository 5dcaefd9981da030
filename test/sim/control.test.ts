import should from 'should';
import { isLoopback, startSimulator, Simulator } from '../../sim/server';
import { DEFAULT_FAULTS } from '../../sim/faults';
import { getJson, request } from './helpers';

/** A control request: no token, as a test in another process would send it. */
function control(sim: Simulator, method: 'GET' | 'POST', path: string, body?: unknown) {
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return request(sim.url, path, {
    method,
    token: null,
    body: text,
    headers: method === 'POST' ? { 'Content-Type': 'application/json' } : {},
  });
}

describe('simulator: control endpoints and request log', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator();
  });
  after(() => sim.close());
  afterEach(() => {
    sim.clearFaults();
    sim.resetRequests();
  });

  describe('served answers', () => {
    afterEach(() => sim.setAnswers(null));
    const hostile = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

    it('setAnswers serves any JSON verbatim, for any gateway and sensor id, __proto__ included', async () => {
      const sensors = [{ id: 'keys', name: 'x', value: 1, unit: null, interval: 60, timestamp: '2026-01-01T00:00:00Z' }];
      sim.setAnswers({
        tariffs: [1, 'two', { id: '__proto__' }],
        sensors: JSON.parse('{"__proto__": [], "constructor": ' + JSON.stringify(sensors) + '}'),
        data: { 'toString/valueOf': [['2026-01-01T00:00:00', 1]] },
      });
      should(JSON.parse((await request(sim.url, '/easy/v1/tariffs.json')).body)).eql([1, 'two', { id: '__proto__' }]);
      should(JSON.parse((await request(sim.url, '/easy/v1/gateways/constructor.json')).body)).eql(sensors);
      should(JSON.parse((await request(sim.url, '/easy/v1/gateways/__proto__.json')).body)).eql([]);
      should(JSON.parse((await request(sim.url, '/easy/v1/gateways/toString/valueOf/data.json?from=2026-01-01T00:00Z')).body)).eql([
        ['2026-01-01T00:00:00', 1],
      ]);
      // ids not given are the demo account's (and an unknown gateway still 404)
      should((await request(sim.url, '/easy/v1/gateways/DEMO.json')).status).equal(200);
      for (const id of hostile.slice(2)) should((await request(sim.url, `/easy/v1/gateways/${id}.json`)).status).equal(404, id);
      should(({} as Record<string, unknown>).keys).be.undefined();
      sim.setAnswers(null);
      should(JSON.parse((await request(sim.url, '/easy/v1/tariffs.json')).body).length).be.above(3);
    });

    it('over HTTP: POST /__sim/answers sets them, GET shows them, reset clears them', async () => {
      const answers = { tariffs: [], sensors: { __proto__: null, constructor: [{ id: 'hasOwnProperty' }] } };
      const body = JSON.stringify(answers).replace('"sensors":{', '"sensors":{"__proto__":[{"id":"prototype"}],');
      const set = await control(sim, 'POST', '/__sim/answers', body);
      should(set.status).equal(200);
      const shown = JSON.parse((await control(sim, 'GET', '/__sim/answers')).body);
      should(Object.keys(shown.sensors)).eql(['__proto__', 'constructor']);
      should(JSON.parse((await request(sim.url, '/easy/v1/gateways/__proto__.json')).body)).eql([{ id: 'prototype' }]);
      should(JSON.parse((await request(sim.url, '/easy/v1/tariffs.json')).body)).eql([]);
      should((await control(sim, 'POST', '/__sim/answers', '[1]')).status).equal(400);
      await control(sim, 'POST', '/__sim/reset');
      should((await request(sim.url, '/easy/v1/gateways/__proto__.json')).status).equal(404);
    });
  });

  describe('/__sim/faults', () => {
    it('GET shows the current switches', async () => {
      sim.setFaults({ latencyMs: 25 });
      const res = await control(sim, 'GET', '/__sim/faults');
      should(res.status).equal(200);
      should(JSON.parse(res.body)).eql({ ...DEFAULT_FAULTS, latencyMs: 25 });
    });

    it('POST merges a JSON body into the switches, which then act on the API', async () => {
      sim.setFaults({ latencyMs: 5 });
      const res = await control(sim, 'POST', '/__sim/faults', { serverError: 1, serverErrorStatus: 504, scope: ['sensors'] });
      should(JSON.parse(res.body)).containEql({ latencyMs: 5, serverError: 1, serverErrorStatus: 504, scope: ['sensors'] });
      should(sim.faults()).eql(JSON.parse(res.body));
      should((await request(sim.url, '/easy/v1/tariffs.json')).status).equal(200);
      should((await request(sim.url, '/easy/v1/gateways/DEMO.json')).status).equal(504);
    });

    it('changes nothing on GET: query parameters are refused, the switches stay as they were', async () => {
      sim.setFaults({ latencyMs: 7 });
      for (const path of [
        '/__sim/faults?revokedTokens=demo-token',
        '/__sim/faults?drop=all',
        '/__sim/answers?tariffs=[]',
        '/__sim/requests?x=1',
      ]) {
        const res = await control(sim, 'GET', path);
        should(res.status).equal(400, path);
        should(JSON.parse(res.body).message).match(/no query parameters/);
      }
      should(sim.faults()).eql({ ...DEFAULT_FAULTS, latencyMs: 7 });
      should((await request(sim.url, '/easy/v1/tariffs.json')).status).not.equal(401);
      // a GET of a route that changes state is no route at all
      should((await control(sim, 'GET', '/__sim/reset')).status).equal(404);
      should(sim.faults().latencyMs).equal(7);
    });

    it('revokes a token by a JSON POST only', async () => {
      const res = await control(sim, 'POST', '/__sim/faults', { revokedTokens: ['demo-token'] });
      should(JSON.parse(res.body).revokedTokens).eql(['demo-token']);
      should((await request(sim.url, '/easy/v1/tariffs.json')).status).equal(401);
    });

    // what any web page can send to loopback without a CORS preflight: text/plain, a form, no type
    for (const [label, type, body] of [
      ['text/plain', 'text/plain', '{"revokedTokens":["demo-token"]}'],
      ['a form post', 'application/x-www-form-urlencoded', 'revokedTokens=demo-token'],
      ['a multipart form', 'multipart/form-data; boundary=x', '--x\r\n\r\n{}\r\n--x--'],
      ['no content type', undefined, '{"revokedTokens":["demo-token"]}'],
      ['a JSON-looking type', 'text/json', '{"revokedTokens":["demo-token"]}'],
    ] as const) {
      it(`answers 415 to ${label} on every state-changing route and changes nothing`, async () => {
        sim.setFaults({ latencyMs: 7 });
        await request(sim.url, '/easy/v1/tariffs.json').catch(() => undefined);
        for (const path of ['/__sim/faults', '/__sim/reset', '/__sim/answers']) {
          const res = await request(sim.url, path, { method: 'POST', token: null, body, headers: type ? { 'Content-Type': type } : {} });
          should(res.status).equal(415, path);
          should(JSON.parse(res.body)).have.property('error', 'unsupported_media_type');
        }
        should(sim.faults()).eql({ ...DEFAULT_FAULTS, latencyMs: 7 });
        should(sim.requests).have.length(1);
        should(JSON.parse((await control(sim, 'GET', '/__sim/answers')).body).tariffs).be.undefined();
      });
    }

    it('answers 403 to a request addressed to another host name (DNS rebinding)', async () => {
      for (const host of ['evil.example', 'evil.example:1880', '127.0.0.1.evil.example', 'localhost.evil.example']) {
        const res = await request(sim.url, '/__sim/faults', { token: null, headers: { Host: host } });
        should(res.status).equal(403, host);
      }
      for (const host of ['localhost', `localhost:${sim.port}`, `127.0.0.1:${sim.port}`, '[::1]:8787'])
        should((await request(sim.url, '/__sim/faults', { token: null, headers: { Host: host } })).status).equal(200, host);
    });

    for (const [label, body] of [
      ['an unknown switch', { latency: 5 }],
      ['a bad value', { drop: 'some' }],
      ['a body that is not JSON', '{drop: 1'],
    ] as const) {
      it(`answers 400 to ${label} and changes nothing`, async () => {
        sim.setFaults({ drop: 3 });
        const res = await control(sim, 'POST', '/__sim/faults', body);
        should(res.status).equal(400);
        should(JSON.parse(res.body)).have.property('error', 'bad_request');
        should(sim.faults().drop).equal(3);
      });
    }
  });

  it('POST /__sim/reset turns every switch off and empties the log', async () => {
    sim.setFaults({ drop: 'all', tariffsRemoved: true });
    await request(sim.url, '/easy/v1/tariffs.json').catch(() => undefined);
    const res = await control(sim, 'POST', '/__sim/reset');
    should(JSON.parse(res.body)).eql(DEFAULT_FAULTS);
    should(sim.faults()).eql(DEFAULT_FAULTS);
    should(sim.requests).eql([]);
  });

  it('lets only loopback addresses use the control routes', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) should(isLoopback(address)).be.true(address);
    for (const address of ['10.0.0.5', '192.168.1.127', '::ffff:10.0.0.5', 'fe80::1', '', undefined])
      should(isLoopback(address)).be.false(String(address));
  });

  it('answers 404 to an unknown control route', async () => {
    should((await control(sim, 'GET', '/__sim/nothing')).status).equal(404);
    should((await control(sim, 'GET', '/__sim/reset')).status).equal(404);
  });

  describe('request log', () => {
    it('records every API request with method, path and query, endpoint, status and arrival time', async () => {
      const started = Date.now();
      sim.setFaults({ drop: 1, scope: ['data'] });
      await request(sim.url, '/easy/v1/tariffs.json', { token: 'demo-no-tariffs' });
      await request(sim.url, '/easy/v1/gateways/DEMO/e1.kwh/data.json?from=2024-01-01T00:00Z').catch(() => undefined);
      await request(sim.url, '/easy/v1/gateways/DEMO.csv');
      await request(sim.url, '/nowhere', { method: 'DELETE' });
      should(sim.requests.map(({ at, ...rest }) => rest)).eql([
        { method: 'GET', path: '/easy/v1/tariffs.json', endpoint: 'tariffs', status: 403 },
        { method: 'GET', path: '/easy/v1/gateways/DEMO/e1.kwh/data.json?from=2024-01-01T00:00Z', endpoint: 'data', status: null },
        { method: 'GET', path: '/easy/v1/gateways/DEMO.csv', endpoint: 'sensors', status: 200 },
        { method: 'DELETE', path: '/nowhere', endpoint: null, status: 404 },
      ]);
      for (const record of sim.requests) should(record.at).be.within(started, Date.now());
    });

    it('leaves control requests out and never records the token', async () => {
      await request(sim.url, '/easy/v1/tariffs.json', { token: 'secret-canary-42' });
      await control(sim, 'GET', '/__sim/faults');
      const { json } = await getJson(sim.url, '/__sim/requests', null);
      should(json).have.length(1);
      should(JSON.stringify(json)).not.containEql('secret-canary-42');
      should(json[0]).containEql({ path: '/easy/v1/tariffs.json', status: 401 });
    });

    it('keeps only the latest logLimit requests', async () => {
      const small = await startSimulator({ logLimit: 2 });
      try {
        for (const path of ['/easy/v1/tariffs.json', '/easy/v1/gateways/DEMO.json', '/easy/v1/gateways/DEMO.csv'])
          await request(small.url, path);
        should(small.requests.map((r) => r.path)).eql(['/easy/v1/gateways/DEMO.json', '/easy/v1/gateways/DEMO.csv']);
      } finally {
        await small.close();
      }
    });

    it('is emptied by resetRequests', async () => {
      await request(sim.url, '/easy/v1/tariffs.json');
      should(sim.requests).have.length(1);
      sim.resetRequests();
      should(sim.requests).have.length(0);
    });
  });
});
