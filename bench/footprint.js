'use strict';
// npm run bench:footprint: what installing the package costs a Node-RED that deploys none
// of its nodes (a Pi Zero 2 has 512 MB for everything). In one run, alternately:
//   - stock Node-RED (this repo's devDependency) started in a fresh user directory without
//     the package, and the same with the package in the user directory's node_modules,
//     as npm install puts it (here a link to this checkout's build): start time to
//     "Started flows" and resident memory once started;
//   - `node` requiring the package's main, against `node` requiring nothing.
// Medians over FOOTPRINT_RUNS starts (default 7) of each; the difference is the package's.
// Spawned processes only, loopback only, nothing left behind.

const { spawn, execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const net = require('net');

const ROOT = path.join(__dirname, '..');
const PKG = require(path.join(ROOT, 'package.json'));
const RUNS = Math.max(1, Number(process.env.FOOTPRINT_RUNS) || 7);
const RED_JS = require.resolve('node-red/red.js', { paths: [ROOT] });
const MAIN = path.join(ROOT, PKG.main);
/** Memory is read this long after "Started flows", once start-up garbage has had a chance to go. */
const SETTLE_MS = 1500;
/** Linux's USER_HZ, the unit of /proc/<pid>/stat times. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function rssMb(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
  } catch {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
  }
}

/** CPU time (user + system) the process has used so far, in ms; null where /proc is missing. */
function cpuMs(pid) {
  try {
    // fields after the command name (which may hold spaces): utime and stime are 14 and 15
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

function userDir(base, withPackage) {
  const dir = fs.mkdtempSync(path.join(base, withPackage ? 'with-' : 'without-'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'node-red-project', version: '0.0.1', private: true }));
  fs.writeFileSync(path.join(dir, 'flows.json'), '[]');
  if (withPackage) {
    const link = path.join(dir, 'node_modules', ...PKG.name.split('/'));
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(ROOT, link, 'junction');
  }
  return dir;
}

function settings(port) {
  return `module.exports = ${JSON.stringify({
    uiHost: '127.0.0.1',
    uiPort: port,
    flowFile: 'flows.json',
    credentialSecret: 'footprint',
    telemetry: { enabled: false, updateNotification: false },
    diagnostics: { enabled: false },
    logging: { console: { level: 'info', metrics: false, audit: false } },
    editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
    externalModules: { autoInstall: false, palette: { allowInstall: false } },
  })};\n`;
}

/** One start of Node-RED: ms to "Started flows", MB resident once started, and whether the package's nodes loaded. */
async function startRed(dir) {
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'settings.js'), settings(port));
  const began = process.hrtime.bigint();
  const child = spawn(process.execPath, [RED_JS, '--userDir', dir, '--settings', path.join(dir, 'settings.js')], {
    cwd: dir,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  try {
    const started = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Node-RED did not start within 120 s:\n${log}`)), 120_000);
      const onData = (d) => {
        log += d;
        if (/Started flows/.test(log)) {
          clearTimeout(timer);
          resolve({ wall: Number(process.hrtime.bigint() - began) / 1e6, cpu: cpuMs(child.pid) });
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
    const sets = await (await fetch(`http://127.0.0.1:${port}/nodes`, { headers: { Accept: 'application/json' } })).json();
    return {
      startMs: started.wall,
      cpuMs: started.cpu,
      rss,
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
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'easy-footprint-'));
  try {
    const dirs = { without: userDir(base, false), with: userDir(base, true) };
    const red = { without: [], with: [] };
    const req = { without: [], with: [] };
    for (let i = 0; i < RUNS; i++) {
      // alternated, so a load that comes and goes on the machine falls on both sides
      for (const side of i % 2 ? ['with', 'without'] : ['without', 'with']) {
        const run = await startWithRetry(dirs[side]);
        if (side === 'with' && !run.loaded) throw new Error(`the package's nodes were not loaded:\n${run.log}`);
        red[side].push(run);
        req[side].push(requireCost(side === 'with' ? MAIN : null));
      }
    }
    const m = (runs, key) => median(runs.map((r) => r[key]));
    console.log(
      `footprint: Node ${process.version}, Node-RED ${require(path.join(path.dirname(RED_JS), 'package.json')).version}, ${RUNS} starts each, medians`,
    );
    console.log(
      `node-red start    without ${f1(m(red.without, 'startMs'))} ms   with ${f1(m(red.with, 'startMs'))} ms   added ${f1(m(red.with, 'startMs') - m(red.without, 'startMs'))} ms (wall clock: the machine's load shows)`,
    );
    if (red.with[0].cpuMs !== null) {
      console.log(
        `node-red start    without ${f1(m(red.without, 'cpuMs'))} ms   with ${f1(m(red.with, 'cpuMs'))} ms   added ${f1(m(red.with, 'cpuMs') - m(red.without, 'cpuMs'))} ms (CPU time to "Started flows")`,
      );
    }
    console.log(
      `node-red RSS      without ${f1(m(red.without, 'rss'))} MB   with ${f1(m(red.with, 'rss'))} MB   added ${f1(m(red.with, 'rss') - m(red.without, 'rss'))} MB`,
    );
    console.log(
      `require(main)     ${f1(m(req.with, 'ms') - m(req.without, 'ms'))} ms   RSS added ${f1(m(req.with, 'rss') - m(req.without, 'rss'))} MB`,
    );
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
