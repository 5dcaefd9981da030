'use strict';
// npm run bench:idle: the CPU a REAL Node-RED process uses while nothing happens, with the
// package's nodes deployed and idle (easy-tariff, easy-plan, easy-cost in stream mode and
// easy-peak waiting for readings: deadlines armed, so the clock-step check looks every
// LOOK_EVERY_MS), against two baselines measured in the same rounds: plain Node-RED (a flow
// without them), and the package with the check never looking (its heartbeat set to an
// hour: what the package costs idle without the check). Besides this build, copies of it
// whose heartbeat looks every IDLE_BENCH_LOOKS ms (default 1000,2000,5000: dist/ copied, the
// one constant changed) show what the look interval costs. An older build of the package
// can be added with IDLE_BENCH_BEFORE=<its root> (a checkout with dist/ built). CPU is the
// on-CPU time of every thread of the process (/proc/<pid>/task/*/schedstat, ns), after a
// 45 s settle, in IDLE_BENCH_WINDOWS (8) windows of IDLE_BENCH_SECONDS (15) each, the median
// window taken: some 100-300 ms of CPU come now and then with or without the package (30-45 s
// after a start, then about once a minute: Node-RED's and V8's own), and would swamp a mean
// of the few ms the package adds. Each round starts every variant at once (one
// process each, idle: they hardly compete for the cores), IDLE_BENCH_ROUNDS (3) rounds;
// medians, ratios to both baselines, and the CPU each look adds over the never-looking copy
// (per wake). One look itself (three clock reads) is timed in this process: what a cheaper
// look could save. The simulator answers on loopback; temporary dirs removed.

const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { freePort } = require('./process-stats');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const RED_JS = require.resolve('node-red/red.js', { paths: [ROOT] });
const { startSimulator } = require(path.join(DIST, 'sim', 'server.js'));
const SECONDS = Number(process.env.IDLE_BENCH_SECONDS || 15);
const WINDOWS = Number(process.env.IDLE_BENCH_WINDOWS || 8);
const ROUNDS = Number(process.env.IDLE_BENCH_ROUNDS || 3);
const BEFORE = process.env.IDLE_BENCH_BEFORE || null;
const LOOKS = (process.env.IDLE_BENCH_LOOKS || '1000,2000,5000').split(',').map(Number);
/** The never-looking baseline: the heartbeat's first wake comes an hour after a deadline is armed. */
const NEVER_MS = 3_600_000;
const { LOOK_EVERY_MS, ClockSteps } = require(path.join(DIST, 'nodes', 'lib', 'engine', 'time', 'clock-steps.js'));
const TAB = 'idle';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** On-CPU time of every thread of the process so far (ms). */
function threadsCpuMs(pid) {
  let ns = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1e6;
}

function flows(simUrl, withPackage) {
  const tab = { id: TAB, type: 'tab', label: 'idle' };
  if (!withPackage) return [tab, { id: 'c', z: TAB, type: 'comment', name: 'plain Node-RED' }];
  return [
    tab,
    { id: 'acc', type: 'easy-account', name: 'idle', baseUrl: simUrl, timezone: 'Europe/London' },
    { id: 'tariff', z: TAB, type: 'easy-tariff', account: 'acc', tariff: 'DEMO-NIGHT', refresh: 60, wires: [[]] },
    {
      id: 'plan',
      z: TAB,
      type: 'easy-plan',
      account: 'acc',
      tariff: 'DEMO-NIGHT',
      durationHours: 2,
      durationMinutes: 0,
      mode: 'daily',
      from: '00:00',
      until: '23:59',
      contiguous: false,
      maxPrice: '',
      wires: [[], []],
    },
    { id: 'cost', z: TAB, type: 'easy-cost', account: 'acc', tariff: 'DEMO-FLAT', mode: 'stream', wires: [[], []] },
    {
      id: 'peak',
      z: TAB,
      type: 'easy-peak',
      account: 'acc',
      minutes: '15',
      limit: 'fixed',
      limitKw: '10',
      marginPercent: '0',
      hysteresisPercent: '10',
      wires: [[], [], []],
    },
  ];
}

function userDir(name, packageRoot, simUrl) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `easy-idle-${name}-`));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'node-red-project', version: '0.0.1', private: true }));
  if (packageRoot) {
    const link = path.join(dir, 'node_modules', '@tariffkit', 'node-red-easy');
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(packageRoot, link, 'junction');
  }
  fs.writeFileSync(path.join(dir, 'flows.json'), JSON.stringify(flows(simUrl, packageRoot !== null)));
  fs.writeFileSync(path.join(dir, 'flows_cred.json'), JSON.stringify({ acc: { token: 'demo-token' } }));
  return dir;
}

async function measure(name, packageRoot, simUrl) {
  const dir = userDir(name, packageRoot, simUrl);
  const port = await freePort();
  fs.writeFileSync(
    path.join(dir, 'settings.js'),
    `module.exports = { uiHost: '127.0.0.1', uiPort: ${port}, flowFile: 'flows.json', credentialSecret: false,
  telemetry: { enabled: false, updateNotification: false }, diagnostics: { enabled: false },
  logging: { console: { level: 'info', metrics: false, audit: false } }, editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
  externalModules: { autoInstall: false, palette: { allowInstall: false } } };\n`,
  );
  const child = spawn(process.execPath, [RED_JS, '--userDir', dir, '--settings', path.join(dir, 'settings.js')], {
    cwd: dir,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  try {
    const began = Date.now();
    for (;;) {
      if (child.exitCode !== null) throw new Error(`Node-RED exited:\n${log}`);
      if (Date.now() - began > 120_000) throw new Error(`Node-RED did not start:\n${log}`);
      // the log, not the editor's /flows: asked before the flows are loaded, that logs an error
      if (/Started flows/.test(log)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 45_000)); // flows started, first prices and plans made, the one-off burst over
    const windows = [];
    for (let w = 0; w < WINDOWS; w++) {
      const c0 = threadsCpuMs(child.pid);
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      windows.push(((threadsCpuMs(child.pid) - c0) / SECONDS) * 60); // ms of CPU per minute
    }
    if (/\[error\]/.test(log)) throw new Error(`Node-RED logged an error:\n${log}`);
    return median(windows);
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A copy of this build whose clock-step heartbeat looks every `lookMs` (dist/nodes copied, the rest linked). */
function buildLooking(lookMs) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `easy-idle-look-${lookMs}-`));
  fs.cpSync(path.join(DIST, 'nodes'), path.join(root, 'dist', 'nodes'), { recursive: true });
  for (const entry of ['package.json', 'node_modules', 'resources', 'icons', 'examples']) {
    if (fs.existsSync(path.join(ROOT, entry))) fs.symlinkSync(path.join(ROOT, entry), path.join(root, entry), 'junction');
  }
  const file = path.join(root, 'dist', 'nodes', 'lib', 'engine', 'time', 'clock-steps.js');
  const text = fs.readFileSync(file, 'utf8');
  const changed = text.replace(/exports\.LOOK_EVERY_MS = [\d_]+;/, `exports.LOOK_EVERY_MS = ${lookMs};`);
  if (changed === text) throw new Error(`no LOOK_EVERY_MS to change in ${file}`);
  fs.writeFileSync(file, changed);
  return root;
}

/** The median time of one look (µs), no step: the clocks compared as the heartbeat does. */
function lookMicros() {
  const steps = new ClockSteps();
  const times = [];
  for (let round = 0; round < 7; round++) {
    const began = process.hrtime.bigint();
    for (let i = 0; i < 200_000; i++) steps.look();
    times.push(Number(process.hrtime.bigint() - began) / 1e3 / 200_000);
  }
  return median(times);
}

async function main() {
  const looks = LOOKS.filter((ms) => ms !== LOOK_EVERY_MS);
  const copies = new Map([[NEVER_MS, buildLooking(NEVER_MS)], ...looks.map((ms) => [ms, buildLooking(ms)])]);
  const never = 'package, never looking';
  const variants = [
    ['plain Node-RED', null, null],
    [never, copies.get(NEVER_MS), null],
    [`package (this build, every ${LOOK_EVERY_MS / 1000} s)`, ROOT, LOOK_EVERY_MS],
    ...looks.map((ms) => [`package, looking every ${ms / 1000} s`, copies.get(ms), ms]),
    ...(BEFORE ? [['package (IDLE_BENCH_BEFORE)', path.resolve(BEFORE), null]] : []),
  ];
  const runs = new Map(variants.map(([name]) => [name, []]));
  const sim = await startSimulator({ port: 0 });
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      // every process ended (each measure kills its own) before a failure is thrown
      const settled = await Promise.allSettled(
        variants.map(([name, root]) => measure(name.replace(/\W+/g, '-').slice(0, 40), root, sim.url)),
      );
      const failed = settled.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      const cpu = settled.map((r) => r.value);
      variants.forEach(([name], i) => runs.get(name).push(cpu[i]));
      console.log(`round ${round}: ${variants.map(([name], i) => `${name} ${cpu[i].toFixed(1)}`).join(', ')} (ms CPU per minute)`);
    }
  } finally {
    await sim.close();
    for (const root of copies.values()) fs.rmSync(root, { recursive: true, force: true });
  }
  const plain = median(runs.get('plain Node-RED'));
  const base = median(runs.get(never));
  console.log(
    `\nidle CPU, median of ${ROUNDS} rounds, each the median of ${WINDOWS} windows of ${SECONDS} s (ms of CPU per minute; ratios to plain Node-RED and to the never-looking package):`,
  );
  for (const [name, , lookMs] of variants) {
    const m = median(runs.get(name));
    const perWake = lookMs ? `, ${(((m - base) / (60_000 / lookMs)) * 1000).toFixed(0)} µs per look` : '';
    console.log(
      `  ${name.padEnd(40)} ${m.toFixed(1).padStart(7)} ms/min  ${(m / plain).toFixed(2)}x plain  ${(m / base).toFixed(2)}x never looking  (${((m / 60_000) * 100).toFixed(3)} % of a core${perWake})`,
    );
  }
  console.log(`  one look, in this process: ${lookMicros().toFixed(3)} µs (the rest of a wake is the process waking up)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
