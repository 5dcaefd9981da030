// EasyClient against the simulator on loopback: options, paths, what comes back, the
// status codes of the interface and the shapes it must refuse.
import should from 'should';
import { CLIENT_DEFAULTS, DEFAULT_BASE_URL, EasyClient } from '../../nodes/lib/api/client';
import { parseTariffs } from '../../nodes/lib/engine/tariff/tariff';
import { DEMO_GATEWAY } from '../../sim/demo-data';
import { rejection, useSimulator } from './client-support';

describe('EasyClient', () => {
  const ctx = useSimulator();

  describe('options', () => {
    it('defaults to the public service and documented limits', () => {
      const client = new EasyClient({ token: 't' });
      should(client.baseUrl).equal(`${DEFAULT_BASE_URL}/`);
      should(CLIENT_DEFAULTS.maxBodyBytes).equal(2 * 1024 * 1024);
    });

    it('accepts only http and https base URLs, saying which schemes are allowed', () => {
      for (const baseUrl of ['ftp://example.net', 'file:///etc/passwd', 'javascript:alert(1)', 'ws://example.net']) {
        should(() => new EasyClient({ baseUrl, token: 't' })).throw(TypeError, { message: /must start with https:\/\/ or http:\/\// });
      }
      // no scheme: the words say what is missing
      for (const baseUrl of ['api.example.net', 'localhost:1880', '127.0.0.1:8080/easy', 'not a url']) {
        should(() => new EasyClient({ baseUrl, token: 't' })).throw(
          'baseUrl has no scheme: begin it with https:// (e.g. https://api.rayleighconnect.net)',
        );
      }
      should(() => new EasyClient({ baseUrl: 'https://exa mple.net', token: 't' })).throw(/baseUrl is not a URL/);
      should(() => new EasyClient({ baseUrl: '', token: 't' })).throw(/baseUrl must be a URL/);
      should(() => new EasyClient({ baseUrl: 'https://example.net/?x=1', token: 't' })).throw(/query/);
      should(() => new EasyClient({ baseUrl: 'https://example.net/#x', token: 't' })).throw(/fragment/);
      should(() => new EasyClient(null as never)).throw(TypeError, { message: /needs an options object/ });
    });

    it('refuses credentials inside the base URL without repeating them', () => {
      const err = (() => {
        try {
          new EasyClient({ baseUrl: 'https://bob:s3cret@example.net', token: 't' });
        } catch (e) {
          return e as Error;
        }
        throw new Error('accepted');
      })();
      should(err.message).match(/user name or password/);
      should(err.message).not.containEql('s3cret');
    });

    it('needs a token that can go into a header', () => {
      should(() => new EasyClient({ token: '' })).throw(/access token is required/);
      should(() => new EasyClient({} as never)).throw(/access token is required/);
      should(() => new EasyClient({ token: 'a b' })).throw(/cannot be sent/);
      should(() => new EasyClient({ token: 'ab\r\nX-Evil: 1' })).throw(/cannot be sent/);
    });

    it('checks its numbers', () => {
      should(() => new EasyClient({ token: 't', timeoutMs: 0 })).throw(/timeoutMs must be a number above 0/);
      should(() => new EasyClient({ token: 't', retries: -1 })).throw(/retries must be a whole number/);
      should(() => new EasyClient({ token: 't', retries: 1.5 })).throw(/retries must be a whole number/);
      should(() => new EasyClient({ token: 't', maxBodyBytes: NaN })).throw(/maxBodyBytes/);
    });

    it('keeps a path prefix of the base URL (a reverse proxy) and tolerates a trailing slash', async () => {
      const client = ctx.client({ baseUrl: `${ctx.sim.url}/proxy/` });
      const err = await rejection(client.fetchTariffs());
      // The simulator has nothing under /proxy: the request went where the prefix says.
      should(ctx.sim.requests.map((r) => r.path)).eql(['/proxy/easy/v1/tariffs.json']);
      should(err.code).equal('not_found');
      should(err.message).equal('the tariffs endpoint was not found, check the base URL (404)');
    });
  });

  describe('fetchTariffs', () => {
    it('GETs /easy/v1/tariffs.json and returns what parseTariffs makes of the answer', async () => {
      const result = await ctx.client().fetchTariffs();
      should(ctx.sim.requests.map((r) => r.path)).eql(['/easy/v1/tariffs.json']);
      const raw = await (await fetch(`${ctx.sim.url}/easy/v1/tariffs.json`, { headers: { Authorization: 'Bearer demo-token' } })).json();
      should(result).eql(parseTariffs(raw));
      should(result.tariffs.length).be.above(3);
      should(result.problems).eql([]);
    });
  });

  describe('fetchSensors', () => {
    it('GETs /easy/v1/gateways/{id}.json and types every sensor', async () => {
      const sensors = await ctx.client().fetchSensors(DEMO_GATEWAY);
      should(ctx.sim.requests.map((r) => r.path)).eql(['/easy/v1/gateways/DEMO.json']);
      should(sensors.map((s) => s.id)).containDeep([
        'e1.kwh',
        'e1.v3p@1',
        'e1.i3p@3',
        'e1.freq',
        'e1.pf',
        '1',
        '2',
        '17',
        '18',
        '129',
        '130',
        '158',
      ]);
      for (const sensor of sensors) {
        should(Object.keys(sensor).sort()).eql(['id', 'interval', 'name', 'timestamp', 'timestampRaw', 'unit', 'value']);
        should(sensor.value).be.a.Number();
        should(sensor.timestampRaw).match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?Z$/);
        should(sensor.timestamp).equal(Date.parse(sensor.timestampRaw));
      }
      should(sensors.find((s) => s.id === 'e1.kwh')!.unit).equal('kWh');
    });

    it('URL-encodes the gateway id, and names the gateway in the 404', async () => {
      const err = await rejection(ctx.client().fetchSensors('a b/c?d#e'));
      should(ctx.sim.requests.map((r) => r.path)).eql(['/easy/v1/gateways/a%20b%2Fc%3Fd%23e.json']);
      should(err.message).equal('gateway a b/c?d#e not found on this account (404)');
    });

    it('refuses ids that would walk out of the path, before any request', async () => {
      for (const id of ['.', '..', '', ' ']) {
        await should(ctx.client().fetchSensors(id)).be.rejectedWith({ name: 'TypeError', message: /gatewayId/ });
      }
      await should(ctx.client().fetchSensors(42 as unknown as string)).be.rejectedWith({ name: 'TypeError' });
      should(ctx.sim.requests).eql([]);
    });
  });

  describe('fetchData', () => {
    const from = '2020-02-04T12:00:00';
    const to = '2020-02-04T12:05:00';

    it('asks for from/to as UTC with Z (no offset = UTC) and returns [epoch ms, value] pairs', async () => {
      const rows = await ctx.client().fetchData(DEMO_GATEWAY, 'e1.kwh', from, to);
      should(ctx.sim.requests.map((r) => decodeURIComponent(r.path))).eql([
        '/easy/v1/gateways/DEMO/e1.kwh/data.json?from=2020-02-04T12:00:00Z&to=2020-02-04T12:05:00Z',
      ]);
      should(rows.length).be.above(1);
      should(rows[0][0]).equal(Date.UTC(2020, 1, 4, 12, 0));
      for (const [at, value] of rows) {
        should(at).be.within(Date.UTC(2020, 1, 4, 12, 0), Date.UTC(2020, 1, 4, 12, 5));
        should(value).be.a.Number();
      }
    });

    it('takes epoch ms and Dates, widening sub-second bounds to whole seconds', async () => {
      await ctx.client().fetchData(DEMO_GATEWAY, '1', Date.UTC(2020, 1, 4, 12, 0, 0, 999), new Date(Date.UTC(2020, 1, 4, 13, 0, 0, 1)));
      should(decodeURIComponent(ctx.sim.requests[0].path)).endWith('?from=2020-02-04T12:00:00Z&to=2020-02-04T13:00:01Z');
    });

    it('leaves out to when not given, also with options in its place', async () => {
      const controller = new AbortController();
      await ctx.client().fetchData(DEMO_GATEWAY, 'e1.kwh', Date.now() - 5 * 60_000, { signal: controller.signal });
      should(ctx.sim.requests[0].path).match(/\/data\.json\?from=[^&]+$/);
    });

    it('URL-encodes the sensor id and names it in the 404', async () => {
      const err = await rejection(ctx.client().fetchData(DEMO_GATEWAY, 'e1.v3p@1 x', from, to));
      should(ctx.sim.requests[0].path).startWith('/easy/v1/gateways/DEMO/e1.v3p%401%20x/data.json?');
      should(err.code).equal('not_found');
      should(err.message).equal('sensor e1.v3p@1 x of gateway DEMO not found on this account (404)');
    });

    it('refuses bad ranges and ids before any request', async () => {
      await should(ctx.client().fetchData(DEMO_GATEWAY, 'e1.kwh', 'yesterday')).be.rejectedWith({
        name: 'TypeError',
        message: /from must be/,
      });
      await should(ctx.client().fetchData(DEMO_GATEWAY, 'e1.kwh', from, 'soon')).be.rejectedWith({
        name: 'TypeError',
        message: /to must be/,
      });
      await should(ctx.client().fetchData(DEMO_GATEWAY, 'e1.kwh', to, from)).be.rejectedWith({
        name: 'RangeError',
        message: /to is before from/,
      });
      await should(ctx.client().fetchData(DEMO_GATEWAY, '..', from)).be.rejectedWith({ name: 'TypeError', message: /sensorId/ });
      should(ctx.sim.requests).eql([]);
    });
  });

  describe('status codes, none of them retried', () => {
    const cases: Array<{
      name: string;
      token?: string;
      faults?: object;
      call: 'tariffs' | 'sensors' | 'data';
      code: string;
      status: number;
      message: string;
    }> = [
      {
        name: 'an unknown token',
        token: 'not-a-token',
        call: 'tariffs',
        code: 'unauthorized',
        status: 401,
        message: 'the access token was rejected (401)',
      },
      {
        name: 'an unknown token (sensors)',
        token: 'not-a-token',
        call: 'sensors',
        code: 'unauthorized',
        status: 401,
        message: 'the access token was rejected (401)',
      },
      {
        name: 'a token without tariffs',
        token: 'demo-no-tariffs',
        call: 'tariffs',
        code: 'forbidden',
        status: 403,
        message: 'this account has no access to tariffs (403)',
      },
      {
        name: 'the tariffs feature removed',
        faults: { tariffsRemoved: true },
        call: 'tariffs',
        code: 'forbidden',
        status: 403,
        message: 'this account has no access to tariffs (403)',
      },
      {
        name: 'the gateway removed',
        faults: { removedGateways: ['DEMO'] },
        call: 'sensors',
        code: 'not_found',
        status: 404,
        message: 'gateway DEMO not found on this account (404)',
      },
      {
        name: 'the gateway removed (data)',
        faults: { removedGateways: ['DEMO'] },
        call: 'data',
        code: 'not_found',
        status: 404,
        message: 'sensor e1.kwh of gateway DEMO not found on this account (404)',
      },
    ];
    for (const c of cases) {
      it(`${c.name} → ${c.code} ${c.status}`, async () => {
        if (c.faults) ctx.sim.setFaults(c.faults);
        const client = ctx.client({ token: c.token ?? 'demo-token', retries: 3 });
        const call =
          c.call === 'tariffs'
            ? client.fetchTariffs()
            : c.call === 'sensors'
              ? client.fetchSensors(DEMO_GATEWAY)
              : client.fetchData(DEMO_GATEWAY, 'e1.kwh', '2020-02-04T12:00Z');
        const err = await rejection(call);
        should(err).match({ code: c.code, status: c.status, retryable: false, attempts: 1, message: c.message });
        should(err.name).equal('EasyApiError');
        should(ctx.sim.requests.length).equal(1);
      });
    }

    it('a token revoked mid-run turns the next request into 401', async () => {
      const client = ctx.client();
      await client.fetchSensors(DEMO_GATEWAY);
      ctx.sim.setFaults({ revokedTokens: ['demo-token'] });
      should(await rejection(client.fetchSensors(DEMO_GATEWAY))).match({ code: 'unauthorized', status: 401 });
      ctx.sim.clearFaults();
      should((await client.fetchSensors(DEMO_GATEWAY)).length).be.above(0);
    });
  });

  describe('answers that are not the documented shape → invalid_response, not retried', () => {
    const calls = {
      tariffs: (c: EasyClient) => c.fetchTariffs(),
      sensors: (c: EasyClient) => c.fetchSensors(DEMO_GATEWAY),
      data: (c: EasyClient) => c.fetchData(DEMO_GATEWAY, 'e1.kwh', '2020-02-04T12:00Z', '2020-02-04T12:10Z'),
    };
    const cases: Array<[string, keyof typeof calls, RegExp]> = [
      ['malformed', 'tariffs', /^the tariffs answer is not valid JSON$/],
      ['malformed', 'sensors', /^the sensors answer of gateway DEMO is not valid JSON$/],
      ['malformed', 'data', /^the data answer of sensor e1\.kwh of gateway DEMO is not valid JSON$/],
      ['truncated', 'tariffs', /^the tariffs answer is cut off \(incomplete JSON\)$/],
      ['truncated', 'sensors', /is cut off \(incomplete JSON\)$/],
      ['truncated', 'data', /is cut off \(incomplete JSON\)$/],
      ['object', 'tariffs', /^the tariffs answer is an object, not a list of tariffs$/],
      ['object', 'sensors', /^the sensors answer of gateway DEMO is an object, not a list of sensors$/],
      ['object', 'data', /is an object, not a list of readings$/],
      ['missing-fields', 'sensors', /^the sensors answer of gateway DEMO: sensor e1\.kwh has value missing, expected a number$/],
      ['missing-fields', 'data', /: row 0 is a list of 1, expected \[timestamp, value\]$/],
      ['string-numbers', 'sensors', /: sensor e1\.kwh has value the text "[\d.]+", expected a number$/],
      ['string-numbers', 'data', /: row 0 has value the text "[\d.]+", expected a number$/],
    ];
    for (const [body, endpoint, message] of cases) {
      it(`${body} ${endpoint}`, async () => {
        ctx.sim.setFaults({ body } as never);
        const err = await rejection(calls[endpoint](ctx.client()));
        should(err).match({ code: 'invalid_response', retryable: false, attempts: 1 });
        should(err.message).match(message);
        should(ctx.sim.requests.length).equal(1);
      });
    }

    it('tariffs breaking the interface are problems from parseTariffs, not a failed request', async () => {
      for (const body of ['missing-fields', 'string-numbers']) {
        ctx.sim.setFaults({ body } as never);
        const result = await ctx.client().fetchTariffs();
        should(result.tariffs).eql([]);
        should(result.problems.length).be.above(0);
        should(result.problems.every((p) => p.severity === 'error' || p.severity === 'warning')).be.true();
      }
    });

    it('a body over the size limit (the 5 MB fault) is refused at the limit', async () => {
      ctx.sim.setFaults({ body: 'huge' });
      const err = await rejection(ctx.client().fetchSensors(DEMO_GATEWAY));
      should(err).match({ code: 'invalid_response', message: 'the answer was larger than the 2 MB limit' });
      should(ctx.sim.requests.length).equal(1);
    });

    it('the size limit is configurable', async () => {
      ctx.sim.setFaults({ body: 'huge', hugeBytes: 100_000 });
      should((await ctx.client({ maxBodyBytes: 200_000 }).fetchSensors(DEMO_GATEWAY)).length).be.above(100);
      const err = await rejection(ctx.client({ maxBodyBytes: 50_000 }).fetchSensors(DEMO_GATEWAY));
      should(err.message).equal('the answer was larger than the 48.8 kB limit');
    });
  });
});
