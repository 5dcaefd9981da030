// A real Node-RED process for the restart and access suites: a temporary userDir with a
// settings.js, this package linked in from the built dist (as scripts/start.js does),
// `node node_modules/node-red/red.js -u <userDir> -p <port>`, flows deployed through the
// admin API. Everything it starts is killed and removed, also when a test fails.
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { freePort } from '../free-port';

const ROOT = path.join(__dirname, '..', '..');
const RED_JS = path.join(ROOT, 'node_modules', 'node-red', 'red.js');

export const CREDENTIAL_SECRET = 'reliability-credential-secret';
/** The context store's flush interval, in seconds. */
export const FLUSH_SECONDS = 1;

export interface RedOptions {
  /** settings.js additions, as JavaScript source of object properties. */
  extraSettings?: string;
  /** The default (localfilesystem) store's config beside flushInterval. */
  storeConfig?: Record<string, unknown>;
  /** Also install a module that writes the admin app's routes to <userDir>/routes.json once flows start. */
  listRoutes?: boolean;
  /** Environment variables beside the test process's own (e.g. libfaketime's). */
  env?: Record<string, string>;
}

/** A Node-RED node module whose only job is to list the routes of the runtime's admin app. */
const ROUTE_LISTER = `module.exports = function (RED) {
  const fs = require('fs');
  const path = require('path');
  RED.events.on('flows:started', () => {
    const stack = (RED.httpAdmin._router || RED.httpAdmin.router).stack;
    const routes = stack.filter((l) => l.route).flatMap((l) => Object.keys(l.route.methods).map((method) => ({ method, path: l.route.path })));
    fs.writeFileSync(path.join(__dirname, '..', '..', 'routes.json'), JSON.stringify(routes));
  });
};
`;

export class RedProcess {
  readonly userDir: string;
  port = 0;
  child: ChildProcess | null = null;
  output = '';

  constructor(private readonly opts: RedOptions = {}) {
    if (!fs.existsSync(path.join(ROOT, 'dist', 'nodes', 'easy-cost.js')))
      throw new Error('run `npm run build` first: the process loads the package from dist/');
    this.userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'easy-red-'));
    const link = path.join(this.userDir, 'node_modules', '@tariffkit', 'node-red-easy');
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(ROOT, link, 'junction');
    if (this.opts.listRoutes) {
      const dir = path.join(this.userDir, 'node_modules', 'route-lister');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(
        path.join(dir, 'package.json'),
        JSON.stringify({ name: 'route-lister', version: '1.0.0', 'node-red': { nodes: { 'route-lister': 'index.js' } } }),
      );
      fs.writeFileSync(path.join(dir, 'index.js'), ROUTE_LISTER);
    }
    fs.writeFileSync(
      path.join(this.userDir, 'settings.js'),
      `module.exports = {
  uiHost: '127.0.0.1',
  flowFile: 'flows.json',
  credentialSecret: ${JSON.stringify(CREDENTIAL_SECRET)},
  httpNodeRoot: '/api',
  contextStorage: {
    default: { module: 'localfilesystem', config: ${JSON.stringify({ flushInterval: FLUSH_SECONDS, ...this.opts.storeConfig })} },
    memory: { module: 'memory' },
  },
  logging: { console: { level: 'info', metrics: false, audit: false } },
  editorTheme: { tours: false },
  ${this.opts.extraSettings ?? ''}
};
`,
    );
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts Node-RED and resolves once its admin API answers (401 counts, with adminAuth). */
  async start(timeoutMs = 20000): Promise<void> {
    this.port = this.port || (await freePort());
    this.output = '';
    const child = spawn(process.execPath, [RED_JS, '-u', this.userDir, '-p', String(this.port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...this.opts.env },
    });
    this.child = child;
    child.stdout!.on('data', (d) => (this.output += d));
    child.stderr!.on('data', (d) => (this.output += d));
    const started = Date.now();
    for (;;) {
      if (child.exitCode !== null) throw new Error(`Node-RED exited (${child.exitCode}):\n${this.output}`);
      try {
        const res = await fetch(`${this.url}/settings`);
        if (res.status === 200 || res.status === 401) break;
      } catch {
        // not listening yet
      }
      if (Date.now() - started > timeoutMs) throw new Error(`Node-RED did not start within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // flows start after the admin API listens
    await this.waitFor(() => /Started flows|Flows file .* not found|Stopped flows/.test(this.output), 'flows to start', timeoutMs);
  }

  async waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10000): Promise<void> {
    const started = Date.now();
    while (!(await check())) {
      if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}:\n${this.output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** A full deploy through the admin API. */
  async deploy(flows: object[], headers: Record<string, string> = {}): Promise<void> {
    const before = this.output.length;
    const res = await fetch(`${this.url}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full', ...headers },
      body: JSON.stringify(flows),
    });
    if (res.status !== 204 && res.status !== 200) throw new Error(`deploy answered ${res.status}: ${await res.text()}`);
    await this.waitFor(() => /Started flows/.test(this.output.slice(before)), 'the deployed flows to start');
  }

  async post(pathname: string, body: unknown): Promise<any> {
    const res = await fetch(`${this.url}${pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    });
    const text = await res.text();
    if (res.status !== 200 || !text) throw new Error(`${pathname} answered ${res.status}: ${text}\n${this.output.slice(-2000)}`);
    return JSON.parse(text);
  }

  async get(pathname: string, headers: Record<string, string> = {}): Promise<any> {
    const res = await fetch(`${this.url}${pathname}`, { headers });
    const text = await res.text();
    return text ? JSON.parse(text) : undefined;
  }

  /** Hard kill: no flush, no close. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  /** Kills the process and removes the userDir. */
  async dispose(): Promise<void> {
    await this.kill('SIGKILL');
    fs.rmSync(this.userDir, { recursive: true, force: true });
  }

  /** Every context file of the default store. */
  contextFiles(): string[] {
    const dir = path.join(this.userDir, 'context');
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir, { recursive: true })
      .map((f) => path.join(dir, String(f)))
      .filter((f) => f.endsWith('.json'));
  }
}
