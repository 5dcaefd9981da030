// The package as a user meets it: installed from its npm tarball into a stock Node-RED,
// checked through the admin API, the examples deployed against the simulator and their
// real output read back through http-in endpoints.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import {
  ACCOUNT_ID,
  CONFIG_TYPES,
  NODE_TYPES,
  PKG,
  ROOT,
  RUNTIME,
  TOKEN,
  deploy,
  e2e,
  exampleFlows,
  getJson,
  getText,
  waitFor,
} from './env';

interface NodeSet {
  id: string;
  module: string;
  types: string[];
  enabled: boolean;
  loaded: boolean;
  err?: string;
  version?: string;
}

/** Where the e2e tab's capture nodes keep what the example nodes sent (global context). */
const CAPTURES: Record<string, string> = {
  price: 'relay-price', // easy-tariff, "switch a relay when the price goes up"
  sensor: 'gen-sensors', // easy-sensors, "alert when the generator runs"
  stream: 'daily-cost', // easy-cost stream, "daily cost report"
  month: 'month-cost', // easy-cost range, "cost of last month"
  batch: 'batch-cost', // easy-cost batch, the same example's second inject
};

/**
 * The README's function-node example, word for word: the package's library loaded through
 * the function node's Setup tab (module @tariffkit/node-red-easy as `easy`).
 */
export const README_FUNCTION = `const client = new easy.EasyClient({ baseUrl: msg.baseUrl, token: msg.token });
const { tariffs } = await client.fetchTariffs();
const night = tariffs.find((t) => t.id === 'DEMO-NIGHT');
const opts = { timezone: 'Europe/London' };
const now = Date.now();
msg.payload = {
    now: easy.priceAt(night, now, opts),                       // { price, gross, currency, ... } or null
    next: easy.nextPriceChange(night, now, opts),              // { at, price } or null
    day: easy.schedule(night, now, now + 24 * 3600e3, opts),   // [{ from, to, ruleIndex, price }, ...]
    cost: easy.computeCost(night, [['2026-01-05T20:00:00Z', 1000], ['2026-01-06T08:00:00Z', 1012]], opts),
};
return msg;`;

/** An extra tab of core nodes only: each capture stores msg.payload, GET /e2e/state answers them all. */
function e2eTab(): Array<Record<string, any>> {
  const z = 'e2e-tab';
  const nodes: Array<Record<string, any>> = [{ id: z, type: 'tab', label: 'e2e probes', disabled: false, info: '' }];
  let y = 40;
  for (const name of Object.keys(CAPTURES)) {
    nodes.push({
      id: `e2e-cap-${name}`,
      type: 'change',
      z,
      name: `capture ${name}`,
      x: 200,
      y,
      wires: [],
      rules: [{ t: 'set', p: `e2e_${name}`, pt: 'global', to: 'payload', tot: 'msg' }],
    });
    y += 40;
  }
  // what the examples' own Catch nodes caught: handled errors are not in Node-RED's log
  nodes.push({
    id: 'e2e-cap-errors',
    type: 'change',
    z,
    name: 'capture errors',
    x: 200,
    y,
    wires: [],
    rules: [
      {
        t: 'set',
        p: 'e2e_errors',
        pt: 'global',
        tot: 'jsonata',
        to: '$append($globalContext("e2e_errors"), [{ "node": error.source.type, "message": error.message }])',
      },
    ],
  });
  y += 40;
  const names = [...Object.keys(CAPTURES), 'errors'];
  const expr = `{ ${names.map((n) => `"${n}": $globalContext("e2e_${n}")`).join(', ')} }`;
  nodes.push(
    {
      id: 'e2e-http-in',
      type: 'http in',
      z,
      name: '',
      url: '/state',
      method: 'get',
      upload: false,
      swaggerDoc: '',
      x: 120,
      y,
      wires: [['e2e-state']],
    },
    {
      id: 'e2e-state',
      type: 'change',
      z,
      name: 'state',
      rules: [{ t: 'set', p: 'payload', pt: 'msg', to: expr, tot: 'jsonata' }],
      x: 300,
      y,
      wires: [['e2e-http-out']],
    },
    { id: 'e2e-http-out', type: 'http response', z, name: '', statusCode: '', headers: {}, x: 480, y, wires: [] },
    {
      id: 'e2e-lib-in',
      type: 'http in',
      z,
      name: '',
      url: '/lib',
      method: 'get',
      upload: false,
      swaggerDoc: '',
      x: 120,
      y: y + 40,
      wires: [['e2e-lib-args']],
    },
    {
      id: 'e2e-lib-args',
      type: 'change',
      z,
      name: 'args',
      x: 300,
      y: y + 40,
      wires: [['e2e-lib']],
      rules: [
        { t: 'set', p: 'baseUrl', pt: 'msg', to: 'req.query.base', tot: 'msg' },
        { t: 'set', p: 'token', pt: 'msg', to: 'req.query.token', tot: 'msg' },
      ],
    },
    {
      id: 'e2e-lib',
      type: 'function',
      z,
      name: 'library',
      func: README_FUNCTION,
      outputs: 1,
      timeout: 0,
      noerr: 0,
      initialize: '',
      finalize: '',
      libs: [{ var: 'easy', module: PKG.name }],
      x: 480,
      y: y + 40,
      wires: [['e2e-http-out']],
    },
  );
  return nodes;
}

async function state(): Promise<Record<string, any>> {
  const res = await fetch(`${e2e().redUrl}/e2e/state`);
  if (!res.ok) throw new Error(`GET /e2e/state: ${res.status}`);
  return (await res.json()) as Record<string, any>;
}

/** The installed package's own engine and the simulator's demo data, for expectations. */
function installedLib() {
  return require(path.join(e2e().userDir, 'node_modules', ...PKG.name.split('/'))) as typeof import('../../nodes/lib');
}
const demo = () => require(path.join(ROOT, 'dist', 'sim', 'demo-data.js')) as typeof import('../../sim/demo-data');

describe('e2e: installed from the npm tarball into stock Node-RED', function () {
  this.timeout(120_000);

  it('installed the tarball into the user directory, with only its runtime dependencies', function () {
    const { userDir, tarball } = e2e();
    const installed = path.join(userDir, 'node_modules', ...PKG.name.split('/'));
    assert.ok(fs.existsSync(path.join(installed, 'package.json')), 'package in userDir/node_modules');
    assert.ok(!fs.lstatSync(installed).isSymbolicLink(), 'a real install, not a link to the checkout');
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
    assert.strictEqual(manifest.version, PKG.version);
    assert.deepStrictEqual(Object.keys(manifest.dependencies).sort(), ['axios', 'csv-parse', 'moment-timezone']);
    for (const file of Object.values(PKG['node-red'].nodes)) assert.ok(fs.existsSync(path.join(installed, file)), file);
    assert.ok(!fs.existsSync(path.join(installed, 'dist', 'sim')), 'the simulator is not shipped');
    assert.ok(!fs.existsSync(path.join(installed, 'test')), 'tests are not shipped');
    assert.ok(fs.statSync(tarball).size < 2_000_000, 'tarball size');
  });

  it(`runs the stock node-red ${RUNTIME.redVersion} from the registry under Node.js ${RUNTIME.nodeVersion}`, async function () {
    const settings = await getJson<{ version: string }>('/settings');
    const redPkg = require.resolve('node-red/package.json', { paths: [RUNTIME.redHome] });
    assert.ok(!redPkg.startsWith(path.join(ROOT, 'nodes')), redPkg);
    // (a node-red installed below a git checkout calls itself x.y.z-git)
    assert.strictEqual(settings.version.replace(/-git$/, ''), RUNTIME.redVersion);
    assert.strictEqual(JSON.parse(fs.readFileSync(redPkg, 'utf8')).version, RUNTIME.redVersion);
    assert.match(e2e().log(), new RegExp(`Node\\.js\\s+version: v${RUNTIME.nodeVersion.replace(/\./g, '\\.')}\\b`));
  });

  it('registers every node type from the installed module (GET /nodes)', async function () {
    const sets = await getJson<NodeSet[]>('/nodes');
    const ours = sets.filter((s) => s.module === PKG.name);
    assert.deepStrictEqual(ours.flatMap((s) => s.types).sort(), [...NODE_TYPES].sort());
    for (const s of ours) {
      assert.ok(s.enabled, `${s.id}: enabled ${s.enabled} ${s.err ?? ''}`);
      assert.strictEqual(s.err, undefined, `${s.id}: ${s.err}`);
    }
    const mod = await getJson<{ name: string; version: string; nodes: NodeSet[] }>(`/nodes/${PKG.name}`);
    assert.strictEqual(mod.version, PKG.version);
  });

  it('serves the icons (GET /icons and each SVG)', async function () {
    const icons = await getJson<Record<string, string[]>>('/icons');
    const ours = icons[PKG.name] ?? [];
    const html = (await getText('/nodes')).body;
    for (const type of NODE_TYPES) {
      const def = html.slice(html.indexOf(`registerType('${type}'`));
      const icon = /icon:\s*'([^']+)'/.exec(def.slice(0, 3000))?.[1] ?? `${type}.svg`;
      assert.ok(ours.includes(icon), `${type}: ${icon} not in ${JSON.stringify(ours)}`);
      const svg = await getText(`/icons/${PKG.name}/${icon}`, 'image/svg+xml');
      assert.strictEqual(svg.status, 200, icon);
      assert.match(svg.type, /svg/);
      assert.match(svg.body, /<svg[\s>]/);
    }
  });

  it("serves each node's editor definition in category energy and its help (GET /nodes as HTML)", async function () {
    const { body } = await getText('/nodes');
    for (const type of NODE_TYPES) {
      assert.ok(body.includes(`RED.nodes.registerType('${type}'`), `${type} editor definition`);
      assert.ok(body.includes(`data-template-name="${type}"`), `${type} edit template`);
      const m = new RegExp(`<script type="text/html" data-help-name="${type}">([\\s\\S]*?)</script>`).exec(body);
      assert.ok(m, `${type} help`);
      assert.match(m[1], /<h3>\s*(Inputs|Outputs|Details)/, `${type} help has Inputs/Outputs/Details`);
      assert.ok(m[1].length > 500, `${type} help is more than a line`);
    }
    for (const type of NODE_TYPES.filter((t) => !CONFIG_TYPES.includes(t))) {
      const def = body.slice(body.indexOf(`registerType('${type}'`));
      assert.match(def.slice(0, 500), /category:\s*'energy'/, type);
    }
  });

  it('serves the message catalogues the editor loads (GET /nodes/messages?lng=en-US)', async function () {
    const cat = await getJson<Record<string, unknown>>('/nodes/messages?lng=en-US');
    for (const type of NODE_TYPES) {
      const ns = cat[`${PKG.name}/${type}`] as Record<string, unknown> | undefined;
      assert.ok(ns && Object.keys(ns).length > 0, `${type} catalogue: ${Object.keys(cat)}`);
    }
  });

  describe('the examples deployed against the simulator (POST /flows, token through credentials)', function () {
    before(async function () {
      const flows = exampleFlows(e2e().simUrl);
      for (const [name, id] of Object.entries(CAPTURES)) {
        const node = flows.find((n) => n.id === id);
        assert.ok(node, `example node ${id}`);
        node!.wires[0].push(`e2e-cap-${name}`);
      }
      for (const caught of flows.filter((n) => n.type === 'catch')) caught.wires[0].push('e2e-cap-errors');
      await deploy([...flows, ...e2eTab()]);
    });

    it('stored the token as a credential, never in the flow file', async function () {
      const flows = await getJson<{ flows: Array<Record<string, unknown>> }>('/flows', { 'Node-RED-API-Version': 'v2' });
      const account = flows.flows.find((n) => n.id === ACCOUNT_ID)!;
      assert.strictEqual(account.credentials, undefined);
      const creds = await getJson<Record<string, unknown>>(`/credentials/easy-account/${ACCOUNT_ID}`);
      // the proxy's user name is shown like core's http proxy node's; passwords only as has_…
      assert.deepStrictEqual(creds, { has_token: true, proxyUser: '', has_proxyPassword: false });
      const onDisk = fs.readFileSync(path.join(e2e().userDir, 'flows.json'), 'utf8');
      assert.ok(!onDisk.includes('demo-token'), 'token in flows.json');
      const credFile = fs.readFileSync(path.join(e2e().userDir, 'flows_cred.json'), 'utf8');
      assert.ok(!credFile.includes('demo-token'), 'flows_cred.json is encrypted');
    });

    it('easy-tariff sends the price on deploy (switch a relay when the price goes up)', async function () {
      const price = await waitFor('a price', 30_000, async () => (await state()).price);
      const lib = installedLib();
      const tariffs = lib.parseTariffs(demo().demoTariffs()).tariffs;
      const tariff = tariffs.find((t) => t.id === 'DEMO-WORKDAY')!;
      const expected = lib.priceAt(tariff, Date.parse(price.validFrom) + 1, { timezone: lib.machineTimeZone() });
      assert.strictEqual(price.tariffId, 'DEMO-WORKDAY');
      assert.strictEqual(price.currency, 'GBP');
      assert.ok([0.42, 0.31, 0.24].includes(price.price), String(price.price));
      assert.strictEqual(price.price, expected!.price);
      assert.ok(Math.abs(price.gross - price.price * 1.2) < 1e-9);
      assert.ok(Date.parse(price.validUntil) > Date.now() - 1000, price.validUntil);
    });

    it('easy-sensors sends the generator input (alert when the generator runs)', async function () {
      const sensor = await waitFor('a sensor value', 30_000, async () => (await state()).sensor);
      assert.strictEqual(sensor.id, '1');
      assert.deepStrictEqual(sensor.decoded, { kind: 'digital_input', channel: 1 });
      assert.strictEqual(sensor.value, demo().generatorOn(sensor.ts) ? 1 : 0);
      assert.strictEqual(typeof sensor.timestamp, 'string');
      assert.strictEqual(sensor.stale, false);
    });

    it("easy-cost stream mode keeps today's total from the meter (daily cost report)", async function () {
      const stream = await waitFor('a running total', 30_000, async () => (await state()).stream);
      assert.strictEqual(stream.tariffId, 'DEMO-WORKDAY');
      assert.ok(stream.reading.value > 1000, JSON.stringify(stream.reading));
      assert.ok(Math.abs(stream.reading.value - demo().energyKwh(stream.reading.ts)) <= 0.006, JSON.stringify(stream.reading));
      for (const p of ['today', 'week', 'month', 'total']) {
        assert.ok(stream[p], p);
        assert.strictEqual(stream[p].currency, 'GBP');
        assert.match(stream[p].formatted.gross.display, /^(£|GBP )[\d,]+\.\d\d$/);
      }
    });

    it('easy-cost range mode costs last month from the archive (cost of last month)', async function () {
      const res = await fetch(`${e2e().redUrl}/inject/month-inject`, { method: 'POST' });
      assert.strictEqual(res.status, 200);
      const month = await waitFor("last month's cost", 60_000, async () => (await state()).month);
      const from = Date.parse(month.range.from);
      const to = Date.parse(month.range.to);
      const days = (to - from) / 86_400_000;
      assert.ok(days >= 27.9 && days <= 31.1, `${month.range.from} .. ${month.range.to}`);
      const expected = demo().energyKwh(to) - demo().energyKwh(from);
      assert.ok(Math.abs(month.energy - expected) / expected < 0.01, `energy ${month.energy}, meter says ${expected}`);
      assert.ok(month.net > 0 && month.gross > month.net);
      assert.strictEqual(month.unpricedEnergy, 0);
      assert.deepStrictEqual(month.byRule.map((r: { priority: number }) => r.priority).sort(), [50, 60, 70]);
      assert.match(month.formatted.gross.display, /^(£|GBP )[\d,]+\.\d\d$/);
    });

    it("easy-cost batch mode costs the example's three readings", async function () {
      const res = await fetch(`${e2e().redUrl}/inject/batch-inject`, { method: 'POST' });
      assert.strictEqual(res.status, 200);
      const batch = await waitFor('the batch cost', 30_000, async () => (await state()).batch);
      // 2026-03-02 is a Monday; 08:00-12:00Z and 12:00-20:00Z in the machine's zone
      assert.strictEqual(batch.energy, 22);
      assert.ok(batch.net > 22 * 0.24 - 1e-9 && batch.net < 22 * 0.42 + 1e-9, String(batch.net));
      assert.strictEqual(batch.tariffId, 'DEMO-WORKDAY');
    });

    it('the library works in a function node (module from the Setup tab), as the README shows', async function () {
      const q = new URLSearchParams({ base: e2e().simUrl, token: TOKEN });
      const res = await fetch(`${e2e().redUrl}/e2e/lib?${q}`);
      assert.strictEqual(res.status, 200, await res.clone().text());
      const out = (await res.json()) as Record<string, any>;
      assert.ok([0.12, 0.28].includes(out.now.price), JSON.stringify(out.now));
      assert.strictEqual(out.now.tariffId, 'DEMO-NIGHT');
      assert.ok(out.next.at > Date.now() - 60_000 && out.next.price.price !== out.now.price);
      assert.ok(out.day.length >= 2 && out.day.length <= 3, JSON.stringify(out.day));
      // one interval from 20:00 (London = UTC in January), priced whole by the rule at its start (0.28)
      assert.strictEqual(out.cost.energy, 12);
      assert.ok(Math.abs(out.cost.net - 12 * 0.28) < 1e-9, JSON.stringify(out.cost));
    });

    it("no node reported an error, in the log or to the examples' Catch nodes", async function () {
      const log = e2e().log();
      assert.ok(
        !/\[error\]/.test(log),
        log
          .split('\n')
          .filter((l) => /\[error\]/.test(l))
          .join('\n'),
      );
      assert.deepStrictEqual((await state()).errors ?? [], []);
    });
  });
});
