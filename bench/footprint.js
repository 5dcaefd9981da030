'use strict';
// npm run bench:footprint: what the package costs a Node-RED (a Pi Zero 2 has 512 MB for
// everything). In one run, alternately:
//   - stock Node-RED (this repo's devDependency) started in a fresh user directory without
//     the package ("plain"); the same with the package in the user directory's
//     node_modules, as npm install puts it (here a link to this checkout's build), no flows
//     ("installed"); and with the examples deployed and running against the simulator on
//     loopback, all six node types ("deployed"): start time to "Started flows", resident
//     memory and V8 heap in use after a forced garbage collection once settled;
//   - `node` requiring the package's main, against `node` requiring nothing.
// Medians over FOOTPRINT_RUNS starts (default 7) of each; the difference is the package's.
// FOOTPRINT_SETTLE_MS (default 4000): how long after "Started flows" memory is read (.ci/run's
// smoke: one start of each side, read after a second, so a bench that cannot run fails CI).
// FOOTPRINT_BASELINE=<another built checkout of the package>: one more side, "baseline",
// the same examples deployed with that checkout linked instead: before/after in one run.
// Spawned processes only, loopback only, nothing left behind.

const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { cpuMs, freePort } = require('./process-stats');

const ROOT = path.join(__dirname, '..');
const { exampleFlows, encryptCredentials } = require(path.join(ROOT, 'scripts', 'demo-flows.js'));
const PKG = require(path.join(ROOT, 'package.json'));
const RUNS = Math.max(1, Number(process.env.FOOTPRINT_RUNS) || 7);
const BASELINE = process.env.FOOTPRINT_BASELINE ? path.resolve(process.env.FOOTPRINT_BASELINE) : null;
const RED_JS = require.resolve('node-red/red.js', { paths: [ROOT] });
const MAIN = path.join(ROOT, PKG.main);
/** Memory is read this long after "Started flows": the deployed flows' first requests have been answered by then. */
const SETTLE_MS = Math.max(0, Number(process.env.FOOTPRINT_SETTLE_MS ?? 4000) || 0);
const CREDENTIAL_SECRET = 'footprint';
/** The easy node types; the deployed side must run every one of them. */
const EASY_TYPES = Object.keys(PKG['node-red'].nodes);
function rssMb(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
  } catch {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
  }
}

/** CPU time (user + system) the process has used so far, in ms; null where /proc is missing. */
function cpuMsOrNull(pid) {
  try {
    return cpuMs(pid);
  } catch {
    return null;
  }
}

/**
 * Core nodes that need nothing outside Node-RED (no broker, no database): a tab of the
 * examples made of these and the package's nodes runs as it is.
 */
const CORE_OFFLINE = ['tab', 'inject', 'debug', 'switch', 'change', 'catch', 'comment', 'rbe', 'link in', 'link out'];

/**
 * The examples' tabs that need nothing but those core nodes and this package (Dashboard 2,
 * InfluxDB and MQTT need another package or a server), with the config nodes they use
 * (the account, pointed at the simulator); a config node of another type is left out with
 * the tabs that used it, so Node-RED waits for no missing type.
 */
function deployedFlows(simUrl) {
  const { flows, credentials } = exampleFlows(simUrl);
  const known = new Set([...CORE_OFFLINE, ...EASY_TYPES]);
  const tabs = new Set(flows.filter((n) => n.z && !known.has(n.type)).map((n) => n.z));
  const kept = flows.filter((n) => (n.z ? !tabs.has(n.z) : !tabs.has(n.id) && known.has(n.type)));
  const missing = EASY_TYPES.filter((type) => !kept.some((n) => n.type === type));
  if (missing.length) throw new Error(`the deployed examples lack ${missing.join(', ')}`);
  return { flows: kept, credentials };
}

function userDir(base, side, simUrl) {
  const withPackage = side !== 'plain';
  const dir = fs.mkdtempSync(path.join(base, `${side}-`));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'node-red-project', version: '0.0.1', private: true }));
  if (side === 'deployed' || side === 'baseline') {
    const { flows, credentials } = deployedFlows(simUrl);
    fs.writeFileSync(path.join(dir, 'flows.json'), JSON.stringify(flows));
    fs.writeFileSync(path.join(dir, 'flows_cred.json'), JSON.stringify(encryptCredentials(credentials, CREDENTIAL_SECRET)));
  } else {
    fs.writeFileSync(path.join(dir, 'flows.json'), '[]');
  }
  if (withPackage) {
    const link = path.join(dir, 'node_modules', ...PKG.name.split('/'));
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(side === 'baseline' ? BASELINE : ROOT, link, 'junction');
  }
  return dir;
}

/**
 * Node-RED's settings, and a way to read its memory from outside: asked over the IPC
 * channel, the process collects garbage (node --expose-gc) and answers process.memoryUsage().
 * (Not a signal: Node-RED stops on SIGUSR2.)
 */
function settings(port) {
  return `process.on('message', (m) => { if (m === 'memory') { global.gc(); const u = process.memoryUsage(); try { u.privateDirty = Number(/Private_Dirty:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/smaps_rollup', 'utf8'))[1]) * 1024; } catch { u.privateDirty = null; } process.send(u); } });
module.exports = ${JSON.stringify({
    uiHost: '127.0.0.1',
    uiPort: port,
    flowFile: 'flows.json',
    credentialSecret: CREDENTIAL_SECRET,
    telemetry: { enabled: false, updateNotification: false },
    diagnostics: { enabled: false },
    logging: { console: { level: 'info', metrics: false, audit: false } },
    editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
    externalModules: { autoInstall: false, palette: { allowInstall: false } },
  })};\n`;
}

/** After a forced GC in the process: MB resident and MB of V8 heap in use. */
function memoryAfterGc(child) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('Node-RED did not report its memory')), 10_000);
    child.once('message', (usage) => {
      clearTimeout(timer);
      resolve({
        rss: usage.rss / 1048576,
        heap: usage.heapUsed / 1048576,
        private: usage.privateDirty === null ? null : usage.privateDirty / 1048576,
      });
    });
    child.send('memory');
  });
}

/** One start of Node-RED: ms to "Started flows", MB resident and heap once settled, and whether the package's nodes loaded. */
async function startRed(dir) {
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'settings.js'), settings(port));
  const began = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--expose-gc', RED_JS, '--userDir', dir, '--settings', path.join(dir, 'settings.js')], {
    cwd: dir,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let log = '';
  try {
    const started = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Node-RED did not start within 120 s:\n${log}`)), 120_000);
      const onData = (d) => {
        log += d;
        if (/Started flows/.test(log)) {
          clearTimeout(timer);
          resolve({ wall: Number(process.hrtime.bigint() - began) / 1e6, cpu: cpuMsOrNull(child.pid) });
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`Node-RED exited (${code}):\n${log}`));
      });
    });
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const rss = rssMb(child.pid);
    const afterGc = await memoryAfterGc(child);
    const sets = await (await fetch(`http://127.0.0.1:${port}/nodes`, { headers: { Accept: 'application/json' } })).json();
    return {
      startMs: started.wall,
      cpuMs: started.cpu,
      rss,
      gcRss: afterGc.rss,
      heap: afterGc.heap,
      privateMb: afterGc.private,
      loaded: sets.some((set) => set.module === PKG.name && set.enabled !== false && !set.err),
      log,
    };
  } finally {
    child.removeAllListeners('exit');
    await new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  }
}

/** A start that fails (a port taken between probing and binding on a busy machine) is tried again, twice at most. */
async function startWithRetry(dir) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRed(dir);
    } catch (err) {
      if (attempt === 3) throw err;
      console.error(`a Node-RED start failed, trying again: ${String(err.message).split('\n')[0]}`);
    }
  }
}

/**
 * One `node` process requiring `target` (or nothing): ms the require took, MB resident
 * added by it. Node's http and https are loaded first on both sides: Node-RED has them.
 */
function requireCost(target) {
  const code = `require('http'); require('https');
    const r0 = process.memoryUsage().rss; const t0 = process.hrtime.bigint();
    ${target ? `require(${JSON.stringify(target)});` : ''}
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    console.log(JSON.stringify({ ms, rss: (process.memoryUsage().rss - r0) / 1048576 }));`;
  const out = execFileSync(process.execPath, ['-e', code], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  return JSON.parse(out.trim().split('\n').pop());
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f1 = (x) => x.toFixed(1);

async function main() {
  if (!fs.existsSync(MAIN)) throw new Error(`${MAIN} is missing: npm run build first`);
  const { startSimulator } = require(path.join(ROOT, 'dist', 'sim', 'server.js'));
  const sim = await startSimulator({ host: '127.0.0.1' });
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'easy-footprint-'));
  try {
    const sides = ['plain', 'installed', 'deployed', ...(BASELINE ? ['baseline'] : [])];
    const dirs = Object.fromEntries(sides.map((side) => [side, userDir(base, side, sim.url)]));
    const red = Object.fromEntries(sides.map((side) => [side, []]));
    const req = { without: [], with: [] };
    for (let i = 0; i < RUNS; i++) {
      // rotated, so a load that comes and goes on the machine falls on every side
      for (let k = 0; k < sides.length; k++) {
        const side = sides[(i + k) % sides.length];
        const run = await startWithRetry(dirs[side]);
        if (side !== 'plain' && !run.loaded) throw new Error(`the package's nodes were not loaded:\n${run.log}`);
        if ((side === 'deployed' || side === 'baseline') && !/Started flows/.test(run.log))
          throw new Error(`the flows did not start:\n${run.log}`);
        red[side].push(run);
      }
      req.without.push(requireCost(null));
      req.with.push(requireCost(MAIN));
    }
    if (!sim.requests.some((r) => r.endpoint === 'tariffs' && r.status === 200))
      throw new Error('the deployed flows asked the simulator nothing');
    const m = (runs, key) => median(runs.map((r) => r[key]));
    if (BASELINE) console.log(`baseline: ${BASELINE}`);
    const added = (side, key, unit) => `${side} ${f1(m(red[side], key))} ${unit} (+${f1(m(red[side], key) - m(red.plain, key))})`;
    console.log(
      `footprint: Node ${process.version}, Node-RED ${require(path.join(path.dirname(RED_JS), 'package.json')).version}, ${RUNS} starts each, medians; added = vs plain Node-RED`,
    );
    const row = (label, key, unit, note = '') =>
      console.log(
        `${label.padEnd(22)} plain ${f1(m(red.plain, key))} ${unit}   ${added('installed', key, unit)}   ${added('deployed', key, unit)}${BASELINE ? `   ${added('baseline', key, unit)}` : ''}${note}`,
      );
    row('node-red start', 'startMs', 'ms', ' (wall clock: the load shows)');
    if (red.plain[0].cpuMs !== null) row('node-red start CPU', 'cpuMs', 'ms', ' (CPU time to "Started flows")');
    row('node-red RSS', 'rss', 'MB', ` (${SETTLE_MS / 1000} s after start)`);
    row('node-red RSS after GC', 'gcRss', 'MB');
    if (red.plain[0].privateMb !== null)
      row('node-red private after GC', 'privateMb', 'MB', ' (Private_Dirty: memory no other process shares)');
    row('node-red heap after GC', 'heap', 'MB', ' (V8 heap in use)');
    console.log(
      `require(main)          ${f1(m(req.with, 'ms') - m(req.without, 'ms'))} ms   RSS added ${f1(m(req.with, 'rss') - m(req.without, 'rss'))} MB`,
    );
  } finally {
    await sim.close();
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
