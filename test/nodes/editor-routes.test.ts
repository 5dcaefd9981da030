// The edit dialogs' admin routes (nodes/admin-routes.ts) in the real runtime through
// node-red-node-test-helper, against the simulator on loopback: a deployed account
// (stored token) and an undeployed one (token typed in the dialog), every error, the
// chart's data equal to the engine's `schedule`, and a canary token in no answer.
import should from 'should';
import * as http from 'http';
import type { AddressInfo } from 'net';
import type { Simulator } from '../../sim/server';
import { DEMO_TARIFFS } from '../../sim/demo-data';
import { schedule } from '../../nodes/lib/engine/prices/price-source';
import { machineTimeZone } from '../../nodes/lib/engine/time/time';
import { ADMIN_ROUTES, AdminRED, registerAdminRoutes, TYPED_TOKEN_PERMISSION } from '../../nodes/lib/editor/admin-routes';
import easyAccount = require('../../nodes/easy-account');
import easySensors = require('../../nodes/easy-sensors');
import easyTariff = require('../../nodes/easy-tariff');
import { FlowNode, helper, quiet, withSimulator } from './flow-support';
import { startProxy, TestServer } from '../lib/transport-support';

const CANARY = 'canary-token-5e1f0c';
const CANARY_NO_TARIFFS = 'canary-no-tariffs-9b2d';
const ZONE = 'Europe/London';
// The Friday before the last Sunday of March 2026 (29th): the week's chart crosses the clocks going forward.
const BEFORE_DST = '2026-03-27T12:00:00Z';
const tariffOf = (id: string) => DEMO_TARIFFS.find((t) => t.id === id)!;

/** Every answer of the suite, to look for the token in all of them at the end. */
const answers: string[] = [];

interface Answer {
  status: number;
  body: any;
  text: string;
}

async function post(path: string, body: object): Promise<Answer> {
  const res = await (helper as any).request().post(path).send(body).set('Content-Type', 'application/json');
  answers.push(res.text);
  return { status: res.status, body: res.body, text: res.text };
}

async function get(path: string): Promise<Answer> {
  const res = await (helper as any).request().get(path);
  answers.push(res.text);
  return { status: res.status, body: res.body, text: res.text };
}

/** A loopback port with nothing listening. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function account(sim: Simulator, over: Record<string, unknown> = {}): FlowNode {
  return { id: 'acc', type: 'easy-account', name: 'demo', baseUrl: sim.url, timezone: ZONE, ...over };
}

async function load(flow: FlowNode[], token = CANARY): Promise<void> {
  await helper.load([easyAccount, easySensors, easyTariff], flow, { acc: { token } });
}

describe('editor admin routes', function () {
  let sim: Simulator;
  let other: Simulator;

  before(async () => {
    const tokens = { [CANARY]: { tariffs: true }, [CANARY_NO_TARIFFS]: { tariffs: false } };
    sim = await withSimulator({ tokens });
    other = await withSimulator({ tokens });
  });
  after(async () => {
    await sim.close();
    await other.close();
  });
  afterEach(async () => {
    await helper.unload();
    sim.clearFaults();
    sim.resetRequests();
    other.resetRequests();
  });

  describe('deployed account (stored token, the dialog sends only the id)', () => {
    beforeEach(() => load([account(sim)]));

    it('test-connection: ok with the number of tariffs', async () => {
      const r = await post('/easy-account/test-connection', { id: 'acc' });
      should(r.status).equal(200);
      should(r.body).match({ ok: true, outcome: 'ok', tariffs: DEMO_TARIFFS.length + 2, invalid: 0 });
      should(r.body.message).equal(`connected: ${DEMO_TARIFFS.length + 2} tariffs`);
    });

    it('tariffs: name, currency, id, readable rules (wrap past midnight, weekday spelling), gross prices', async () => {
      const r = await post('/easy-account/tariffs', { id: 'acc', baseUrl: sim.url });
      should(r.status).equal(200);
      should(r.body.stale).be.false();
      const byId = Object.fromEntries(r.body.tariffs.map((t: any) => [t.id, t]));
      should(byId['DEMO-WORKDAY']).match({ name: tariffOf('DEMO-WORKDAY').name, currency: 'GBP', vat: 20 });
      should(byId['DEMO-WORKDAY'].rules.map((x: any) => x.priority)).eql([50, 60, 70]);
      should(byId['DEMO-WORKDAY'].rules[0]).match({
        net: 0.42,
        time: { start: '09:00', end: '17:00', wraps: false, allDay: false },
        days: [1, 2, 3, 4, 5],
        daysField: 'weekdays',
      });
      should(byId['DEMO-WORKDAY'].rules[0].gross).be.approximately(0.504, 1e-12);
      const night = byId['DEMO-NIGHT'].rules.find((x: any) => x.time);
      // the tariff says 22:00 and 06:00:00: one time-of-day shape in the rules table
      should(night.time).eql({ start: '22:00', end: '06:00', wraps: true, allDay: false });
      const weekend = byId['DEMO-WEEKEND'].rules.find((x: any) => x.days);
      should(weekend).match({ days: [6, 7], daysField: 'weekday', daysConflict: false });
      const generator = byId['DEMO-GENERATOR'].rules.find((x: any) => x.sensor);
      should(generator.sensor).eql({ gatewayId: 'DEMO', sensorId: '1', value: 1, condition: 'eq', never: false });
    });

    it('schedule: 7 local days across the DST change, each line exactly the engine schedule', async () => {
      const r = await post('/easy-account/schedule', { id: 'acc', tariff: 'DEMO-GENERATOR', at: BEFORE_DST });
      should(r.status).equal(200);
      const d = r.body;
      should(d).match({ tariffId: 'DEMO-GENERATOR', currency: 'GBP', timezone: ZONE, now: Date.parse(BEFORE_DST) });
      should(d.from).equal(Date.parse('2026-03-27T00:00:00Z')); // GMT
      should(d.to).equal(Date.parse('2026-04-02T23:00:00Z')); // midnight BST
      should(d.to - d.from).equal(7 * 24 * 3600e3 - 3600e3);
      should(d.dayStarts).have.length(8);
      should(d.dayStarts[3]).equal(Date.parse('2026-03-30T00:00:00+01:00'));
      should(d.today).eql({ from: d.dayStarts[0], to: d.dayStarts[1] });
      const tariff = tariffOf('DEMO-GENERATOR');
      should(d.lines.map((l: any) => l.key)).eql(['base', 'DEMO/1=1']);
      should(d.lines[0].segments).eql(schedule(tariff, d.from, d.to, { timezone: ZONE, sensors: { DEMO: { '1': 0 } } }));
      should(d.lines[1].segments).eql(schedule(tariff, d.from, d.to, { timezone: ZONE, sensors: { DEMO: { '1': 1 } } }));
      should(d.lines[1].changed).eql({ gatewayId: 'DEMO', sensorId: '1', value: 1 });
      should(d).match({ minPrice: 0.22, maxPrice: 0.55 });
    });

    it('schedule: a time-of-day tariff has one line; the zone typed in the dialog wins over the deployed one', async () => {
      const r = await post('/easy-account/schedule', { id: 'acc', tariff: 'DEMO-NIGHT', at: BEFORE_DST, timezone: 'Asia/Kolkata' });
      should(r.status).equal(200);
      should(r.body.timezone).equal('Asia/Kolkata');
      should(r.body.lines).have.length(1);
      should(r.body.lines[0].segments).eql(schedule(tariffOf('DEMO-NIGHT'), r.body.from, r.body.to, { timezone: 'Asia/Kolkata' }));
      // 7 nights of 22:00-06:00 -> 15 pieces (day, night, day, … from local midnight)
      should(r.body.lines[0].segments).have.length(15);
    });

    it('sensors: name, last value, unit, decoded kind', async () => {
      const r = await post('/easy-account/sensors', { id: 'acc', gateway: 'DEMO' });
      should(r.status).equal(200);
      should(r.body.gateway).equal('DEMO');
      const byId = Object.fromEntries(r.body.sensors.map((s: any) => [s.id, s]));
      should(byId['e1.kwh']).match({ unit: 'kWh', kind: { kind: 'modbus', address: 1, quantity: 'energy' } });
      should(byId['e1.kwh'].value).be.a.Number();
      should(byId['e1.v3p@2'].kind).eql({ kind: 'modbus', address: 1, subsensor: 'v3p@2', quantity: 'voltage', phase: 2 });
      should(byId['1'].kind).eql({ kind: 'digital_input', channel: 1 });
      should(byId['17'].kind).eql({ kind: 'relay', channel: 1 });
      should(byId['158'].kind).eql({ kind: 'gsm_signal' });
      should(byId['1'].name).be.a.String().and.not.be.empty();
    });

    it('timezones: the full IANA list and the machine zone', async () => {
      const r = await get('/easy-account/timezones');
      should(r.status).equal(200);
      should(r.body.machine).equal(machineTimeZone());
      should(r.body.zones.length).be.above(400);
      for (const z of ['Europe/London', 'America/Sao_Paulo', 'Asia/Kolkata', 'Pacific/Chatham', 'UTC']) should(r.body.zones).containEql(z);
    });

    it('the stored token goes to no other base URL than the deployed one', async () => {
      const r = await post('/easy-account/tariffs', { id: 'acc', baseUrl: other.url });
      should(r.status).equal(400);
      should(r.body.error.code).equal('bad_request');
      should(r.body.error.message).match(/type the token again/);
      should(other.requests).have.length(0);
    });

    it("offline: the tariffs list falls back on the deployed account's last good tariffs, marked stale", async () => {
      should((await post('/easy-account/tariffs', { id: 'acc' })).body.stale).be.false();
      // the next deploy of the account starts from its last good tariffs and cannot fetch
      await helper.unload();
      sim.setFaults({ serverError: 'all' });
      await load([account(sim, { retries: 0 })]);
      const r = await post('/easy-account/tariffs', { id: 'acc' });
      should(r.status).equal(200);
      should(r.body.stale).be.true();
      should(r.body.error.code).equal('server');
      should(r.body.tariffs.length).equal(DEMO_TARIFFS.length + 2);
      const test = await post('/easy-account/test-connection', { id: 'acc' });
      should(test.body).match({ ok: false, outcome: 'server' });
    });

    it("the stored token's answers are shared: 1,000 calls in a burst make one tariffs and one sensors request", async function () {
      // 1,000 real HTTP round trips through the admin API: seconds on a loaded 2-core machine
      this.timeout(60000);
      sim.setFaults({ latencyMs: 50 });
      const calls: Array<() => Promise<Answer>> = [];
      for (let i = 0; i < 250; i++) {
        calls.push(() => post('/easy-account/tariffs', { id: 'acc' }));
        calls.push(() => post('/easy-account/test-connection', { id: 'acc' }));
        calls.push(() => post('/easy-account/schedule', { id: 'acc', tariff: 'DEMO-NIGHT', at: BEFORE_DST }));
        calls.push(() => post('/easy-account/sensors', { id: 'acc', gateway: 'DEMO' }));
      }
      const statuses: number[] = [];
      for (let i = 0; i < calls.length; i += 100)
        statuses.push(...(await Promise.all(calls.slice(i, i + 100).map((c) => c()))).map((a) => a.status));
      should(new Set(statuses)).eql(new Set([200]));
      should(sim.requests.filter((r) => r.endpoint === 'tariffs')).have.length(1);
      should(sim.requests.filter((r) => r.endpoint === 'sensors')).have.length(1);
      // another gateway id right after: refused in words, no request (made-up ids cannot spend the quota either)
      const other = await post('/easy-account/sensors', { id: 'acc', gateway: 'ELSEWHERE' });
      should(other.status).equal(502);
      should(other.body.error.code).equal('rate_limited');
      should(other.body.error.message).match(/try again in \d+ s/);
      should(sim.requests.filter((r) => r.endpoint === 'sensors')).have.length(1);
    });

    it('with nodes watching, the routes use their polls and refreshes: no request of their own', async () => {
      await helper.unload();
      await load([
        account(sim),
        {
          id: 's',
          type: 'easy-sensors',
          account: 'acc',
          gateway: 'DEMO',
          interval: 60,
          output: 'all',
          onlyChanged: false,
          sensors: '',
          wires: [],
        },
        { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-FLAT', refresh: 60, wires: [] },
      ]);
      const hub = helper.getNode('acc').hub;
      for (let i = 0; i < 200 && !(hub.tariffs().fetchedAt && sim.requests.some((r) => r.endpoint === 'sensors' && r.status === 200)); i++)
        await quiet(20);
      const before = sim.requests.length;
      for (let i = 0; i < 20; i++) {
        should((await post('/easy-account/tariffs', { id: 'acc' })).status).equal(200);
        should((await post('/easy-account/sensors', { id: 'acc', gateway: 'DEMO' })).body.sensors.length).be.above(10);
      }
      should(sim.requests.length).equal(before);
    });
  });

  describe('undeployed account (base URL and token typed in the dialog)', () => {
    beforeEach(() => load([]));
    const typed = () => ({ baseUrl: sim.url, token: CANARY, timezone: ZONE });

    it('every route answers from the typed base URL and token', async () => {
      const test = await post('/easy-account/test-connection', typed());
      should(test.body).match({ ok: true, tariffs: DEMO_TARIFFS.length + 2 });
      const list = await post('/easy-account/tariffs', typed());
      should(list.body.tariffs.map((t: any) => t.id)).containEql('DEMO-NIGHT');
      const chart = await post('/easy-account/schedule', { ...typed(), tariff: 'DEMO-WORKDAY', at: BEFORE_DST });
      should(chart.body.lines[0].segments).eql(schedule(tariffOf('DEMO-WORKDAY'), chart.body.from, chart.body.to, { timezone: ZONE }));
      const sensors = await post('/easy-account/sensors', { ...typed(), gateway: 'DEMO' });
      should(sensors.body.sensors.length).be.above(10);
      // an empty zone in the dialog stands for the machine's
      const machine = await post('/easy-account/schedule', { ...typed(), timezone: '', tariff: 'DEMO-FLAT', at: BEFORE_DST });
      should(machine.body.timezone).equal(machineTimeZone());
    });

    it("a typed token wins over a deployed account's (a new token is tried before deploy)", async () => {
      await helper.unload();
      await load([account(sim)], 'an-old-token');
      const r = await post('/easy-account/test-connection', { id: 'acc', ...typed() });
      should(r.body.ok).be.true();
    });

    it('an emptied token field is no token, even with a deployed account holding one (what Deploy would store)', async () => {
      await helper.unload();
      await load([account(sim)]);
      const kept = await post('/easy-account/test-connection', { id: 'acc', baseUrl: sim.url, token: '__PWRD__' });
      should(kept.body.ok).be.true();
      const before = sim.requests.length;
      const emptied = await post('/easy-account/test-connection', { id: 'acc', baseUrl: sim.url, token: '' });
      should(emptied.status).equal(400);
      should(emptied.body.error.message).match(/no token/);
      should(sim.requests).have.length(before);
    });

    it("the editor's password placeholder is no token", async () => {
      const r = await post('/easy-account/test-connection', { baseUrl: sim.url, token: '__PWRD__' });
      should(r.status).equal(400);
      should(r.body.error.message).match(/no token/);
      should(sim.requests).have.length(0);
    });
  });

  describe('the proxy typed in the dialog', () => {
    const PASSWORD = 'PROXY-pw-71c0';
    let proxy: TestServer;
    beforeEach(async () => {
      proxy = await startProxy((host) => (host === 'api.example.test' ? { host: '127.0.0.1', port: sim.port } : null), {
        auth: `easy:${PASSWORD}`,
      });
    });
    afterEach(() => proxy.close());
    const viaProxy = () => ({
      baseUrl: 'http://api.example.test',
      token: CANARY,
      proxyMode: 'url',
      proxyUrl: proxy.url,
      proxyUser: 'easy',
    });

    it("the dialog's untouched proxy fields (environment, nothing typed) test the deployed account", async () => {
      await load([account(sim)]);
      const r = await post('/easy-account/test-connection', {
        id: 'acc',
        baseUrl: sim.url,
        proxyMode: 'env',
        proxyUrl: '',
        proxyUser: '',
        proxyPassword: '',
      });
      should(r.body).match({ ok: true });
    });

    it('Test connection goes through it with a typed token; its password is in no answer', async () => {
      await load([]);
      const r = await post('/easy-account/test-connection', { ...viaProxy(), proxyPassword: PASSWORD });
      should(r.body).match({ ok: true });
      should(proxy.seen.length).equal(1);
      const wrong = await post('/easy-account/test-connection', { ...viaProxy(), proxyPassword: 'nope' });
      should(wrong.body).match({ ok: false });
      should(wrong.body.message).containEql('(407)');
      should(answers.join('\n')).not.containEql(PASSWORD);
    });

    it('the stored proxy password only with the deployed proxy URL and user, never sent to a typed one', async () => {
      await helper.load([easyAccount], [account(sim, { baseUrl: 'http://api.example.test', proxyMode: 'url', proxyUrl: proxy.url })], {
        acc: { token: CANARY, proxyUser: 'easy', proxyPassword: PASSWORD },
      });
      const kept = await post('/easy-account/test-connection', { id: 'acc', ...viaProxy(), proxyPassword: '__PWRD__' });
      should(kept.body).match({ ok: true });
      const elsewhere = await startProxy(() => null);
      try {
        const moved = await post('/easy-account/test-connection', {
          id: 'acc',
          ...viaProxy(),
          proxyUrl: elsewhere.url,
          proxyPassword: '__PWRD__',
        });
        should(moved.status).equal(400);
        should(moved.body.error.message).equal('the proxy differs from the deployed account: type the proxy password again');
        should(elsewhere.seen).eql([]);
        // the stored token with another proxy: typed again, or not at all
        // what the dialog sends for the deployed settings: the stored token and password are used
        const asDeployed = { id: 'acc', baseUrl: 'http://api.example.test', proxyMode: 'url', proxyUrl: proxy.url, proxyUser: 'easy' };
        should((await post('/easy-account/test-connection', { ...asDeployed, proxyPassword: '__PWRD__' })).body).match({ ok: true });
        const stored = await post('/easy-account/test-connection', { id: 'acc', proxyMode: 'none' });
        should(stored.status).equal(400);
        should(stored.body.error.message).match(/the proxy differs from the deployed account: type the token again/);
      } finally {
        await elsewhere.close();
      }
    });
  });

  describe('errors, in words', () => {
    beforeEach(() => load([account(sim)]));

    it('401: the token rejected', async () => {
      const r = await post('/easy-account/test-connection', { baseUrl: sim.url, token: 'wrong-token' });
      should(r.status).equal(200);
      should(r.body).match({ ok: false, outcome: 'token_rejected', tariffs: 0 });
      should(r.body.message).equal('the access token was rejected (401)');
      const list = await post('/easy-account/tariffs', { baseUrl: sim.url, token: 'wrong-token' });
      should(list.status).equal(502);
      should(list.body.error).eql({ code: 'token_rejected', message: 'the access token was rejected (401)' });
      const sensors = await post('/easy-account/sensors', { baseUrl: sim.url, token: 'wrong-token', gateway: 'DEMO' });
      should(sensors.body.error.code).equal('token_rejected');
    });

    it('403: no access to tariffs (sensors still listed)', async () => {
      const r = await post('/easy-account/test-connection', { baseUrl: sim.url, token: CANARY_NO_TARIFFS });
      should(r.body).match({ ok: false, outcome: 'no_access' });
      should(r.body.message).match(/no access to tariffs/);
      const chart = await post('/easy-account/schedule', { baseUrl: sim.url, token: CANARY_NO_TARIFFS, tariff: 'DEMO-FLAT' });
      should(chart.status).equal(502);
      should(chart.body.error.code).equal('no_access');
      const sensors = await post('/easy-account/sensors', { baseUrl: sim.url, token: CANARY_NO_TARIFFS, gateway: 'DEMO' });
      should(sensors.status).equal(200);
    });

    it('unreachable host', async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const r = await post('/easy-account/test-connection', { baseUrl: url, token: CANARY });
      should(r.body).match({ ok: false, outcome: 'unreachable' });
      should(r.body.message).equal('could not reach 127.0.0.1: connection refused');
      for (const path of ['/easy-account/tariffs', '/easy-account/schedule', '/easy-account/sensors']) {
        const e = await post(path, { baseUrl: url, token: CANARY, tariff: 'DEMO-FLAT', gateway: 'DEMO' });
        should(e.status).equal(502);
        should(e.body.error.code).equal('unreachable');
      }
    });

    it('only http(s) base URLs, no credentials in them', async () => {
      for (const baseUrl of [
        'ftp://127.0.0.1/',
        'file:///etc/passwd',
        'javascript:alert(1)',
        'not a url',
        `http://user:pw@127.0.0.1:${sim.port}`,
      ]) {
        for (const path of ['/easy-account/test-connection', '/easy-account/tariffs', '/easy-account/sensors']) {
          const r = await post(path, { baseUrl, token: CANARY, gateway: 'DEMO' });
          should(r.status).equal(400, `${path} ${baseUrl}`);
          should(r.body.error.code).equal('bad_request');
          should(r.body.error.message).match(/^the base URL /);
        }
      }
      should(sim.requests).have.length(0);
    });

    it('a redirect to another host is followed without the token, and says so', async () => {
      sim.setFaults({ redirectTo: `${other.url}/easy/v1/tariffs.json` });
      const r = await post('/easy-account/test-connection', { id: 'acc' });
      should(r.body).match({ ok: false, outcome: 'token_rejected' });
      should(r.body.message).equal(
        `the service redirected to ${new URL(other.url).host}, where the token is not sent (401); check the base URL`,
      );
      const typed = await post('/easy-account/tariffs', { baseUrl: sim.url, token: CANARY });
      should(typed.status).equal(502);
      // the other host was asked twice, without a token each time (the simulator answers 401 to no token)
      should(other.requests.map((q) => q.status)).eql([401, 401]);
    });

    it('no token and no deployed account; an account id that is not an account', async () => {
      for (const body of [{}, { baseUrl: sim.url }, { id: 'nope', baseUrl: sim.url }]) {
        const r = await post('/easy-account/tariffs', body);
        should(r.status).equal(400);
        should(r.body.error.message).equal('no token: type the access token in the account (or deploy the account first)');
      }
    });

    it('unknown tariff, unknown gateway, bad zone, bad instant, missing gateway', async () => {
      const unknownTariff = await post('/easy-account/schedule', { id: 'acc', tariff: 'NOPE' });
      should(unknownTariff.status).equal(404);
      should(unknownTariff.body.error.code).equal('unknown_tariff');
      should(unknownTariff.body.error.message).match(/^tariff "NOPE" is not on the account \(it has DEMO-/);
      const gateway = await post('/easy-account/sensors', { id: 'acc', gateway: 'NOPE' });
      should(gateway.status).equal(502);
      should(gateway.body.error).eql({ code: 'not_found', message: 'gateway NOPE not found on this account (404)' });
      const zone = await post('/easy-account/schedule', { id: 'acc', tariff: 'DEMO-FLAT', timezone: 'Mars/Olympus' });
      should(zone.status).equal(400);
      should(zone.body.error.message).match(/unknown time zone "Mars\/Olympus"/);
      const at = await post('/easy-account/schedule', { id: 'acc', tariff: 'DEMO-FLAT', at: 'soon' });
      should(at.status).equal(400);
      should(at.body.error.message).match(/"at" must be an instant/);
      const none = await post('/easy-account/sensors', { id: 'acc' });
      should(none.status).equal(400);
      should(none.body.error.message).equal('no gateway id given');
    });

    it('no stack traces', async () => {
      for (const a of answers) should(a).not.match(/\n\s+at |Error:|\.ts:\d+/);
    });
  });

  describe('gateways the account has used', () => {
    it("from deployed easy-sensors nodes and the sensor rules of the account's tariffs", async () => {
      await load([
        account(sim),
        {
          id: 's',
          type: 'easy-sensors',
          account: 'acc',
          gateway: 'DEMO',
          interval: 60,
          output: 'each',
          onlyChanged: false,
          sensors: '',
          wires: [],
        },
        { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-GENERATOR', refresh: 60, wires: [] },
      ]);
      should((await post('/easy-account/gateways', { id: 'acc' })).body).eql({ gateways: ['DEMO'] });
      should((await post('/easy-account/gateways', { id: 'other-account' })).body).eql({ gateways: [] });
      await helper.unload();
      await load([account(sim), { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-GENERATOR', refresh: 60, wires: [] }]);
      const hub = helper.getNode('acc').hub;
      for (let i = 0; i < 100 && !hub.tariffs().fetchedAt; i++) await quiet(20);
      should((await post('/easy-account/gateways', { id: 'acc' })).body).eql({ gateways: ['DEMO'] });
    });
  });

  describe("only the editor's own JSON requests", () => {
    beforeEach(() => load([account(sim)]));
    const posts = ADMIN_ROUTES.filter((r) => r.method === 'post');
    const body = { id: 'acc', tariff: 'DEMO-FLAT', gateway: 'DEMO', plan: { durationHours: 1, mode: 'rolling', hours: 24 } };
    const raw = (route: string) => (helper as any).request().post(route);

    it('a form-encoded, text/plain or type-less POST is refused with 415 before any work', async () => {
      should(posts.length).equal(6);
      await quiet(50);
      sim.resetRequests();
      for (const route of posts) {
        const form = await raw(route.path).type('form').send('id=acc&tariff=DEMO-FLAT&gateway=DEMO');
        should(form.status).equal(415, route.path);
        should(form.body.error.message).equal('expected an application/json body, got "application/x-www-form-urlencoded"');
        const plain = await raw(route.path).set('Content-Type', 'text/plain').send(JSON.stringify(body));
        should(plain.status).equal(415, route.path);
        const none = await raw(route.path);
        should(none.status).equal(415, route.path);
        answers.push(form.text, plain.text, none.text);
      }
      should(sim.requests).have.length(0);
    });

    it('a foreign Origin, a null one or a cross-site fetch is refused with 403 before any work; the own origin is answered', async () => {
      await quiet(50);
      sim.resetRequests();
      for (const route of posts) {
        for (const origin of ['https://evil.example', 'null', 'http://editor.local:1881', 'not a url']) {
          const r = await raw(route.path).set('Host', 'editor.local:1880').set('Origin', origin).send(body);
          should(r.status).equal(403, `${route.path} from ${origin}`);
          should(r.body.error.message).equal("only the editor's own origin may ask this");
        }
        const crossSite = await raw(route.path).set('Sec-Fetch-Site', 'cross-site').send(body);
        should(crossSite.status).equal(403, route.path);
      }
      should(sim.requests).have.length(0);
      for (const route of posts) {
        const own = await raw(route.path).set('Host', 'editor.local:1880').set('Origin', 'http://editor.local:1880').send(body);
        should(own.status).equal(200, route.path);
        const sameOrigin = await raw(route.path).set('Sec-Fetch-Site', 'same-origin').send(body);
        should(sameOrigin.status).equal(200, route.path);
        answers.push(own.text, sameOrigin.text);
      }
      should(sim.requests.length).be.above(0);
    });

    it('the timezone list (GET) is no POST and stays open to the editor as before', async () => {
      should((await get('/easy-account/timezones')).status).equal(200);
    });
  });

  describe('registration', () => {
    it('once per runtime: several accounts, redeploys and a second load of the module', async () => {
      await load([account(sim), account(sim, { id: 'acc2' })]);
      // the module's register function run again on the same runtime (e.g. a reinstall)
      easyAccount({ httpAdmin: (helper as any)._httpAdmin, nodes: { registerType: () => undefined } } as any);
      await (helper as any).setFlows([account(sim), account(sim, { id: 'acc3' })], 'full', { acc: { token: CANARY } });
      await (helper as any).setFlows([account(sim)], 'full', { acc: { token: CANARY } });
      const stack = (helper as any)._httpAdmin._router.stack as Array<{ route?: { path: string } }>;
      for (const route of ADMIN_ROUTES) {
        should(stack.filter((layer) => layer.route?.path === route.path)).have.length(1, route.path);
      }
      should((await post('/easy-account/test-connection', { id: 'acc' })).body.ok).be.true();
    });

    it('every route sits behind RED.auth.needsPermission with its permission; a typed token also needs easy-account.write', async () => {
      const express = require('express');
      const request = require('supertest');
      const app = express();
      app.use(express.json());
      const asked: string[] = [];
      const RED = {
        httpAdmin: app,
        auth: {
          needsPermission: (permission: string) => {
            asked.push(permission);
            // the permissions a request holds, as a header: a list
            return (req: any, res: any, next: () => void) =>
              String(req.get('x-permissions')).split(',').includes(permission) ? next() : res.status(401).end();
          },
        },
        nodes: { getNode: () => null, eachNode: () => undefined },
      } as unknown as AdminRED;
      should(registerAdminRoutes(RED)).be.true();
      should(registerAdminRoutes(RED)).be.false();
      should(asked).eql([TYPED_TOKEN_PERMISSION, ...ADMIN_ROUTES.map((r) => r.permission)]);
      should(TYPED_TOKEN_PERMISSION).equal('easy-account.write');
      const typed = { baseUrl: 'http://127.0.0.1:9', token: 'typed' };
      for (const route of ADMIN_ROUTES) {
        should(route.permission).match(/^easy-(account|tariff|sensors|cost|peak)\.read$/);
        const denied = await request(app)[route.method](route.path).send({});
        should(denied.status).equal(401, route.path);
        const allowed = await request(app)[route.method](route.path).set('x-permissions', route.permission).send({});
        should(allowed.status).not.equal(401, route.path);
        should(allowed.body).be.an.Object();
        // a typed token needs write as well; the password placeholder is no typed token
        const reader = await request(app)[route.method](route.path).set('x-permissions', route.permission).send(typed);
        should(reader.status).equal(route.typedToken ? 401 : 200, `${route.path} with a typed token and read only`);
        const placeholder = await request(app)
          [route.method](route.path)
          .set('x-permissions', route.permission)
          .send({ ...typed, token: '__PWRD__' });
        should(placeholder.status).not.equal(401, route.path);
        const writer = await request(app)
          [route.method](route.path)
          .set('x-permissions', `${route.permission},easy-account.write`)
          .query(route.method === 'get' ? typed : {})
          .send(typed);
        should(writer.status).not.equal(401, route.path);
      }
      // a token in the query string counts as typed too
      const queried = await request(app).post('/easy-account/tariffs').set('x-permissions', 'easy-account.read').query(typed).send({});
      should(queried.status).equal(401);
    });
  });

  after('the token is in no answer', () => {
    should(answers.length).be.above(30);
    for (const a of answers) {
      should(a).not.containEql(CANARY);
      should(a).not.containEql(CANARY_NO_TARIFFS);
    }
  });
});
