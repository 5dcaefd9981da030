'use strict';
// Other Node.js versions and stock Node-RED releases for the compatibility job, from the
// npm registry only: a Node binary is the registry's `node` package (its install step puts
// the binary for this platform inside it), a Node-RED is the `node-red` package. Both are
// installed once per exact version under .cache/ (git-ignored) and reused afterwards.
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const CACHE = path.join(ROOT, '.cache');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function exactVersion(version) {
  if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) throw new Error(`not an exact version: ${version}`);
  return version;
}

/** `npm install pkg@version` into its own folder under .cache/, unless a check says it is there. */
function installOnce(dir, spec, ready) {
  if (ready()) return;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'tool-cache', private: true }) + '\n');
  execFileSync(NPM, ['install', spec, '--no-audit', '--no-fund', '--no-progress', '--omit=optional'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 600_000,
  });
  if (!ready()) throw new Error(`npm install ${spec} in ${dir} did not give what was asked for`);
}

function reportedVersion(bin) {
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000 }).trim();
  } catch {
    return null;
  }
}

/** Path of the Node.js `version` binary (e.g. "18.20.8"), installed from npm's `node` package if need be. */
function nodeBinary(version) {
  exactVersion(version);
  const dir = path.join(CACHE, 'node', version);
  const bin = path.join(dir, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
  installOnce(dir, `node@${version}`, () => reportedVersion(bin) === `v${version}`);
  return bin;
}

/** Folder whose node_modules holds stock node-red@`version` (its red.js is below it). */
function nodeRedHome(version) {
  exactVersion(version);
  const dir = path.join(CACHE, 'node-red', version);
  const manifest = path.join(dir, 'node_modules', 'node-red', 'package.json');
  installOnce(
    dir,
    `node-red@${version}`,
    () => fs.existsSync(manifest) && JSON.parse(fs.readFileSync(manifest, 'utf8')).version === version,
  );
  return dir;
}

module.exports = { CACHE, nodeBinary, nodeRedHome };

// node scripts/tool-cache.js node <version> <args...>: runs that Node.js (installed first
// if need be) with the arguments, e.g. a test tier under the oldest Node the package supports.
if (require.main === module) {
  const [what, version, ...args] = process.argv.slice(2);
  if (what !== 'node' || !version) {
    console.error('usage: node scripts/tool-cache.js node <version> <args...>');
    process.exit(2);
  }
  const { spawnSync } = require('child_process');
  const run = spawnSync(nodeBinary(version), args, { cwd: ROOT, stdio: 'inherit' });
  process.exit(run.status === null ? 1 : run.status);
}
