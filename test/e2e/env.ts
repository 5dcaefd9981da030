// The e2e environment, set up once for every e2e suite (a mocha root hook plugin):
// `npm pack` -> the tarball installed into a fresh Node-RED user directory -> the stock
// node-red (this repo's devDependency from the registry, its red.js, not our sources)
// started on a loopback port in its own process, the simulator beside it in this one.
// The compatibility job (npm run test:compat) points these at another Node-RED, Node.js
// and one tarball for all its runs: E2E_NODE_RED_HOME (a folder whose node_modules holds
// node-red, expected at version E2E_NODE_RED_VERSION), E2E_NODE (the node binary that runs
// it, expected to say E2E_NODE_VERSION) and E2E_TARBALL.
// Everything is stopped and the temp directory removed after the run, on failure too
// (and, should mocha itself be killed, on process exit).
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { freePort } from '../free-port';

export const ROOT = path.join(__dirname, '..', '..');
export const HOST = '127.0.0.1';
export const TOKEN = 'demo-token';
export const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  'node-red': { nodes: Record<string, string> };
  devDependencies: Record<string, string>;
};
export const NODE_TYPES = Object.keys(PKG['node-red'].nodes);
export const ACCOUNT_ID = 'easy-example-account';
/** The config nodes of the package: in no palette, edited in their own tray. */
export const CONFIG_TYPES = ['easy-account', 'easy-prices'];

/** The Node-RED under test and the Node.js running it, with the versions they must report. */
export const RUNTIME = {
  redHome: process.env.E2E_NODE_RED_HOME || ROOT,
  redVersion: process.env.E2E_NODE_RED_VERSION || (PKG.devDependencies['node-red'] as string),
  node: process.env.E2E_NODE || process.execPath,
  nodeVersion: process.env.E2E_NODE_VERSION || process.versions.node,
};

export interface E2E {
  tmp: string;
  userDir: string;
  tarball: string;
  simUrl: string;
  /** http://127.0.0.1:port (admin and editor at /, http-in endpoints under /e2e) */
  redUrl: string;
  log: () => string;
}

let env: E2E | null = null;
let red: ChildProcess | null = null;
let redLog = '';
let sim: { url: string; close(): Promise<void> } | null = null;
let tmp: string | null = null;

export function e2e(): E2E {
  if (!env) throw new Error('the e2e environment did not start (see the before-all hook)');
  return env;
}

function npm(args: string[], cwd: string): string {
  const bin = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  return execFileSync(bin, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
}

const EDITOR_SETTINGS = require('../../scripts/editor-settings');

/** Stock settings for a loopback install; nothing may call out to the internet. */
function settingsFile(port: number): string {
  return `module.exports = ${JSON.stringify(
    {
      uiHost: HOST,
      uiPort: port,
      httpAdminRoot: '/',
      httpNodeRoot: '/e2e',
      flowFile: 'flows.json',
      credentialSecret: 'e2e-not-a-secret',
      logging: { console: { level: 'info', metrics: false, audit: false } },
      // the demo's own editor settings, so the first screen checked here is the demo's
      ...EDITOR_SETTINGS,
    },
    null,
    2,
  )};\n`;
}

export async function waitFor<T>(what: string, timeoutMs: number, probe: () => Promise<T | null | undefined>): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown = null;
  for (;;) {
    try {
      const v = await probe();
      if (v !== null && v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    if (red && red.exitCode !== null) throw new Error(`Node-RED exited (${red.exitCode}) while waiting for ${what}\n${redLog}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function setUp(): Promise<void> {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'easy-e2e-'));
  // 1. the package as npm would publish it (dist/ must be built: npm run test:e2e builds first)
  let tarball = process.env.E2E_TARBALL;
  if (!tarball) {
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', tmp], ROOT)) as Array<{ filename: string }>;
    tarball = path.join(tmp, path.basename(packed[0].filename));
  }
  // 2. a fresh user directory, the package installed into it like `npm install` in ~/.node-red does
  const userDir = path.join(tmp, 'userDir');
  fs.mkdirSync(userDir);
  fs.writeFileSync(
    path.join(userDir, 'package.json'),
    JSON.stringify({ name: 'node-red-project', description: 'e2e', version: '0.0.1', private: true }, null, 2),
  );
  npm(['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--no-progress'], userDir);
  // 3. the simulator (loopback, any free port)
  const { startSimulator } = require(path.join(ROOT, 'dist', 'sim', 'server.js'));
  // the examples' account zone is the machine's: the simulated sun rises by that clock
  const { machineTimeZone } = require(path.join(ROOT, 'dist', 'nodes', 'lib', 'engine', 'time', 'time.js'));
  sim = await startSimulator({ host: HOST, port: 0, timezone: machineTimeZone() });
  // 4. the stock node-red, in its own process
  const port = await freePort(HOST);
  fs.writeFileSync(path.join(userDir, 'settings.js'), settingsFile(port));
  const redJs = require.resolve('node-red/red.js', { paths: [RUNTIME.redHome] });
  red = spawn(RUNTIME.node, [redJs, '--userDir', userDir, '--settings', path.join(userDir, 'settings.js'), '--port', String(port)], {
    cwd: userDir,
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  red.stdout!.on('data', (d) => {
    redLog += d;
  });
  red.stderr!.on('data', (d) => {
    redLog += d;
  });
  const redUrl = `http://${HOST}:${port}`;
  await waitFor('Node-RED to start', 60_000, async () => {
    const res = await fetch(`${redUrl}/settings`);
    return res.ok && /Started flows/.test(redLog) ? true : null;
  });
  env = { tmp, userDir, tarball, simUrl: sim!.url, redUrl, log: () => redLog };
}

function stopRed(): Promise<void> {
  const child = red;
  red = null;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

async function tearDown(): Promise<void> {
  env = null;
  await stopRed();
  if (sim) await sim.close().catch(() => undefined);
  sim = null;
  if (tmp && !process.env.E2E_KEEP) fs.rmSync(tmp, { recursive: true, force: true });
  else if (tmp) console.log(`kept ${tmp} (E2E_KEEP)`);
  tmp = null;
}

// mocha killed or crashed: no orphaned Node-RED, no temp directory left behind
process.once('exit', () => {
  if (red && red.exitCode === null) red.kill('SIGKILL');
  if (tmp && !process.env.E2E_KEEP) fs.rmSync(tmp, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    void tearDown().finally(() => process.exit(130));
  });
}

export const mochaHooks = {
  async beforeAll(this: Mocha.Context) {
    this.timeout(360_000);
    try {
      await setUp();
    } catch (err) {
      if (redLog) console.error(`Node-RED's output:\n${redLog}`);
      throw err;
    }
  },
  async afterAll(this: Mocha.Context) {
    this.timeout(30_000);
    await tearDown();
  },
};

// ---------------------------------------------------------------------------------------
// small helpers for the suites

export async function getJson<T = unknown>(pathname: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(`${e2e().redUrl}${pathname}`, { headers: { Accept: 'application/json', ...headers } });
  if (!res.ok) throw new Error(`GET ${pathname}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export async function getText(pathname: string, accept = 'text/html'): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(`${e2e().redUrl}${pathname}`, { headers: { Accept: accept } });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

/**
 * The config node types of the examples that write to a server (InfluxDB, an MQTT broker):
 * their tests start the real servers on ports of their own; here, whatever listens on the
 * default ports of this machine (or nothing) would decide the result, and a stock Node-RED
 * of test:compat lacks node-red-contrib-influxdb (its flows would wait for the type).
 */
const SERVER_CONFIGS = new Set(['influxdb', 'mqtt-broker']);

/** Every example flow in one deployment but those that need a server, the shared account pointed at the simulator. */
export function exampleFlows(simUrl: string): Array<Record<string, any>> {
  const dir = path.join(ROOT, 'examples');
  const byId = new Map<string, Record<string, any>>();
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const flow = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    if (flow.some((n: { type: string }) => SERVER_CONFIGS.has(n.type))) continue;
    for (const node of flow) {
      if (node.type === 'easy-account') {
        // the token through the credentials of the deploy, as the editor sends it
        byId.set(node.id, { ...node, baseUrl: simUrl, credentials: { token: TOKEN } });
      } else {
        const seen = byId.get(node.id);
        // the dashboard's base and theme are shared by the dashboard examples, byte for byte
        const shared = seen && ['ui-base', 'ui-theme'].includes(node.type) && JSON.stringify(seen) === JSON.stringify(node);
        if (seen && !shared) throw new Error(`examples/${file}: node id ${node.id} used twice`);
        byId.set(node.id, { ...node, wires: node.wires?.map((w: string[]) => [...w]) });
      }
    }
  }
  return [...byId.values()];
}

export async function deploy(flows: unknown[]): Promise<void> {
  const res = await fetch(`${e2e().redUrl}/flows`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify({ flows }),
  });
  if (!res.ok) throw new Error(`POST /flows: ${res.status} ${await res.text()}`);
}
