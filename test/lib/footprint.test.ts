// What a Node-RED that has the package installed but deploys none of its nodes loads:
// Node-RED requires every node file and calls its register function. The zone data
// (moment-timezone, ~8 MB) and the CSV parser wait until a node or an editor dialog
// needs them, and the HTTP library (axios) waits for the first request.
// Measured in a fresh process so nothing loaded by other suites counts. The figures are
// `npm run bench:footprint`'s; this only pins which modules load.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import should from 'should';

const ROOT = path.join(__dirname, '..', '..');
// require.cache holds real paths: a checkout whose node_modules is a link names its modules by the link's target
const REAL_ROOT = fs.realpathSync(ROOT);
const PKG = require(path.join(ROOT, 'package.json')) as { main: string; 'node-red': { nodes: Record<string, string> } };

/** The third-party modules loaded by requiring `files` and registering the node types in them. */
function modulesLoadedBy(files: string[], editorAsksSettings = false, tz?: string): string[] {
  const script = `
    const settings = [];
    const RED = {
      nodes: { registerType: (type, ctor, opts) => { if (opts && opts.settings) settings.push(opts.settings); }, createNode() {}, getNode() {} },
      httpAdmin: { get() {}, post() {}, use() {} }, auth: { needsPermission: () => (req, res, next) => next() },
      settings: {}, log: { info() {}, warn() {}, error() {}, debug() {} }, _: (k) => k, util: {}, events: { on() {} },
    };
    for (const file of ${JSON.stringify(files)}) {
      const m = require(file);
      if (typeof m === 'function') m(RED);
    }
    if (${editorAsksSettings}) for (const s of settings) for (const k of Object.keys(s)) void s[k].value;
    const names = new Set();
    const root = ${JSON.stringify(REAL_ROOT)};
    for (const key of Object.keys(require.cache)) {
      // the package's own files are no third-party module, wherever the package lies (even inside a node_modules)
      const rest = key.startsWith(root) ? key.slice(root.length) : key;
      const m = /.*node_modules[\\\\/]((?:@[^\\\\/]+[\\\\/])?[^\\\\/]+)/.exec(rest);
      if (m) names.add(m[1]);
    }
    if (names.size === 0 && !Object.keys(require.cache).some((key) => key.startsWith(root))) throw new Error('no file of the package is in require.cache under ' + root);
    console.log(JSON.stringify([...names].sort()));`;
  const env = tz === undefined ? process.env : { ...process.env, TZ: tz };
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', env }).trim());
}

describe('footprint: what loading the package loads', function () {
  this.timeout(30_000);
  const nodeFiles = Object.values(PKG['node-red'].nodes).map((f) => path.join(ROOT, f));

  it('registering every node type loads no third-party module', () => {
    should(modulesLoadedBy(nodeFiles)).eql([]);
  });

  it("the package's main loads none either; the zone data comes with the first zone asked for", () => {
    should(modulesLoadedBy([path.join(ROOT, PKG.main)])).eql([]);
    // the editor asks for the machine's zone: checked against the zone data, unless it is UTC
    should(modulesLoadedBy(nodeFiles, true, 'Europe/London')).eql(['moment', 'moment-timezone']);
    should(modulesLoadedBy(nodeFiles, true, 'Etc/UTC')).eql([]);
  });
});

describe('zone data: one zone at a time from moment-timezone', function () {
  this.timeout(30_000);

  it('a fresh process adds only the zones asked for, the same as the whole data gives', () => {
    const script = `
      const time = require(${JSON.stringify(path.join(ROOT, 'dist', 'nodes', 'lib', 'engine', 'time', 'time.js'))});
      const asked = ['Europe/London', 'europe/berlin', 'US/Eastern', 'Asia/Kolkata', 'Etc/UTC', 'UTC'];
      const ours = asked.map((name) => time.zoneInfo(name));
      const unknown = (() => { try { time.zoneInfo('Europe/Londn'); return 'accepted'; } catch (e) { return e.message; } })();
      const addedBefore = time.momentTz().tz.names().length;
      const names = time.timeZoneNames();
      const full = require('moment-timezone'); // the whole data, into the same moment instance
      const same = ours.every((z, i) => {
        const ref = full.tz.zone(asked[i]);
        return z.name === ref.name && z.untils.length === ref.untils.length &&
          ref.untils.every((u, k) => z.untils[k] === u) &&
          ref.offsets.every((o, k) => z.offsetMs[k] === -Math.round(o * 60000));
      });
      console.log(JSON.stringify({ names: ours.map((z) => z.name), unknown, addedBefore, same,
        namesEqual: JSON.stringify(names) === JSON.stringify([...full.tz.names()].sort()), total: names.length }));`;
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' }).trim());
    should(out.names).eql(['Europe/London', 'Europe/Berlin', 'US/Eastern', 'Asia/Kolkata', 'Etc/UTC', 'UTC']);
    should(out.unknown).equal('unknown time zone "Europe/Londn" (use an IANA name such as Europe/London)');
    should(out.same).be.true();
    should(out.namesEqual).be.true();
    should(out.total).be.above(500);
    // the zones asked for and their links, not the 500-odd of the data
    should(out.addedBefore).be.below(20);
  });
});
