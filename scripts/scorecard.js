'use strict';
// npm run scorecard: the Node-RED flow library's scorecard (`node-red-dev validate`, the
// pinned devDependency) run on this checkout, with a verdict CI can use.
//
// node-red-dev stops at the first failed HTTP request, so one unreachable host would hide
// every check after it. Its checks need these hosts (read from node-red-dev 0.1.6's source):
//   P08 (similar names), N01 (unique node types)   https://catalogue.nodered.org/catalogue.json
//   P06 (Node-RED versions), P07 (Node.js version)  https://registry.npmjs.org/node-red
//   D02 (bad packages in the tree: npm-remote-ls), D03 (latest versions: npm-check)  the npm registry
//   P01 P03 P04 P05 N02 D01                         none (package.json, the .html files, examples/)
// When the catalogue cannot be reached, its requests are answered with an empty catalogue
// and P08/N01 are reported as not checked. When the registry's node-red document cannot be
// reached, P06/P07 are checked against the node-red installed here (its version and engines).
// When the registry cannot be reached, D02/D03 are reported as not checked.
// The run fails on a failed check, or on a check missing for any reason but the network.
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const DEV = path.dirname(require.resolve('node-red-dev/package.json', { paths: [ROOT] }));
const axios = require(require.resolve('axios', { paths: [path.join(DEV, 'src')] }));

const CATALOGUE = 'https://catalogue.nodered.org/catalogue.json';
const NODE_RED_DOC = 'https://registry.npmjs.org/node-red';
const NEEDS = {
  P01: null,
  P03: null,
  P04: null,
  P05: null,
  N02: null,
  D01: null,
  P08: 'catalogue.nodered.org',
  N01: 'catalogue.nodered.org',
  P06: 'registry.npmjs.org',
  P07: 'registry.npmjs.org',
  D02: 'registry.npmjs.org',
  D03: 'registry.npmjs.org',
};
const offline = new Map(); // check id -> why it could not be checked
const substituted = new Map(); // check id -> what it was checked against instead

const isNetworkError = (err) => err && !err.response && (err.code || /network|timeout/i.test(err.message));

const realGet = axios.get.bind(axios);
axios.get = async (url, config) => {
  try {
    return await realGet(url, { timeout: 20000, ...config });
  } catch (err) {
    if (!isNetworkError(err)) throw err;
    const why = `${new URL(url).host} unreachable (${err.code || err.message})`;
    if (url === CATALOGUE) {
      offline.set('P08', why);
      offline.set('N01', why);
      return { data: { modules: [] } };
    }
    if (url === NODE_RED_DOC) {
      const red = JSON.parse(fs.readFileSync(require.resolve('node-red/package.json', { paths: [ROOT] }), 'utf8'));
      substituted.set('P06', `${why}: checked against the installed node-red ${red.version}`);
      substituted.set('P07', substituted.get('P06'));
      return { data: { 'dist-tags': { latest: red.version }, versions: { [red.version]: { engines: red.engines } } } };
    }
    throw err;
  }
};

/** Whether a host answers at all (any HTTP status counts), within a few seconds. */
async function reachable(url) {
  try {
    await realGet(url, { timeout: 8000, validateStatus: () => true });
    return null;
  } catch (err) {
    return `${new URL(url).host} unreachable (${err.code || err.message})`;
  }
}

const TIME_LIMIT_MS = 180000;

async function main() {
  // D02/D03 ask the registry through their own clients (npm-remote-ls, npm-check), which
  // report an unreachable registry as outdated packages or not at all: ask first
  const registryDown = await reachable(NODE_RED_DOC);
  if (registryDown) for (const id of ['D02', 'D03']) offline.set(id, registryDown);
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'scorecard-')), 'scorecard.json');
  const Validate = require(path.join(DEV, 'src', 'commands', 'validate.js'));
  // with an empty stand-in catalogue its ✅ for P08/N01 would claim what was not checked
  const log = Validate.prototype.log;
  Validate.prototype.log = function (msg, ...rest) {
    if (offline.has('P08') && /No similar named packages|Nodes all have unique names/.test(String(msg))) {
      msg = `-  ${/similar/.test(msg) ? 'P08' : 'N01'} not checked: ${offline.get('P08')}`;
    }
    return log.call(this, msg, ...rest);
  };
  let crashed = null;
  try {
    let timer;
    await Promise.race([
      Validate.run(['--path', ROOT, '--output', out, '--embed', 'yes']),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(Object.assign(new Error(`no answer within ${TIME_LIMIT_MS / 1000} s`), { code: 'ETIMEDOUT' })),
          TIME_LIMIT_MS,
        );
        timer.unref();
      }),
    ]).finally(() => clearTimeout(timer));
  } catch (err) {
    crashed = err;
  }
  let card = {};
  try {
    card = JSON.parse(fs.readFileSync(out, 'utf8'));
  } catch {
    // node-red-dev stopped before writing it
  }
  fs.rmSync(path.dirname(out), { recursive: true, force: true });

  console.log('\nScorecard verdict:');
  let failed = 0;
  for (const [id, host] of Object.entries(NEEDS)) {
    const result = card[id];
    let line;
    if (offline.has(id)) {
      line = `-  ${id} not checked: ${offline.get(id)} (needs the network)`;
    } else if (!result) {
      const net = host && crashed && isNetworkError(crashed);
      line = `${net ? '-' : '✖'}  ${id} did not run${crashed ? `: ${crashed.message}` : ''}${net ? ' (needs the network)' : ''}`;
      if (!net) failed++;
    } else if (result.test) {
      line = `✔  ${id} passed${substituted.has(id) ? ` (${substituted.get(id)})` : host ? ` (used ${host})` : ''}`;
    } else {
      line = `✖  ${id} failed: ${JSON.stringify(result)}`;
      failed++;
    }
    console.log(`   ${line}`);
  }
  if (crashed && !isNetworkError(crashed)) {
    console.log(`   ✖  node-red-dev stopped: ${crashed.message}`);
    failed++;
  }
  console.log(failed ? `scorecard: ${failed} check(s) failed` : 'scorecard: every check that ran passed');
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
