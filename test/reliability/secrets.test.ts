// The account token is a canary: every admin route the package registers (found by
// listing the runtime's admin app, not from a hand-kept list) is asked, with the typed
// token and with a deployed account lending its own, under every fault of the service,
// and no answer, status, log line or message may hold it. Typed base URLs are http(s)
// only, a redirect is never followed with the token, and plain http to another machine
// is warned about in the log.
import should from 'should';
import type { Simulator } from '../../sim/server';
import easyTariff = require('../../nodes/easy-tariff');
import easySensors = require('../../nodes/easy-sensors');
import easyCost = require('../../nodes/easy-cost');
import { helper, quiet } from '../nodes/flow-support';
import {
  canarySimulator,
  CANARY,
  fastAccount,
  loadWithCanary,
  logLines,
  SERVICE_FAULTS,
  shouldNotLeak,
  shouldNotLeakAnywhere,
} from './support';

interface Route {
  method: 'get' | 'post';
  path: string;
}

/** The routes of the runtime's admin app (the helper gives each load a fresh one: all of them are the package's). */
function listRoutes(app: any): Route[] {
  const stack: any[] = (app._router ?? app.router).stack;
  return stack
    .filter((layer) => layer.route)
    .flatMap((layer) =>
      Object.keys(layer.route.methods).map((method) => ({ method: method as Route['method'], path: layer.route.path as string })),
    );
}

async function ask(route: Route, body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const req = (helper as any).request()[route.method](route.path);
  const res = route.method === 'get' ? await req.query(body) : await req.send(body);
  return { status: res.status, text: res.text };
}

describe('reliability: the token never leaks', function () {
  this.timeout(30000);
  let sim: Simulator;
  let other: Simulator | null = null;
  let routes: Route[];

  beforeEach(async () => {
    sim = await canarySimulator();
    await loadWithCanary(
      [easyTariff, easySensors, easyCost],
      [
        fastAccount(sim),
        { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-GENERATOR', refresh: 60, wires: [['out']] },
        { id: 's', type: 'easy-sensors', account: 'acc', gateway: 'DEMO', interval: 10, output: 'all', wires: [['out']] },
        { id: 'c', type: 'easy-cost', account: 'acc', tariff: 'DEMO-FLAT', mode: 'batch', wires: [['out']] },
        { id: 'out', type: 'helper' },
      ],
    );
    routes = listRoutes((helper as any)._httpAdmin);
  });
  afterEach(async () => {
    await helper.unload();
    await sim.close();
    await other?.close();
    other = null;
  });

  /** What a dialog can send: the typed canary with the typed URL, or only the deployed account's id. */
  const bodies = () => [
    { baseUrl: sim.url, token: CANARY, timezone: 'UTC', tariff: 'DEMO-WORKDAY', gateway: 'DEMO' },
    { id: 'acc', token: '__PWRD__', tariff: 'DEMO-WORKDAY', gateway: 'DEMO' },
  ];

  it('lists the admin routes of the package from the runtime', () => {
    should(routes.length).be.above(0);
    for (const r of routes) should(r.path).startWith('/easy-');
  });

  for (const [name, faults] of Object.entries(SERVICE_FAULTS)) {
    it(`no admin route answer, status or log holds the token: ${name}`, async () => {
      sim.setFaults({ ...faults(), ...(name.startsWith('latency') ? { latencyMs: 300 } : {}) });
      const answers = await Promise.all(routes.flatMap((r) => bodies().map((b) => ask(r, b).then((a) => ({ ...a, route: r.path })))));
      for (const a of answers) {
        // an answer in words (502 when the service failed), never an internal error
        should(a.status).not.equal(500, `${a.route}: ${a.text.slice(0, 200)}`);
        if (a.status >= 400) should(JSON.parse(a.text).error.message).be.a.String();
        should(a.text).not.containEql(CANARY);
        should(a.text).not.match(/\bat .*\.(js|ts):\d+/); // no stack trace
      }
      shouldNotLeakAnywhere(answers);
    });
  }

  it('accepts only http(s) base URLs, and the stored token only for the deployed base URL', async () => {
    const post = routes.filter((r) => r.method === 'post' && r.path !== '/easy-account/gateways');
    should(post.length).be.above(0);
    await quiet(300); // the deployed nodes' own first requests
    sim.resetRequests();
    for (const r of post) {
      for (const baseUrl of ['file:///etc/passwd', 'ftp://127.0.0.1/', 'javascript:alert(1)', `gopher://127.0.0.1:${sim.port}/`]) {
        const a = await ask(r, { baseUrl, token: CANARY, tariff: 'DEMO-FLAT', gateway: 'DEMO' });
        should(a.status).equal(400, `${r.path} with ${baseUrl}: ${a.text}`);
        should(a.text).match(/https?:\/\//);
        should(a.text).not.containEql(CANARY);
      }
      const lent = await ask(r, { id: 'acc', baseUrl: 'http://127.0.0.2:9', tariff: 'DEMO-FLAT', gateway: 'DEMO' });
      should(lent.status).equal(400);
      should(lent.text).match(/base URL differs/);
    }
    should(sim.requests).have.length(0);
  });

  it('follows a redirect to another host without the token', async () => {
    other = await canarySimulator();
    const elsewhere = other.url.replace('127.0.0.1', 'localhost');
    sim.setFaults({ redirectTo: `${elsewhere}/easy/v1/tariffs.json` });
    for (const r of routes) {
      for (const b of bodies()) {
        const a = await ask(r, b);
        should(a.text).not.containEql(CANARY);
        if (r.path === '/easy-account/test-connection') should(a.text).match(/redirect/);
      }
    }
    // the other host was asked, always without a token: the simulator answers 401 to none
    should(other.requests.length).be.above(0);
    should(other.requests.every((q) => q.status === 401)).be.true();
    should(sim.requests.length).be.aboveOrEqual(routes.length - 1); // every route that calls the service did
    should(sim.requests.every((q) => q.status === 302)).be.true();
  });

  it('warns in the log about plain http to another machine, without the token', async () => {
    await helper.unload();
    await loadWithCanary([], [fastAccount({ url: 'http://192.0.2.10:8080' })], false);
    const warnings = logLines().filter((l) => /plain http/.test(l));
    should(warnings).have.length(1);
    should(warnings[0]).match(/http:\/\/192\.0\.2\.10:8080 uses plain http: the access token travels unencrypted/);
    shouldNotLeak(warnings);
  });
});
