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

    await red.deploy([
      { id: 'z1', type: 'tab', label: 'access' },
      { id: 'acc', type: 'easy-account', name: 'rel', baseUrl: sim.url, timezone: 'UTC', credentials: { token: CANARY } },
      { id: 't', z: 'z1', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-FLAT', refresh: 60, wires: [] },
    ], auth);
    await red.waitFor(() => sim.requests.some((r) => r.endpoint === 'tariffs' && r.status === 200), 'a tariff fetch with the token');

    // the package's routes, from the runtime's admin app: those under a path named after one of its node types
    const types = Object.keys(pkg['node-red'].nodes);
    const routes: Array<{ method: string; path: string }> = JSON.parse(fs.readFileSync(path.join(red.userDir, 'routes.json'), 'utf8'));
    const ours = routes.filter((r) => types.some((type) => r.path.startsWith(`/${type}/`)));
    should(ours.length).be.above(0);
    for (const r of ours) {
      const res = await fetch(`${red.url}${r.path}`, { method: r.method.toUpperCase(), headers: { 'content-type': 'application/json' }, body: r.method === 'get' ? undefined : JSON.stringify({ id: 'acc' }) });
      should(res.status).equal(401, `${r.method.toUpperCase()} ${r.path} answered ${res.status} without a login`);
    }
    // logged in, they answer (the 401 is the guard, not a broken route), without the token
    const zones = await fetch(`${red.url}/easy-account/timezones`, { headers: auth });
    should(zones.status).equal(200);
    const lent = await fetch(`${red.url}/easy-account/tariffs`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'acc', token: '__PWRD__' }) });
    should(lent.status).equal(200);
    should(await lent.text()).not.containEql(CANARY);

    // what the editor gets: flows without credentials, has_token for the password
    const exported = JSON.stringify(await red.get('/flows', auth));
    should(exported).containEql('"easy-account"');
    should(exported).not.containEql(CANARY);
    should(await red.get('/credentials/easy-account/acc', auth)).eql({ has_token: true });

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
