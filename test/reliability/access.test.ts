// A real Node-RED process with adminAuth: every admin route of the package (listed from
// the runtime's own admin app) answers 401 without a login, and the canary token is in
// neither the exported flows, flows.json, flows_cred.json (encrypted), the credentials
// the editor gets (has_token only), nor the process's log.
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import * as http from 'http';
import type { AddressInfo } from 'net';
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

describe('reliability: the editor behind a reverse proxy that rewrites Host', function () {
  this.timeout(120000);
  let sim: Simulator;
  let red: RedProcess;
  let proxy: http.Server;
  let proxyPort = 0;
  afterEach(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await red?.dispose();
    await sim?.close();
  });

  /** A proxy as nginx's default makes one: Host becomes the upstream's ($proxy_host), X-Forwarded-Host the browser's. */
  async function startReverseProxy(upstreamPort: number): Promise<void> {
    proxy = http.createServer((req, res) => {
      const headers = {
        ...req.headers,
        host: `127.0.0.1:${upstreamPort}`,
        'x-forwarded-host': req.headers.host ?? '',
        'x-forwarded-proto': 'http',
      };
      const up = http.request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      up.on('error', () => res.writeHead(502).end());
      req.pipe(up);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyPort = (proxy.address() as AddressInfo).port;
  }

  /** A POST as a browser at `page` sends it to the editor at nodered.example (its Origin, and Sec-Fetch-Site when given), through the proxy or not. */
  function postAs(port: number, page: string, extra: Record<string, string>, body: object, auth: Record<string, string> = {}) {
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/easy-account/schedule',
          headers: { host: `nodered.example:${proxyPort}`, origin: page, 'content-type': 'application/json', ...auth, ...extra },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  const flows = (simUrl: string) => [
    { id: 'z1', type: 'tab', label: 'proxy' },
    { id: 'acc', type: 'easy-account', name: 'rel', baseUrl: simUrl, timezone: 'UTC', credentials: { token: CANARY } },
    { id: 't', z: 'z1', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-FLAT', refresh: 60, wires: [] },
  ];
  const preview = { id: 'acc', tariff: 'DEMO-FLAT' };

  it("answers a browser behind it (Sec-Fetch-Site: same-origin) as Node-RED's own API does, and still refuses other sites", async () => {
    sim = await canarySimulator();
    const hash = bcrypt.hashSync(PASSWORD, 8);
    red = new RedProcess({
      extraSettings: `adminAuth: { type: 'credentials', users: [{ username: 'admin', password: ${JSON.stringify(hash)}, permissions: '*' }] },`,
    });
    await red.start();
    await startReverseProxy(red.port);
    const page = `http://nodered.example:${proxyPort}`;
    const login = await fetch(`http://127.0.0.1:${proxyPort}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'node-red-admin', grant_type: 'password', scope: '*', username: 'admin', password: PASSWORD }),
    });
    should(login.status).equal(200);
    const auth = { authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
    await red.deploy(flows(sim.url), auth);
    // Node-RED's own admin API works through the proxy: so must the package's
    should((await fetch(`http://127.0.0.1:${proxyPort}/settings`, { headers: auth })).status).equal(200);

    const ok = await postAs(proxyPort, page, { 'sec-fetch-site': 'same-origin' }, preview, auth);
    should(ok.status).equal(200, ok.text);
    should(ok.text).not.containEql(CANARY);
    // not logged in, the permission check still answers 401 behind the proxy
    should((await postAs(proxyPort, page, { 'sec-fetch-site': 'same-origin' }, preview)).status).equal(401);
    // other sites stay refused, token or not
    sim.resetRequests();
    for (const [from, extra] of [
      ['https://evil.example', {}],
      ['https://evil.example', { 'sec-fetch-site': 'cross-site' }],
      [page, { 'sec-fetch-site': 'cross-site' }],
      [`http://other.nodered.example:${proxyPort}`, { 'sec-fetch-site': 'same-site' }],
    ] as Array<[string, Record<string, string>]>) {
      const refused = await postAs(proxyPort, from, extra, preview, auth);
      should(refused.status).equal(403, `${from} ${JSON.stringify(extra)}`);
    }
    // an old browser (no Sec-Fetch-Site) behind a proxy Node-RED does not trust: its Origin is not the rewritten Host
    should((await postAs(proxyPort, page, {}, preview, auth)).status).equal(403);
    should(sim.requests.filter((r) => r.endpoint !== null)).have.length(0);
    // 127.0.0.1 and localhost on the same port are the same machine's editor
    const alias = await postAs(red.port, `http://localhost:${red.port}`, { host: `127.0.0.1:${red.port}` }, preview, auth);
    should(alias.status).equal(200, alias.text);
    const otherPort = await postAs(red.port, `http://localhost:${red.port + 1}`, { host: `127.0.0.1:${red.port}` }, preview, auth);
    should(otherPort.status).equal(403);
  });

  it("takes X-Forwarded-Host from a proxy Node-RED trusts (httpServerOptions 'trust proxy'), and only then", async () => {
    sim = await canarySimulator();
    red = new RedProcess({ extraSettings: `httpServerOptions: { 'trust proxy': 'loopback' },` });
    await red.start();
    await red.deploy(flows(sim.url));
    await startReverseProxy(red.port);
    const page = `http://nodered.example:${proxyPort}`;
    const old = await postAs(proxyPort, page, {}, preview);
    should(old.status).equal(200, old.text);
    should((await postAs(proxyPort, 'https://evil.example', {}, preview)).status).equal(403);
    // a forwarded host that is not the Origin's changes nothing
    should(
      (await postAs(red.port, page, { host: `127.0.0.1:${red.port}`, 'x-forwarded-host': 'elsewhere.example' }, preview)).status,
    ).equal(403);
  });
});
