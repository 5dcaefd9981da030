// A real Node-RED process with adminAuth: every admin route of the package (listed from
// the runtime's own admin app) answers 401 without a login, and the canary token is in
// neither the exported flows, flows.json, flows_cred.json (encrypted), the credentials
// the editor gets (has_token only), nor the process's log.
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import type { Simulator } from '../../sim/server';
import { canarySimulator, CANARY } from './support';
import { RedProcess } from './process-support';

const bcrypt = require('bcryptjs');
const pkg = require('../../package.json');

const PASSWORD = 'reliability-admin-password';

describe('reliability: a Node-RED process with adminAuth', function () {
  this.timeout(60000);
  let sim: Simulator;
  let red: RedProcess;
  after(async () => {
    await red?.dispose();
    await sim?.close();
  });

  it('guards every admin route of the package and keeps the token out of everything it writes or answers', async () => {
    sim = await canarySimulator();
    const hash = bcrypt.hashSync(PASSWORD, 8);
    red = new RedProcess({
      listRoutes: true,
      extraSettings: `adminAuth: { type: 'credentials', users: [{ username: 'admin', password: ${JSON.stringify(hash)}, permissions: '*' }] },`,
    });
    await red.start();
    const login = await fetch(`${red.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'node-red-admin', grant_type: 'password', scope: '*', username: 'admin', password: PASSWORD }),
    });
    should(login.status).equal(200);
    const auth = { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };

    await red.deploy(
      [
        { id: 'z1', type: 'tab', label: 'access' },
        { id: 'acc', type: 'easy-account', name: 'rel', baseUrl: sim.url, timezone: 'UTC', credentials: { token: CANARY } },
        { id: 't', z: 'z1', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-FLAT', refresh: 60, wires: [] },
      ],
      auth,
    );
    await red.waitFor(() => sim.requests.some((r) => r.endpoint === 'tariffs' && r.status === 200), 'a tariff fetch with the token');

    // the package's routes, from the runtime's admin app: those under a path named after one of its node types
    const types = Object.keys(pkg['node-red'].nodes);
    const routes: Array<{ method: string; path: string }> = JSON.parse(fs.readFileSync(path.join(red.userDir, 'routes.json'), 'utf8'));
    const ours = routes.filter((r) => types.some((type) => r.path.startsWith(`/${type}/`)));
    should(ours.length).be.above(0);
    for (const r of ours) {
      const res = await fetch(`${red.url}${r.path}`, {
        method: r.method.toUpperCase(),
        headers: { 'content-type': 'application/json' },
        body: r.method === 'get' ? undefined : JSON.stringify({ id: 'acc' }),
      });
      should(res.status).equal(401, `${r.method.toUpperCase()} ${r.path} answered ${res.status} without a login`);
    }
    // logged in, they answer (the 401 is the guard, not a broken route), without the token
    const zones = await fetch(`${red.url}/easy-account/timezones`, { headers: auth });
    should(zones.status).equal(200);
    const lent = await fetch(`${red.url}/easy-account/tariffs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'acc', token: '__PWRD__' }),
    });
    should(lent.status).equal(200);
    should(await lent.text()).not.containEql(CANARY);

    // a page elsewhere cannot drive the routes through a logged-in user's token: a form or
    // text/plain body is refused (415), a foreign Origin too (403), before any work
    const preview = { id: 'acc', tariff: 'DEMO-FLAT', plan: { durationHours: 0, durationMinutes: 0.001, mode: 'rolling', hours: 192 } };
    const postAs = (headers: Record<string, string>, body: string) =>
      fetch(`${red.url}/easy-account/schedule`, { method: 'POST', headers: { ...auth, ...headers }, body });
    sim.resetRequests();
    should((await postAs({ 'content-type': 'application/x-www-form-urlencoded' }, 'id=acc&tariff=DEMO-FLAT')).status).equal(415);
    should((await postAs({ 'content-type': 'text/plain' }, JSON.stringify(preview))).status).equal(415);
    const foreign = await postAs({ 'content-type': 'application/json', origin: 'https://evil.example' }, JSON.stringify(preview));
    should(foreign.status).equal(403);
    should(sim.requests.filter((r) => r.endpoint !== null)).have.length(0);
    // from the editor's own origin it is answered, and a run time below the resolution is an error in words, at once
    const own = await postAs({ 'content-type': 'application/json', origin: red.url }, JSON.stringify(preview));
    should(own.status).equal(200);
    should(((await own.json()) as { plan: { error: string } }).plan.error).match(/whole seconds/);

    // what the editor gets: flows without credentials, has_token for the password
    const exported = JSON.stringify(await red.get('/flows', auth));
    should(exported).containEql('"easy-account"');
    should(exported).not.containEql(CANARY);
    // the proxy's user name is shown like core's http proxy node's; passwords only as has_…
    should(await red.get('/credentials/easy-account/acc', auth)).eql({ has_token: true, proxyUser: '', has_proxyPassword: false });

    // on disk: flows.json without it, flows_cred.json encrypted
    const flowsFile = fs.readFileSync(path.join(red.userDir, 'flows.json'), 'utf8');
    const credFile = fs.readFileSync(path.join(red.userDir, 'flows_cred.json'), 'utf8');
    should(flowsFile).containEql('"acc"');
    should(flowsFile).not.containEql(CANARY);
    should(Object.keys(JSON.parse(credFile))).eql(['$']);
    should(credFile).not.containEql(CANARY);
    for (const file of red.contextFiles()) should(fs.readFileSync(file, 'utf8')).not.containEql(CANARY);
    should(red.output).not.containEql(CANARY);
  });
});

describe('reliability: read-only and anonymous editor users', function () {
  this.timeout(120000);
  let sim: Simulator;
  let elsewhere: Simulator;
  let red: RedProcess;
  after(async () => {
    await red?.dispose();
    await sim?.close();
    await elsewhere?.close();
  });

  async function login(username: string, scope: string): Promise<Record<string, string>> {
    const res = await fetch(`${red.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'node-red-admin', grant_type: 'password', scope, username, password: PASSWORD }),
    });
    should(res.status).equal(200);
    return { authorization: `Bearer ${((await res.json()) as { access_token: string }).access_token}` };
  }

  async function call(headers: Record<string, string>, route: string, body: object): Promise<{ status: number; text: string }> {
    const res = await fetch(`${red.url}${route}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  }

  it('a viewer or anonymous user reaches no typed URL and costs the service at most one request per refresh', async () => {
    sim = await canarySimulator();
    elsewhere = await canarySimulator();
    const hash = bcrypt.hashSync(PASSWORD, 8);
    red = new RedProcess({
      extraSettings: `adminAuth: { type: 'credentials', default: { permissions: 'read' }, users: [
        { username: 'admin', password: ${JSON.stringify(hash)}, permissions: '*' },
        { username: 'viewer', password: ${JSON.stringify(hash)}, permissions: 'read' },
      ] },`,
    });
    await red.start();
    const admin = await login('admin', '*');
    const viewer = await login('viewer', 'read');
    const anonymous = {};
    await red.deploy(
      [{ id: 'acc', type: 'easy-account', name: 'rel', baseUrl: sim.url, timezone: 'UTC', credentials: { token: CANARY } }],
      admin,
    );

    // a typed token (and the URL beside it): write permission only
    const typed = { baseUrl: elsewhere.url, token: CANARY, tariff: 'DEMO-FLAT', gateway: 'DEMO' };
    for (const route of ['/easy-account/test-connection', '/easy-account/tariffs', '/easy-account/schedule', '/easy-account/sensors']) {
      for (const [who, headers] of [
        ['viewer', viewer],
        ['anonymous', anonymous],
      ] as const) {
        const r = await call(headers, route, typed);
        should(r.status === 401 || r.status === 403).be.true(`${who} ${route} with a typed token answered ${r.status}`);
      }
      should((await call(admin, route, typed)).status).equal(200, `admin ${route}`);
    }
    should(elsewhere.requests.filter((r) => r.endpoint !== null).length).equal(4); // the admin's four, nobody else's

    // 1,000 read-only calls in a burst through the deployed account: one request to the service
    sim.resetRequests();
    const reads = ['/easy-account/tariffs', '/easy-account/schedule', '/easy-account/test-connection', '/easy-account/sensors'];
    const statuses: number[] = [];
    for (let i = 0; i < 1000; i += 100) {
      const batch = Array.from({ length: 100 }, (_, k) =>
        call(k % 2 ? viewer : anonymous, reads[k % reads.length], { id: 'acc', tariff: 'DEMO-FLAT', gateway: 'DEMO' }),
      );
      for (const r of await Promise.all(batch)) {
        statuses.push(r.status);
        should(r.text).not.containEql(CANARY);
      }
    }
    should(new Set(statuses)).eql(new Set([200]));
    should(sim.requests.filter((r) => r.endpoint === 'tariffs')).have.length(1);
    should(sim.requests.filter((r) => r.endpoint === 'sensors')).have.length(1);
    // the runtime still answers
    should((await fetch(`${red.url}/settings`, { headers: viewer })).status).equal(200);
    should(red.child?.exitCode).be.null();
  });
});
