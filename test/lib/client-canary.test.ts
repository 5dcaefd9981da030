// The token must never leak: a canary token is run through every error path of the
// client, and every way an error can be turned into text is searched for it.
import should from 'should';
import * as util from 'util';
import { EasyApiError, EasyClient, EasyClientOptions, RetryInfo } from '../../nodes/lib/api/client';
import { startSimulator } from '../../sim/server';
import { CANARY, FAST, rejection, useSimulator } from './client-support';

/** Every rendering of an error a log line, a Catch node or a debug message could show. */
function renderings(err: unknown): string[] {
  const e = err as Record<string, unknown> & Error;
  return [
    String(e),
    e.message,
    e.stack ?? '',
    JSON.stringify(e),
    util.inspect(e, { depth: Infinity, showHidden: true }),
    util.format('%o', e),
    JSON.stringify(Object.getOwnPropertyNames(e).map((key) => [key, util.inspect(e[key], { depth: Infinity, showHidden: true })])),
  ];
}

function shouldNotLeak(err: unknown): void {
  for (const text of renderings(err)) should(text).not.containEql(CANARY);
  // Nothing from axios rides along: it would carry the request headers.
  for (const key of ['cause', 'config', 'request', 'response', 'headers', 'toJSON']) {
    should(Object.prototype.hasOwnProperty.call(err, key)).be.false(`error has a "${key}" property`);
  }
}

describe('EasyClient never leaks the token', () => {
  const ctx = useSimulator();
  const client = (options: Partial<EasyClientOptions> = {}) => ctx.client({ token: CANARY, retries: 1, ...options });
  const logged: string[] = [];
  const originals = { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug };

  beforeEach(() => {
    logged.length = 0;
    for (const name of Object.keys(originals) as Array<keyof typeof originals>) {
      console[name] = (...args: unknown[]) => logged.push(util.format(...args));
    }
  });
  afterEach(() => {
    Object.assign(console, originals);
    should(logged.join('\n')).not.containEql(CANARY);
  });

  const faultCases: Array<[string, object, (c: EasyClient) => Promise<unknown>, string]> = [
    ['401 revoked', { revokedTokens: [CANARY] }, (c) => c.fetchSensors('DEMO'), 'unauthorized'],
    ['403 tariffs removed', { tariffsRemoved: true }, (c) => c.fetchTariffs(), 'forbidden'],
    ['404 gateway removed', { removedGateways: ['DEMO'] }, (c) => c.fetchSensors('DEMO'), 'not_found'],
    ['404 data', { removedGateways: ['DEMO'] }, (c) => c.fetchData('DEMO', 'e1.kwh', '2020-02-04T12:00Z'), 'not_found'],
    ['429', { rateLimit: 'all', retryAfter: 0 }, (c) => c.fetchTariffs(), 'rate_limited'],
    ['5xx', { serverError: 'all' }, (c) => c.fetchTariffs(), 'server'],
    ['latency beyond the deadline', { latencyMs: 500 }, (c) => c.fetchSensors('DEMO'), 'timeout'],
    ['dropped connection', { drop: 'all' }, (c) => c.fetchTariffs(), 'network'],
    ['connection cut mid-answer', { body: 'cut' }, (c) => c.fetchTariffs(), 'network'],
    ['malformed JSON', { body: 'malformed' }, (c) => c.fetchTariffs(), 'invalid_response'],
    ['truncated JSON', { body: 'truncated' }, (c) => c.fetchSensors('DEMO'), 'invalid_response'],
    ['object instead of list', { body: 'object' }, (c) => c.fetchSensors('DEMO'), 'invalid_response'],
    ['missing fields', { body: 'missing-fields' }, (c) => c.fetchData('DEMO', 'e1.kwh', '2020-02-04T12:00Z'), 'invalid_response'],
    ['strings for numbers', { body: 'string-numbers' }, (c) => c.fetchSensors('DEMO'), 'invalid_response'],
    ['huge body', { body: 'huge' }, (c) => c.fetchSensors('DEMO'), 'invalid_response'],
    ['malformed CSV', { body: 'malformed', sensorsCsv: true }, (c) => c.fetchSensors('DEMO'), 'invalid_response'],
  ];
  for (const [name, faults, call, code] of faultCases) {
    it(`${name} → ${code}, and neither the error nor a retry notice holds the token`, async () => {
      ctx.sim.setFaults(faults);
      const notices: RetryInfo[] = [];
      // A short deadline only where the deadline is the point: a 5 MB body on a busy machine needs longer.
      const timeoutMs = 'latencyMs' in faults ? 100 : 5000;
      const err = await rejection(call(client({ timeoutMs, onRetry: (info) => notices.push(info) })));
      should(err.code).equal(code);
      shouldNotLeak(err);
      for (const notice of notices) shouldNotLeak(notice.error);
      should(util.inspect(notices, { depth: Infinity, showHidden: true })).not.containEql(CANARY);
    });
  }

  it('DNS failure and connection refused', async () => {
    shouldNotLeak(await rejection(client({ baseUrl: 'http://nonexistent.invalid' }).fetchTariffs()));
    const gone = await startSimulator({ port: 0 });
    await gone.close();
    shouldNotLeak(await rejection(client({ baseUrl: gone.url }).fetchTariffs()));
  });

  it('abort: before, during the request, during a backoff wait, and a shared request', async () => {
    const before = new AbortController();
    before.abort();
    shouldNotLeak(await rejection(client().fetchTariffs({ signal: before.signal })));

    ctx.sim.setFaults({ latencyMs: 300 });
    const during = new AbortController();
    setTimeout(() => during.abort(), 20);
    const c = client();
    const shared = c.fetchTariffs();
    shouldNotLeak(await rejection(c.fetchTariffs({ signal: during.signal })));
    await shared;

    ctx.sim.setFaults({ latencyMs: 0, serverError: 'all' });
    const backoff = new AbortController();
    const waiting = client({ backoffBaseMs: 5000, onRetry: () => backoff.abort() });
    shouldNotLeak(await rejection(waiting.fetchTariffs({ signal: backoff.signal })));
  });

  it('options errors do not quote the token or a password in the base URL', () => {
    const attempts: Array<Partial<EasyClientOptions>> = [
      { token: `${CANARY} x` },
      { token: `${CANARY}\n` + 'X-Injected: 1' },
      { baseUrl: `https://user:${CANARY}@example.net` },
      { baseUrl: `https://${CANARY}@example.net` },
      { baseUrl: `http://[${CANARY}` },
      { baseUrl: `ftp://user:${CANARY}@example.net` },
    ];
    for (const options of attempts) {
      let thrown: unknown;
      try {
        new EasyClient({ ...FAST, token: CANARY, ...options });
      } catch (err) {
        thrown = err;
      }
      should(thrown).be.instanceOf(TypeError);
      for (const text of renderings(thrown)) should(text).not.containEql(CANARY);
    }
  });

  it('the client object itself does not show the token', async () => {
    const c = client();
    await c.fetchTariffs();
    should(JSON.stringify(c)).not.containEql(CANARY);
    should(util.inspect(c, { depth: Infinity, showHidden: true })).not.containEql(CANARY);
    should(Object.values(c).map(String).join(' ')).not.containEql(CANARY);
  });

  it('the simulator log (what a proxy would record) has no token either', async () => {
    await client().fetchTariffs();
    should(JSON.stringify(ctx.sim.requests)).not.containEql(CANARY);
  });

  it('an error is a plain EasyApiError whose JSON form keeps code and status', async () => {
    ctx.sim.setFaults({ removedGateways: ['DEMO'] });
    const err = await rejection(client().fetchSensors('DEMO'));
    should(err).be.instanceOf(EasyApiError).and.be.instanceOf(Error);
    should(JSON.parse(JSON.stringify(err))).eql({ name: 'EasyApiError', code: 'not_found', status: 404, retryable: false, attempts: 1 });
  });
});
