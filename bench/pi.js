'use strict';
// npm run bench:pi: easy-cost in stream mode as it lives on a gateway-side Raspberry Pi for
// months. A REAL Node-RED process (this repo's devDependency) with Node-RED's own
// `localfilesystem` context store at its default flush interval (30 s), fed one cumulative
// reading per meter every 10 s of REAL time, for 1, 16 and 128 meters, and once without
// easy-cost (plain Node-RED running the same reading generator: the baseline). Per run:
//   - bytes written per minute: /proc/<pid>/io write_bytes of the Node-RED process over the
//     measured span (everything the process wrote to storage, not just our file), and the
//     size of the cost node's context file at the end;
//   - worst event-loop block: the maximum of perf_hooks.monitorEventLoopDelay (10 ms
//     resolution) inside the Node-RED process over the measured span;
//   - CPU per reading, two ways: user + system time of the process (/proc/<pid>/stat) over
//     the span, less the baseline's over the same span, divided by the readings sent (two
//     processes: on this shared machine it varies by +-0.4 ms from run to run); and, after
//     the span (the code warmed up), in the same process: PI_BENCH_PAIRS (3) pairs of
//     PI_BENCH_WINDOW (30) s windows, the generator's readings going to a dead end, then to
//     easy-cost; the CPU per tick of the second less that of the first, per reading;
//   - restart RSS: the process's peak (VmHWM) and resident (VmRSS) memory once it has
//     started on a context file that holds a steady-state state, against the baseline's.
// Honest about time: only the state's size is reached in compressed time. Before the
// process starts, one meter's readings of the last 10 s-cadence hours (PI_BENCH_FILL
// readings, default 3,100: more than the 3,000 a meter ever held) are counted in this
// process with the package's own CostStream and a memory store; what it would store is
// copied to every meter and written as the node's context file, in the store's own format
// (pretty-printed JSON under the key "totals"). Everything measured then runs in real time
// at the real cadence: writes, flushes, saves and blocks are those a Pi would see per
// minute (a Pi 4 is ~3-5x slower in CPU; bytes written do not depend on the CPU).
// PI_BENCH_NODE=peak (npm run bench:pi:peak) measures easy-peak the same way instead: 15-minute
// windows, the month's peaks and the guard per meter and for the site, its steady state the
// state PeakStream stores after PI_BENCH_FILL readings per meter (every meter peaking).
// PI_BENCH_FILL_WINDOW=<readings per meter> (e.g. 3000, the window's limit): the late-reading
// window full, as after 8.3 h at a 10 s cadence. easy-cost then starts from zero (no context
// file) and is fed that many readings per meter, 10 s apart and ending just before now,
// through its input as fast as it counts them; the measured span starts once it has counted
// them all. Per run also: heap (V8's heap and the array buffers outside it, after a full
// collection; +MB over plain Node-RED) and the main thread's CPU time of one full garbage
// collection forced at the span's end (the process runs with --expose-gc).
// Spawned processes and the simulator on loopback only; every temporary directory removed.

const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { cpuMs, freePort } = require('./process-stats');

const ROOT = path.join(__dirname, '..');
const PKG = require(path.join(ROOT, 'package.json'));
const RED_JS = require.resolve('node-red/red.js', { paths: [ROOT] });
const DIST = path.join(ROOT, 'dist');
const { startSimulator } = require(path.join(DIST, 'sim', 'server.js'));
const { DEMO_TARIFFS } = require(path.join(DIST, 'sim', 'demo-data.js'));
const { parseTariffs } = require(path.join(DIST, 'nodes', 'lib', 'index.js'));
const { CostStream } = require(path.join(DIST, 'nodes', 'lib', 'runtime', 'cost', 'cost-stream.js'));
const { PeakStream } = require(path.join(DIST, 'nodes', 'lib', 'runtime', 'peak', 'peak-stream.js'));
const { peakSettings } = require(path.join(DIST, 'nodes', 'lib', 'runtime', 'peak', 'peak-settings.js'));

/** Which node is measured: easy-cost's stream mode (default) or easy-peak. */
const NODE = process.env.PI_BENCH_NODE === 'peak' ? 'peak' : 'cost';
const PEAK_CONFIG = { minutes: '15', limit: 'peak', floorKw: '2.5' };

const SECONDS = Math.max(10, Number(process.env.PI_BENCH_SECONDS) || 120);
const METERS = (process.env.PI_BENCH_METERS || '1,16,128').split(',').map(Number);
const FILL = Math.max(2, Number(process.env.PI_BENCH_FILL) || (NODE === 'peak' ? 360 : 3100));
const PAIRS = Math.max(1, Math.floor(Number(process.env.PI_BENCH_PAIRS)) || 3);
const WINDOW_S = Math.max(10, Number(process.env.PI_BENCH_WINDOW) || 30);
const FILL_WINDOW = NODE === 'peak' ? 0 : Math.max(0, Math.floor(Number(process.env.PI_BENCH_FILL_WINDOW)) || 0);
const CADENCE_MS = 10_000;
const TARIFF_ID = 'DEMO-WORKDAY';
const TIMEZONE = 'Europe/London';
const TAB = 'pibench';
const COST = NODE === 'peak' ? 'pibenchpeak' : 'pibenchcost';
/** The key the node keeps its state under in its context. */
const STATE_KEY = NODE === 'peak' ? 'peaks' : 'totals';
const TOKEN = 'demo-token';
/** The reading generator's meters read 2 kW each: a cumulative kWh value at any instant, no state. */
const KWH_AT = (meter, ts) => 1000 + meter + (ts / 3_600_000) * 2;
const procStatus = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const writeBytes = (pid) => Number(/write_bytes:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))[1]);
const meterTopic = (i) => `m${String(i).padStart(3, '0')}`;

/** What easy-peak stores for `meters` meters after FILL readings each, counted by the package's own PeakStream. */
async function peakSteadyState(meters) {
  let saved;
  const stream = new PeakStream({
    timezone: TIMEZONE,
    settings: peakSettings(PEAK_CONFIG),
    store: { load: async () => undefined, save: async (v) => void (saved = v) },
    warn: (w) => console.warn(w),
    onGuard: () => undefined,
  });
  await stream.restore();
  const last = Date.now() - CADENCE_MS;
  for (let k = FILL - 1; k >= 0; k--) {
    const ts = last - k * CADENCE_MS;
    for (let i = 0; i < meters; i++) await stream.handle({ topic: meterTopic(i), gateway: 'G', payload: KWH_AT(i, ts), ts }, ts);
  }
  await stream.close();
  return saved;
}

/** What the node would store for `meters` meters at steady state, counted by the package's own CostStream. */
async function steadyState(meters, tariff) {
  if (NODE === 'peak') return peakSteadyState(meters);
  let saved;
  /** The package's own CostStream on a memory store that starts from `saved`. */
  const restoredStream = async () => {
    const stream = new CostStream({
      timezone: TIMEZONE,
      tariffId: TARIFF_ID,
      store: { load: async () => saved, save: async (v) => void (saved = v) },
      warn: (w) => console.warn(w),
    });
    await stream.restore();
    return stream;
  };
  const stream = await restoredStream();
  const last = Date.now() - CADENCE_MS;
  for (let k = FILL - 1; k >= 0; k--) {
    const ts = last - k * CADENCE_MS;
    await stream.handle({ topic: meterTopic(0), gateway: 'G', payload: KWH_AT(0, ts), ts }, tariff, ts);
  }
  if (typeof stream.flush === 'function') await stream.flush();
  // every meter holds what meter 0 holds (its own name); the state's size does not depend on the values.
  // Version 2 (0.1.0) stores each meter as an object, version 3 as one line of JSON text.
  const one = saved.meters[0];
  saved.meters = Array.from({ length: meters }, (_, i) => {
    if (typeof one !== 'string') return { ...one, gateway: 'G', topic: meterTopic(i) };
    const line = JSON.parse(one);
    line[0] = 'G';
    line[1] = meterTopic(i);
    return JSON.stringify(line);
  });
  if (saved.version === 3) {
    // what version 3 stores per meter depends on how many meters share the stored readings: count it as the node would
    const stream = await restoredStream();
    await stream.handle({ topic: meterTopic(0), gateway: 'G', payload: KWH_AT(0, last + 1), ts: last + 1 }, tariff, last + 1);
    await stream.flush();
  }
  return saved;
}

function settingsJs(port) {
  return `const { monitorEventLoopDelay } = require('perf_hooks');
const fs = require('fs');
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
// The main thread's own CPU time (ns, /proc/self/task/<pid>/schedstat) between two turns of a
// 10 ms timer: the longest stretch the loop was busy. Unlike the loop's delay, it leaves out
// the time other processes of a shared machine had the core.
const schedstat = '/proc/self/task/' + process.pid + '/schedstat';
const ran = () => Number(fs.readFileSync(schedstat, 'utf8').split(' ')[0]) / 1e6;
const busy = { last: ran(), max: 0 };
setInterval(() => {
  const now = ran();
  busy.max = Math.max(busy.max, now - busy.last);
  busy.last = now;
}, 10).unref();
/** V8's heap and the array buffers outside it after a full collection (MB), and how long that collection took (ms of the main thread's CPU). */
const heap = () => {
  const t0 = ran();
  global.gc();
  const ms = ran() - t0;
  const m = process.memoryUsage();
  return { mb: (m.heapUsed + m.arrayBuffers) / 1048576, gcMs: ms };
};
module.exports = {
  uiHost: '127.0.0.1',
  uiPort: ${port},
  flowFile: 'flows.json',
  credentialSecret: false,
  httpNodeRoot: '/api',
  contextStorage: { default: { module: 'localfilesystem' } },
  functionGlobalContext: {
    benchStats: { sent: 0, ticks: 0, paused: ${FILL_WINDOW > 0}, loop, busy, status: null, errors: 0, lastError: null, heap, counted: 0, fill: null },
  },
  telemetry: { enabled: false, updateNotification: false },
  diagnostics: { enabled: false },
  // debug: Node-RED says each time its localfilesystem store writes a scope's file
  logging: { console: { level: 'debug', metrics: false, audit: false } },
  editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
  externalModules: { autoInstall: false, palette: { allowInstall: false } },
};
`;
}

/** The node measured, as the flow holds it. */
function measuredNode() {
  if (NODE === 'peak') return { id: COST, z: TAB, type: 'easy-peak', account: 'acc', ...PEAK_CONFIG, wires: [[], [], []] };
  // output 1 counted: the fill waits for what easy-cost has counted
  return { id: COST, z: TAB, type: 'easy-cost', account: 'acc', tariff: TARIFF_ID, mode: 'stream', wires: [['cnt'], []] };
}

function flows(simUrl, meters, withCost) {
  // output 1 is easy-cost, output 2 a dead end (paused): the same work for the generator either way
  const generate = `const s = global.get('benchStats');
const ts = Date.now();
const to = s.paused ? 1 : 0;
for (let i = 0; i < ${meters}; i++) {
  const out = [null, null];
  out[to] = { topic: 'm' + String(i).padStart(3, '0'), gateway: 'G', payload: 1000 + i + (ts / 3600000) * 2, ts };
  node.send(out);
}
s.ticks += 1;
if (!s.paused) s.sent += ${meters};
return null;`;
  const stats = `const s = global.get('benchStats');
if (msg.req.query.pause) s.paused = msg.req.query.pause === '1';
msg.payload = { sent: s.sent, ticks: s.ticks, maxMs: s.loop.max / 1e6, busyMs: s.busy.max, status: s.status, errors: s.errors, lastError: s.lastError, counted: s.counted, fill: s.fill };
if (msg.req.query.heap) msg.payload.heap = s.heap();
if (msg.req.query.reset) { s.loop.reset(); s.busy.max = 0; s.sent = 0; s.errors = 0; }
return msg;`;
  // the window filled: \`n\` readings per meter, 10 s apart, ending 10 s before now, fed as fast as easy-cost counts them
  const fill = `const s = global.get('benchStats');
const n = Number(msg.req.query.n);
const end = Date.now() - ${CADENCE_MS};
s.fill = { sent: 0, total: n * ${meters}, done: false };
let k = 0;
const step = () => {
  // at most a few thousand readings ahead of what easy-cost has counted
  while (k < n && s.fill.sent - s.counted < 4096) {
    const ts = end - (n - 1 - k) * ${CADENCE_MS};
    for (let i = 0; i < ${meters}; i++) {
      node.send({ topic: 'm' + String(i).padStart(3, '0'), gateway: 'G', payload: 1000 + i + (ts / 3600000) * 2, ts });
    }
    s.fill.sent += ${meters};
    k++;
  }
  if (k < n) setTimeout(step, 1);
  else s.fill.done = true;
};
s.counted = 0;
step();
msg.payload = { filling: n };
return [null, msg];`;
  return [
    { id: TAB, type: 'tab', label: 'pi bench' },
    { id: 'acc', type: 'easy-account', name: 'bench', baseUrl: simUrl, timezone: TIMEZONE },
    { id: 'tick', z: TAB, type: 'inject', repeat: String(CADENCE_MS / 1000), once: true, onceDelay: 0.1, wires: [['gen']] },
    { id: 'gen', z: TAB, type: 'function', func: generate, outputs: 2, wires: [withCost ? [COST] : [], []] },
    ...(withCost ? [measuredNode()] : []),
    { id: 'cnt', z: TAB, type: 'function', func: "global.get('benchStats').counted += 1; return null;", outputs: 1, wires: [[]] },
    { id: 'fin', z: TAB, type: 'http in', url: '/fill', method: 'get', wires: [['ffn']] },
    { id: 'ffn', z: TAB, type: 'function', func: fill, outputs: 2, wires: [withCost ? [COST] : [], ['fout']] },
    { id: 'fout', z: TAB, type: 'http response', wires: [] },
    // what the cost node shows, and how many messages it handed to Catch
    { id: 'st', z: TAB, type: 'status', scope: null, wires: [['stf']] },
    {
      id: 'stf',
      z: TAB,
      type: 'function',
      func: "global.get('benchStats').status = msg.status.text; return null;",
      outputs: 1,
      wires: [[]],
    },
    { id: 'ca', z: TAB, type: 'catch', scope: null, uncaught: false, wires: [['caf']] },
    {
      id: 'caf',
      z: TAB,
      type: 'function',
      func: "const s = global.get('benchStats'); s.errors += 1; s.lastError = msg.error.message; return null;",
      outputs: 1,
      wires: [[]],
    },
    { id: 'sin', z: TAB, type: 'http in', url: '/stats', method: 'get', wires: [['sfn']] },
    { id: 'sfn', z: TAB, type: 'function', func: stats, outputs: 1, wires: [['sout']] },
    { id: 'sout', z: TAB, type: 'http response', wires: [] },
  ];
}

/** A Node-RED user directory: the flows (with easy-cost unless `withCost` is false) and, if `stored`, the node's context file. */
function userDir(base, name, simUrl, meters, stored, withCost = stored !== null) {
  const dir = fs.mkdtempSync(path.join(base, `${name}-`));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'node-red-project', version: '0.0.1', private: true }));
  const link = path.join(dir, 'node_modules', ...PKG.name.split('/'));
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(ROOT, link, 'junction');
  fs.writeFileSync(path.join(dir, 'flows.json'), JSON.stringify(flows(simUrl, meters, withCost)));
  fs.writeFileSync(path.join(dir, 'flows_cred.json'), JSON.stringify({ acc: { token: TOKEN } }));
  if (stored !== null) {
    // where and how Node-RED's localfilesystem store keeps a node's context
    const file = path.join(dir, 'context', TAB, `${COST}.json`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ [STATE_KEY]: stored }, null, 4));
  }
  return dir;
}

/**
 * CPU per reading in one warmed-up process: windows of readings sent to a dead end, then to
 * easy-cost; (CPU per tick to easy-cost - CPU per tick to the dead end) / readings per tick.
 */
async function pairedCpu(pid, stats) {
  const sum = { off: { cpu: 0, ticks: 0 }, on: { cpu: 0, ticks: 0, sent: 0 } };
  for (let pair = 0; pair < PAIRS; pair++) {
    for (const state of ['off', 'on']) {
      const before = await stats(false, `pause=${state === 'off' ? 1 : 0}`);
      const c0 = cpuMs(pid);
      await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
      const after = await stats(false);
      sum[state].cpu += cpuMs(pid) - c0;
      sum[state].ticks += after.ticks - before.ticks;
      if (state === 'on') sum.on.sent += after.sent - before.sent;
    }
  }
  const perTick = (w) => w.cpu / Math.max(1, w.ticks);
  const readingsPerTick = sum.on.sent / Math.max(1, sum.on.ticks);
  return { sent: sum.on.sent, msPerReading: (perTick(sum.on) - perTick(sum.off)) / Math.max(1, readingsPerTick) };
}

async function run(label, dir, withCost) {
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'settings.js'), settingsJs(port));
  const child = spawn(process.execPath, ['--expose-gc', RED_JS, '--userDir', dir, '--settings', path.join(dir, 'settings.js')], {
    cwd: dir,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const stats = async (reset, query = '') => (await fetch(`http://127.0.0.1:${port}/api/stats?${reset ? 'reset=1&' : ''}${query}`)).json();
  try {
    const began = Date.now();
    while (!/Started flows/.test(log)) {
      if (child.exitCode !== null) throw new Error(`Node-RED exited:\n${log}`);
      if (Date.now() - began > 300_000) throw new Error(`Node-RED did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // the first readings (0.1 s after the start) are counted on the restored totals; then memory
    await new Promise((r) => setTimeout(r, 3000));
    const restart = { peakMb: procStatus(child.pid, 'VmHWM'), rssMb: procStatus(child.pid, 'VmRSS') };
    let fillS = null;
    if (withCost && FILL_WINDOW > 0) {
      const t0 = Date.now();
      await stats(false, 'pause=1');
      await fetch(`http://127.0.0.1:${port}/api/fill?n=${FILL_WINDOW}`);
      for (;;) {
        const f = await stats(false);
        if (f.errors) throw new Error(`easy-cost refused a reading of the fill: ${f.lastError}`);
        if (f.fill && f.fill.done && f.counted >= f.fill.total) break;
        if (child.exitCode !== null) throw new Error(`Node-RED exited:\n${log}`);
        await new Promise((r) => setTimeout(r, 500));
      }
      await stats(false, 'pause=0');
      fillS = (Date.now() - t0) / 1000;
    }
    const startup = await stats(true);
    const logFrom = log.length;
    const w0 = writeBytes(child.pid);
    const c0 = cpuMs(child.pid);
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const s = await stats(false);
    const { heap } = await stats(false, 'heap=1');
    const flushes = (log.slice(logFrom).match(/Flushing localfilesystem context scope \S+/g) || []).map((l) => l.split(' ').pop());
    const result = {
      label,
      writtenPerMin: ((writeBytes(child.pid) - w0) * 60) / SECONDS,
      cpuMs: cpuMs(child.pid) - c0,
      sent: s.sent,
      worstBlockMs: s.maxMs,
      busyMs: s.busyMs,
      startBusyMs: startup.busyMs,
      restart,
      endPeakMb: procStatus(child.pid, 'VmHWM'),
      heap,
      fillS,
      contextFile: null,
      status: s.status,
      flushes,
      errors: s.errors,
      lastError: s.lastError,
      // what the bench's own settings make Node-RED say is left out
      warnings: (log.match(/\[(warn|error)\].*/g) || []).filter((w) => !/Projects disabled|unencrypted credentials/.test(w)).slice(0, 3),
    };
    const file = path.join(dir, 'context', TAB, `${COST}.json`);
    if (fs.existsSync(file)) result.contextFile = fs.statSync(file).size;
    if (withCost) result.paired = await pairedCpu(child.pid, stats);
    return result;
  } finally {
    await new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGKILL');
    });
  }
}

const mb = (bytes) => (bytes / 1e6).toFixed(bytes < 1e5 ? 4 : 2);

async function main() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'easy-pi-bench-'));
  const sim = await startSimulator({ port: 0 });
  const { tariffs } = parseTariffs(JSON.parse(JSON.stringify(DEMO_TARIFFS)));
  const tariff = tariffs.find((t) => t.id === TARIFF_ID);
  try {
    console.log(
      `bench:pi — ${NODE === 'peak' ? 'easy-peak, 15 min windows' : `easy-cost stream, ${TARIFF_ID}`}, one reading per meter every ${CADENCE_MS / 1000} s of real time, ` +
        `${SECONDS} s measured per run, localfilesystem store (flush every 30 s), ` +
        (FILL_WINDOW ? `window filled with ${FILL_WINDOW} readings per meter` : `steady state from ${FILL} readings per meter`),
    );
    const baseline = await run(
      `plain Node-RED (same generator, no easy-${NODE})`,
      userDir(base, 'plain', sim.url, Math.max(...METERS), null),
      false,
    );
    const rows = [baseline];
    for (const meters of METERS) {
      const label = `${meters} meter${meters === 1 ? '' : 's'}${FILL_WINDOW ? `, window ${FILL_WINDOW}` : ''}`;
      // a filled window starts from zero: the fill's readings end where stored ones would
      const stored = FILL_WINDOW ? null : await steadyState(meters, tariff);
      rows.push(await run(label, userDir(base, `m${meters}`, sim.url, meters, stored, true), true));
    }
    const cols = [
      ['MB written/min', (r) => mb(r.writtenPerMin)],
      ['context file MB', (r) => (r.contextFile === null ? '-' : mb(r.contextFile))],
      ['block ms: CPU', (r) => r.busyMs.toFixed(0)],
      ['wall', (r) => r.worstBlockMs.toFixed(0)],
      // CPU time comes in 10 ms ticks: too few readings give no figure worth printing
      ['CPU ms/reading', (r) => (r === baseline ? '-' : r.sent < 100 ? `(${r.sent} read.)` : perReading(r).toFixed(3))],
      ['same process', (r) => (r === baseline ? '-' : r.paired.sent < 100 ? `(${r.paired.sent} read.)` : r.paired.msPerReading.toFixed(3))],
      ['start block ms', (r) => r.startBusyMs.toFixed(0)],
      ['heap MB', (r) => over(r, r.heap.mb, baseline.heap.mb)],
      ['full GC ms', (r) => r.heap.gcMs.toFixed(0)],
      ['restart peak MB', (r) => over(r, r.restart.peakMb, baseline.restart.peakMb)],
      ['restart RSS MB', (r) => over(r, r.restart.rssMb, baseline.restart.rssMb)],
    ];
    const perReading = (r) => (r.cpuMs - baseline.cpuMs) / Math.max(1, r.sent);
    const over = (r, x, b) => (r === baseline ? x.toFixed(0) : `${x.toFixed(0)} (+${(x - b).toFixed(0)})`);
    const width = (title) => Math.max(title.length + 2, 12);
    console.log('run'.padEnd(48) + cols.map(([title]) => title.padStart(width(title))).join(''));
    for (const r of rows) {
      console.log(r.label.padEnd(48) + cols.map(([title, value]) => value(r).padStart(width(title))).join(''));
      if (r.status) console.log(`    status: ${r.status}`);
      if (r.fillS !== null)
        console.log(`    window filled with ${FILL_WINDOW} readings per meter in ${r.fillS.toFixed(0)} s before the span`);
      if (r.flushes.length) console.log(`    context files written: ${r.flushes.length} (${[...new Set(r.flushes)].join(', ')})`);
      if (r.errors) console.log(`    ${r.errors} messages to Catch, the last: ${r.lastError}`);
      for (const w of r.warnings) console.log(`    ${w}`);
    }
    // a run whose cost node handed anything to Catch, or showed no totals, measured something else
    const counting = NODE === 'peak' ? /^(restore|shed) · projected / : /^today /;
    const broken = rows.filter((r) => r !== baseline && (r.errors > 0 || !counting.test(r.status ?? '')));
    if (broken.length) {
      console.error(`bench:pi: ${broken.map((r) => r.label).join(', ')}: the easy-${NODE} node did not count (see above)`);
      process.exitCode = 1;
    }
    console.log(
      `block ms: the longest the event loop was busy, as the main thread's CPU time between two turns of a 10 ms timer ` +
        `(CPU), and as the loop's delay (wall: includes time this shared machine gave the core to other processes); ` +
        `start block: the same from the start (loading the context file) to the first measured second.\n` +
        `CPU per reading: the run's CPU less the baseline's over the same ${SECONDS} s, over the readings sent; same process: ` +
        `after that span, ${PAIRS} pairs of ${WINDOW_S} s windows, the readings to a dead end then to easy-${NODE}, the difference per reading. ` +
        `restart: 3 s after "Started flows" on the steady-state context file; +MB over plain Node-RED. ` +
        `heap: V8's heap and array buffers after a full collection at the span's end; full GC: that collection's main-thread CPU time.`,
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
