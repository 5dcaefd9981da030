'use strict';
// npm run bench:idle: the CPU a REAL Node-RED process uses while nothing happens, with the
// package's nodes deployed and idle (easy-tariff, easy-plan, easy-cost in stream mode and
// easy-peak waiting for readings: deadlines armed, so the clock-step check looks once a
// second) against plain Node-RED (a flow without them), and against an older build of the
// package when IDLE_BENCH_BEFORE names its root (a checkout with dist/ built), e.g. the
// commit before the clock-step check. CPU is the on-CPU time of every thread of the process
// (/proc/<pid>/task/*/schedstat, ns) over IDLE_BENCH_SECONDS (60) after a 45 s settle (some
// 200-300 ms of CPU come once, 30-45 s after a start, with or without the package), in
// IDLE_BENCH_ROUNDS (3) interleaved rounds; medians, and ratios against plain Node-RED
// measured in the same rounds. The simulator answers on loopback; temporary dirs removed.

const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { freePort } = require('./process-stats');

const ROOT = path.join(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const RED_JS = require.resolve('node-red/red.js', { paths: [ROOT] });
const { startSimulator } = require(path.join(DIST, 'sim', 'server.js'));
const SECONDS = Number(process.env.IDLE_BENCH_SECONDS || 60);
const ROUNDS = Number(process.env.IDLE_BENCH_ROUNDS || 3);
const BEFORE = process.env.IDLE_BENCH_BEFORE || null;
const TAB = 'idle';

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
  logging: { console: { level: 'warn' } }, editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
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
      try {
        if ((await fetch(`http://127.0.0.1:${port}/flows`)).status === 200) break;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 45_000)); // flows started, first prices and plans made, the one-off burst over
    const c0 = threadsCpuMs(child.pid);
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const cpu = threadsCpuMs(child.pid) - c0;
    if (/\[error\]/.test(log)) throw new Error(`Node-RED logged an error:\n${log}`);
    return (cpu / SECONDS) * 60; // ms of CPU per minute
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const sim = await startSimulator({ port: 0 });
  const variants = [
    ['plain Node-RED', null],
    ['package (this build)', ROOT],
    ...(BEFORE ? [['package (IDLE_BENCH_BEFORE)', path.resolve(BEFORE)]] : []),
  ];
  const runs = new Map(variants.map(([name]) => [name, []]));
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, root] of variants) {
        const ms = await measure(name.replace(/\W+/g, '-'), root, sim.url);
        runs.get(name).push(ms);
        console.log(`round ${round}: ${name}: ${ms.toFixed(1)} ms CPU per minute`);
      }
    }
  } finally {
    await sim.close();
  }
  const plain = median(runs.get('plain Node-RED'));
  console.log(`\nidle CPU, median of ${ROUNDS} rounds of ${SECONDS} s (ms of CPU per minute; ratio to plain Node-RED):`);
  for (const [name] of variants) {
    const m = median(runs.get(name));
    console.log(
      `  ${name.padEnd(30)} ${m.toFixed(1).padStart(8)} ms/min  ${(m / plain).toFixed(3)}x  (${((m / 60_000) * 100).toFixed(3)} % of a core)`,
    );
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
