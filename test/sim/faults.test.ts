import should from 'should';
import * as http from 'http';
import * as zlib from 'zlib';
import { parse as parseCsv } from 'csv-parse/sync';
import { startSimulator, Simulator } from '../../sim/server';
import { DEFAULT_FAULTS, Endpoint } from '../../sim/faults';
import { getJson, manualClock, request } from './helpers';

const PATHS: Record<Endpoint, string> = {
  tariffs: '/easy/v1/tariffs.json',
  sensors: '/easy/v1/gateways/DEMO.json',
  data: '/easy/v1/gateways/DEMO/e1.kwh/data.json?from=2024-03-06T14:00Z&to=2024-03-06T14:05Z',
};
const ENDPOINTS = Object.keys(PATHS) as Endpoint[];

/** Resolves to the status, or to 'dropped' when the connection ends without a response. */
async function statusOf(sim: Simulator, path: string, token?: string): Promise<number | 'dropped'> {
  try {
    return (await request(sim.url, path, { token })).status;
  } catch {
    return 'dropped';
  }
}

async function statuses(sim: Simulator, path: string, n: number): Promise<Array<number | 'dropped'>> {
  const out: Array<number | 'dropped'> = [];
  for (let i = 0; i < n; i++) out.push(await statusOf(sim, path));
  return out;
}

describe('simulator: fault switches', () => {
  const clock = manualClock('2024-03-06T14:07:30Z');
  let sim: Simulator;
  const healthy: Partial<Record<Endpoint, string>> = {};

  before(async () => {
    sim = await startSimulator({ now: clock.now });
    for (const endpoint of ENDPOINTS) healthy[endpoint] = (await request(sim.url, PATHS[endpoint])).body;
  });
  after(() => sim.close());
  afterEach(() => {
    sim.clearFaults();
    sim.resetRequests();
  });

  describe('latencyMs', () => {
    it('delays the answer by at least the latency, only in scope', async () => {
      sim.setFaults({ latencyMs: 300, scope: ['tariffs'] });
      let started = Date.now();
      should((await request(sim.url, PATHS.tariffs)).status).equal(200);
      should(Date.now() - started).be.aboveOrEqual(295);
      started = Date.now();
      await request(sim.url, PATHS.sensors);
      should(Date.now() - started).be.below(250);
    });
  });

  describe('drop', () => {
    it('destroys the socket without a response for the next N requests, logging status null', async () => {
      sim.setFaults({ drop: 2 });
      should(await statuses(sim, PATHS.sensors, 3)).eql(['dropped', 'dropped', 200]);
      should(sim.requests.map((r) => r.status)).eql([null, null, 200]);
      should(sim.faults().drop).equal(0);
    });

    it("keeps dropping with 'all' until cleared", async () => {
      sim.setFaults({ drop: 'all' });
      should(await statuses(sim, PATHS.tariffs, 3)).eql(['dropped', 'dropped', 'dropped']);
      sim.setFaults({ drop: 0 });
      should(await statusOf(sim, PATHS.tariffs)).equal(200);
    });

    it('takes a single endpoint as scope', async () => {
      sim.setFaults({ drop: 'all', scope: 'sensors' });
      should(sim.faults().scope).eql(['sensors']);
      should(await statusOf(sim, PATHS.tariffs)).equal(200);
      should(await statusOf(sim, PATHS.sensors)).equal('dropped');
    });

    it('spares endpoints out of scope without counting them', async () => {
      sim.setFaults({ drop: 1, scope: ['data'] });
      should(await statuses(sim, PATHS.tariffs, 2)).eql([200, 200]);
      should(await statuses(sim, PATHS.data, 2)).eql(['dropped', 200]);
    });
  });

  describe('rateLimit', () => {
    for (const [label, retryAfter, header] of [
      ['seconds', 7, '7'],
      ['an HTTP date', 'Wed, 06 Mar 2024 14:09:00 GMT', 'Wed, 06 Mar 2024 14:09:00 GMT'],
      ['an absurd number of seconds', 999999999, '999999999'],
      ['garbage', 'soon-ish', 'soon-ish'],
    ] as const) {
      it(`answers 429 with Retry-After as ${label}`, async () => {
        sim.setFaults({ rateLimit: 1, retryAfter });
        const res = await request(sim.url, PATHS.tariffs);
        should(res.status).equal(429);
        should(res.headers['retry-after']).equal(header);
        should(JSON.parse(res.body)).have.property('error', 'rate_limited');
        should(await statusOf(sim, PATHS.tariffs)).equal(200);
      });
    }

    it('sends no Retry-After when it is null', async () => {
      sim.setFaults({ rateLimit: 'all', retryAfter: null });
      const res = await request(sim.url, PATHS.sensors);
      should(res.status).equal(429);
      should(res.headers).not.have.property('retry-after');
    });

    it('comes before authorisation, as a front proxy would', async () => {
      sim.setFaults({ rateLimit: 1 });
      should(await statusOf(sim, PATHS.tariffs, 'bad-token')).equal(429);
    });
  });

  describe('serverError', () => {
    it('answers a burst of N errors with the chosen status, then recovers', async () => {
      sim.setFaults({ serverError: 3, serverErrorStatus: 502 });
      should(await statuses(sim, PATHS.data, 4)).eql([502, 502, 502, 200]);
    });

    it('uses 503 by default and a JSON error body', async () => {
      sim.setFaults({ serverError: 1 });
      const { status, json } = await getJson(sim.url, PATHS.tariffs);
      should(status).equal(503);
      should(json).have.property('error', 'server_error');
    });
  });

  describe('body', () => {
    it('malformed: a body that is not JSON, on every endpoint', async () => {
      sim.setFaults({ body: 'malformed' });
      for (const endpoint of ENDPOINTS) {
        const res = await request(sim.url, PATHS[endpoint]);
        should(res.status).equal(200);
        should(res.headers['content-type']).match(/^application\/json/);
        should(() => JSON.parse(res.body)).throw(SyntaxError);
      }
    });

    it('truncated: the first half of the body in a complete response', async () => {
      sim.setFaults({ body: 'truncated' });
      for (const endpoint of ENDPOINTS) {
        const res = await request(sim.url, PATHS[endpoint]);
        should(Number(res.headers['content-length'])).equal(Buffer.byteLength(res.body));
        should(healthy[endpoint]!.startsWith(res.body)).be.true(endpoint);
        should(res.body.length).equal(Math.floor(healthy[endpoint]!.length / 2));
        should(() => JSON.parse(res.body)).throw(SyntaxError);
      }
    });

    it('cut: the connection closes before the announced body is complete', async () => {
      sim.setFaults({ body: 'cut' });
      for (const endpoint of ENDPOINTS) {
        await should(request(sim.url, PATHS[endpoint])).be.rejected();
      }
      should(sim.requests.map((r) => r.status)).eql([200, 200, 200]);
    });

    it('object: the items wrapped in an object instead of an array', async () => {
      sim.setFaults({ body: 'object' });
      for (const endpoint of ENDPOINTS) {
        const { json } = await getJson(sim.url, PATHS[endpoint]);
        should(json).eql({ data: JSON.parse(healthy[endpoint]!) });
      }
    });

    it('missing-fields: tariffs lose rules, sensors value, data rows their value', async () => {
      sim.setFaults({ body: 'missing-fields' });
      const tariffs = (await getJson(sim.url, PATHS.tariffs)).json;
      const sensors = (await getJson(sim.url, PATHS.sensors)).json;
      const rows = (await getJson(sim.url, PATHS.data)).json;
      should(tariffs.length).be.above(0);
      for (const tariff of tariffs) should(tariff).have.properties('id', 'name').and.not.have.property('rules');
      for (const sensor of sensors) should(sensor).have.property('id').and.not.have.property('value');
      for (const row of rows) should(row).have.length(1);
    });

    it('string-numbers: vat, prices, sensor values and data values as strings', async () => {
      sim.setFaults({ body: 'string-numbers' });
      const tariffs = (await getJson(sim.url, PATHS.tariffs)).json;
      const sensors = (await getJson(sim.url, PATHS.sensors)).json;
      const rows = (await getJson(sim.url, PATHS.data)).json;
      for (const tariff of tariffs) {
        should(tariff.vat).be.a.String();
        for (const rule of tariff.rules) should(rule.price).be.a.String();
      }
      should(sensors.map((s: { value: unknown }) => typeof s.value)).matchEach('string');
      should(sensors.map((s: { value: string }) => Number(s.value))).eql(
        JSON.parse(healthy.sensors!).map((s: { value: number }) => s.value),
      );
      should(rows.map((r: [string, unknown]) => typeof r[1])).matchEach('string');
    });

    it('huge: at least hugeBytes of valid JSON made of real items', async () => {
      sim.setFaults({ body: 'huge', hugeBytes: 300_000 });
      const res = await request(sim.url, PATHS.sensors);
      should(Buffer.byteLength(res.body)).be.aboveOrEqual(300_000);
      const items = JSON.parse(res.body);
      should(items[0]).eql(JSON.parse(healthy.sensors!)[0]);
    });

    it('sends 5 MiB by default', async () => {
      sim.setFaults({ body: 'huge' });
      const res = await request(sim.url, PATHS.tariffs);
      should(Buffer.byteLength(res.body)).be.aboveOrEqual(5 * 1024 * 1024);
    });

    it('mangles only bodyTimes responses, and never an error response', async () => {
      sim.setFaults({ body: 'malformed', bodyTimes: 1 });
      should(JSON.parse((await request(sim.url, PATHS.tariffs, { token: 'bad' })).body)).have.property('error');
      const first = await request(sim.url, PATHS.tariffs);
      const second = await request(sim.url, PATHS.tariffs);
      should(() => JSON.parse(first.body)).throw();
      should(second.body).equal(healthy.tariffs);
    });

    it('breaks the CSV form with an unclosed quote, and leaves it alone for JSON-only shapes', async () => {
      sim.setFaults({ body: 'malformed' });
      const broken = await request(sim.url, '/easy/v1/gateways/DEMO.csv');
      should(() => parseCsv(broken.body, { columns: true })).throw();
      sim.setFaults({ body: 'object' });
      const intact = await request(sim.url, '/easy/v1/gateways/DEMO.csv');
      should(parseCsv(intact.body, { columns: true })).have.length(JSON.parse(healthy.sensors!).length);
    });
  });

  describe('account changes', () => {
    it('revokedTokens: the token gets 401 everywhere, whatever the scope; others still work', async () => {
      sim.setFaults({ revokedTokens: ['demo-token'], scope: ['data'] });
      for (const endpoint of ENDPOINTS) should(await statusOf(sim, PATHS[endpoint])).equal(401, endpoint);
      should(await statusOf(sim, PATHS.sensors, 'demo-no-tariffs')).equal(200);
    });

    it('removedGateways: 404 on the sensors and data of that gateway, tariffs unaffected', async () => {
      sim.setFaults({ removedGateways: ['DEMO'] });
      should(await statusOf(sim, PATHS.sensors)).equal(404);
      should(await statusOf(sim, PATHS.data)).equal(404);
      should(await statusOf(sim, PATHS.tariffs)).equal(200);
    });

    it('tariffsRemoved: 403 on tariffs for every token', async () => {
      sim.setFaults({ tariffsRemoved: true });
      const { status, json } = await getJson(sim.url, PATHS.tariffs);
      should(status).equal(403);
      should(json).have.property('error', 'forbidden');
      should(await statusOf(sim, PATHS.sensors)).equal(200);
    });
  });

  describe('trickleMs', () => {
    it('sends the headers at once and the whole body spread over the time, only in scope', async () => {
      // The first piece leaves after 100 ms: headers before that were flushed on their own.
      sim.setFaults({ trickleMs: 1000, scope: ['sensors'] });
      const started = Date.now();
      let headersAfter = 0;
      const body = await new Promise<string>((resolve, reject) => {
        http
          .get(`${sim.url}${PATHS.sensors}`, { headers: { Authorization: 'Bearer demo-token' }, agent: false }, (res) => {
            headersAfter = Date.now() - started;
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
      should(headersAfter).be.below(90);
      should(Date.now() - started).be.aboveOrEqual(990);
      should(body).equal(healthy.sensors);
      const quick = Date.now();
      await request(sim.url, PATHS.tariffs);
      should(Date.now() - quick).be.below(200);
    });
  });

  describe('answers in another form', () => {
    it('sensorsCsv: the CSV form even to .json', async () => {
      sim.setFaults({ sensorsCsv: true });
      const res = await request(sim.url, PATHS.sensors);
      should(res.headers['content-type']).match(/^text\/csv/);
      should(res.body.split('\n')[0]).equal('id,name,timestamp,value,unit,interval');
      should((await request(sim.url, PATHS.tariffs)).headers['content-type']).match(/^application\/json/);
    });

    it('gzip: answers compressed when the request accepts gzip, plain otherwise', async () => {
      sim.setFaults({ gzip: true });
      const get = (acceptEncoding?: string) =>
        new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
          const headers: Record<string, string> = {
            Authorization: 'Bearer demo-token',
            ...(acceptEncoding ? { 'Accept-Encoding': acceptEncoding } : {}),
          };
          http
            .get(`${sim.url}${PATHS.tariffs}`, { headers, agent: false }, (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
            })
            .on('error', reject);
        });
      const zipped = await get('gzip, deflate, br');
      should(zipped.headers['content-encoding']).equal('gzip');
      should(Number(zipped.headers['content-length'])).equal(zipped.body.length);
      const plain = await get();
      should(plain.headers['content-encoding']).be.undefined();
      should(zlib.gunzipSync(zipped.body).toString()).equal(plain.body.toString());
    });

    it('gzip-bomb: a gzip answer that inflates to hugeBytes of spaces, sent as it is read', async () => {
      sim.setFaults({ body: 'gzip-bomb', hugeBytes: 8 * 1024 * 1024 });
      const { headers, body } = await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        http
          .get(`${sim.url}${PATHS.sensors}`, { headers: { Authorization: 'Bearer demo-token' }, agent: false }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });
      should(headers['content-encoding']).equal('gzip');
      should(body.length).be.below(64 * 1024);
      const inflated = zlib.gunzipSync(body);
      should(inflated.length).equal(8 * 1024 * 1024);
      should(inflated.toString().trim()).equal('');
    });

    it('redirectTo: 302 to the given Location before authorisation, only in scope', async () => {
      sim.setFaults({ redirectTo: 'http://elsewhere.invalid/easy/v1/tariffs.json', scope: ['tariffs'] });
      const res = await request(sim.url, PATHS.tariffs, { token: 'bad-token' });
      should(res.status).equal(302);
      should(res.headers.location).equal('http://elsewhere.invalid/easy/v1/tariffs.json');
      should(await statusOf(sim, PATHS.sensors)).equal(200);
    });
  });

  describe('setting and clearing', () => {
    it('takes faults at start', async () => {
      const faulty = await startSimulator({ faults: { serverError: 1, serverErrorStatus: 500 } });
      try {
        should(await statuses(faulty, PATHS.tariffs, 2)).eql([500, 200]);
      } finally {
        await faulty.close();
      }
    });

    it('hands out a copy of the switches', () => {
      sim.faults().revokedTokens.push('demo-token');
      should(sim.faults().revokedTokens).eql([]);
    });

    it('merges setFaults into the current switches and clearFaults turns all off', () => {
      sim.setFaults({ latencyMs: 10 });
      sim.setFaults({ drop: 2 });
      should(sim.faults()).containEql({ latencyMs: 10, drop: 2 });
      sim.clearFaults();
      should(sim.faults()).eql(DEFAULT_FAULTS);
    });

    for (const [label, bad, message] of [
      ['an unknown switch', { dorp: 1 }, /fault dorp: unknown switch/],
      ['a negative count', { drop: -1 }, /fault drop/],
      ['a fractional count', { rateLimit: 1.5 }, /fault rateLimit/],
      ['an unknown endpoint in scope', { scope: ['gateways'] }, /fault scope: unknown endpoint "gateways"/],
      ['a status outside 5xx', { serverErrorStatus: 404 }, /fault serverErrorStatus/],
      ['an unknown body fault', { body: 'garbled' }, /fault body/],
      ['a token list that is not strings', { revokedTokens: [1] }, /fault revokedTokens/],
      ['a redirect that is not a string', { redirectTo: 302 }, /fault redirectTo/],
      ['a sensorsCsv that is not a boolean', { sensorsCsv: 'yes' }, /fault sensorsCsv/],
    ] as const) {
      it(`rejects ${label} with a TypeError and keeps the switches as they were`, () => {
        sim.setFaults({ latencyMs: 5 });
        should(() => sim.setFaults(bad as never)).throw(TypeError, { message });
        should(sim.faults().latencyMs).equal(5);
      });
    }
  });
});
