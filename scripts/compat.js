'use strict';
// npm run test:compat: the package's npm tarball installed into stock Node-RED releases
// under other Node.js versions (both from the npm registry, cached in .cache/), each cell
// running the e2e install suite: node types, icons, help, the examples deployed against
// the simulator and their output read back (a price, a sensor value, stream totals, a
// range cost, a batch cost, the library in a function node).
//
// It writes the results to docs/compatibility.json and the README's compatibility section
// from them (test/lib/package.test.ts checks that the two agree), and fails if a cell does.
//
//   COMPAT_CELLS=3.0.2@18.5.0,5.0.7@24.21.0   run only these cells (their results are merged)
const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CACHE, nodeBinary, nodeRedHome } = require('./tool-cache');
const { renderCompatSection, replaceCompatSection } = require('./compat-table');

const ROOT = path.join(__dirname, '..');
const RESULTS = path.join(ROOT, 'docs', 'compatibility.json');
const README = path.join(ROOT, 'README.md');

/**
 * The cells, chosen at the boundaries: the oldest Node-RED the package accepts (3.0.2) on
 * the oldest Node.js its engines accept (18.5) and on Node 22; the newest 4.x on the last
 * Node 18, 20 and 22; the newest 5.x on the oldest Node it accepts (22.9), the newest LTS
 * (24) and the current release (26). Exact versions: a new release is added on purpose.
 */
const CELLS = [
  { nodeRed: '3.0.2', node: '18.5.0' },
  { nodeRed: '3.0.2', node: '22.23.3' },
  { nodeRed: '4.1.15', node: '18.20.8' },
  { nodeRed: '4.1.15', node: '20.20.2' },
  { nodeRed: '4.1.15', node: '22.23.3' },
  { nodeRed: '5.0.7', node: '22.9.0' },
  { nodeRed: '5.0.7', node: '24.21.0' },
  { nodeRed: '5.0.7', node: '26.10.0' },
];
const cellName = (c) => `${c.nodeRed}@${c.node}`;

function pack(dir) {
  // prepack builds dist/ first, as npm publish would
  const out = execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 300_000,
  });
  return path.join(dir, path.basename(JSON.parse(out)[0].filename));
}

/** One cell: mocha with the install suite, its output to the console and a log file. */
function runCell(cell, tarball, logFile) {
  const redHome = nodeRedHome(cell.nodeRed);
  const redManifest = JSON.parse(fs.readFileSync(path.join(redHome, 'node_modules', 'node-red', 'package.json'), 'utf8'));
  const nodeRedNeeds = `Node.js ${redManifest.engines.node}`;
  const env = {
    ...process.env,
    E2E_TARBALL: tarball,
    E2E_NODE_RED_HOME: redHome,
    E2E_NODE_RED_VERSION: cell.nodeRed,
    E2E_NODE: nodeBinary(cell.node),
    E2E_NODE_VERSION: cell.node,
  };
  const mocha = require.resolve('mocha/bin/mocha.js', { paths: [ROOT] });
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [mocha, '--config', path.join(ROOT, 'test', 'e2e', 'compat.mocharc.js')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = fs.createWriteStream(logFile);
    let output = '';
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (d) => {
        output += d;
        log.write(d);
        process.stdout.write(d);
      });
    }
    child.on('close', (code) => {
      log.end();
      const closing = /(\d+) passed, (\d+) failed/.exec(output);
      const passed = closing ? Number(closing[1]) : 0;
      const failed = closing ? Number(closing[2]) : 0;
      resolve({
        ...cell,
        nodeRedNeeds,
        passed,
        failed,
        seconds: Math.round((Date.now() - started) / 1000),
        result: code === 0 && closing && passed > 0 && failed === 0 ? 'pass' : 'fail',
      });
    });
  });
}

async function main() {
  const only = (process.env.COMPAT_CELLS || '').split(',').filter(Boolean);
  const unknown = only.filter((n) => !CELLS.some((c) => cellName(c) === n));
  if (unknown.length) throw new Error(`COMPAT_CELLS: no such cell ${unknown.join(', ')} (cells: ${CELLS.map(cellName).join(', ')})`);
  const cells = only.length ? CELLS.filter((c) => only.includes(cellName(c))) : CELLS;

  const started = Date.now();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'easy-compat-'));
  const logs = path.join(CACHE, 'compat-logs');
  fs.mkdirSync(logs, { recursive: true });
  const results = [];
  try {
    const tarball = pack(tmp);
    for (const cell of cells) {
      console.log(`\n=== Node-RED ${cell.nodeRed} on Node.js ${cell.node} ===`);
      results.push(await runCell(cell, tarball, path.join(logs, `${cellName(cell)}.log`)));
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }

  const previous = fs.existsSync(RESULTS) ? JSON.parse(fs.readFileSync(RESULTS, 'utf8')).cells : [];
  // what the README shows, without timings, so that a run that changes nothing changes no file
  const merged = CELLS.map((c) => results.find((r) => cellName(r) === cellName(c)) ?? previous.find((r) => cellName(r) === cellName(c)))
    .filter(Boolean)
    .map(({ seconds, ...cell }) => cell);
  const doc = { package: require(path.join(ROOT, 'package.json')).version, cells: merged };
  fs.writeFileSync(RESULTS, JSON.stringify(doc, null, 2) + '\n');
  fs.writeFileSync(README, replaceCompatSection(fs.readFileSync(README, 'utf8'), renderCompatSection(doc)));

  console.log('\n=== compatibility ===');
  for (const r of results)
    console.log(
      `${r.result === 'pass' ? 'PASS' : 'FAIL'}  Node-RED ${r.nodeRed} on Node.js ${r.node}: ${r.passed} passed, ${r.failed} failed, ${r.seconds} s`,
    );
  console.log(`${results.length} cells in ${Math.round((Date.now() - started) / 1000)} s; logs in ${path.relative(ROOT, logs)}/`);
  console.log(`wrote ${path.relative(ROOT, RESULTS)} and the README's compatibility section`);
  if (results.some((r) => r.result !== 'pass')) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : err);
  process.exitCode = 1;
});
