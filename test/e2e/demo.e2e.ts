// The `npm start` demo as a new user runs it: scripts/start.js in its own process group
// (as a terminal runs it), the dashboard page open in chromium, then Ctrl-C (SIGINT to the
// group, as the terminal sends it). The page's socket.io connection must not keep the
// process alive. Its own user directory (DEMO_DIR), so a developer's .demo/ is untouched.
import * as assert from 'assert';
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { chromium, type Browser } from 'playwright-core';
import { freePort } from '../free-port';
import { HOST, ROOT, e2e, waitFor } from './env';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
declare const document: any; // inside page.waitForFunction
declare const RED: any;
declare const window: any; // inside page.evaluate

describe('e2e: the npm start demo', function () {
  this.timeout(120_000);
  let demo: ChildProcess | null = null;
  let browser: Browser | null = null;
  let log = '';
  let url = '';

  before(async function () {
    const port = await freePort(HOST);
    const demoDir = fs.mkdtempSync(path.join(e2e().tmp, 'demo-'));
    demo = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.js')], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), DEMO_DIR: demoDir, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, like a shell job
    });
    demo.stdout!.on('data', (d) => (log += d));
    demo.stderr!.on('data', (d) => (log += d));
    url = `http://${HOST}:${port}`;
    await waitFor('the demo to start', 90_000, async () => {
      if (demo!.exitCode !== null) throw new Error(`the demo exited (${demo!.exitCode}):\n${log}`);
      return /Ctrl-C stops both/.test(log) ? true : null;
    });
    // the flows (and the dashboard's pages) start a moment after the demo says it is up
    await waitFor('the dashboard page', 60_000, async () => ((await fetch(`${url}/dashboard/energy`)).status === 200 ? true : null));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  });

  after(async () => {
    await browser?.close();
    if (demo && demo.exitCode === null && demo.signalCode === null) process.kill(-demo.pid!, 'SIGKILL');
  });

  it('opens the editor on the Overview tab, whose "send the current values" fills the Debug sidebar', async () => {
    const page = await browser!.newPage();
    try {
      await page.goto(`${url}/`, { waitUntil: 'load' });
      await page.waitForFunction(() => typeof RED !== 'undefined' && RED.workspaces && RED.workspaces.active(), null, { timeout: 60_000 });
      await page.waitForTimeout(1000);
      const active = await page.evaluate(() => RED.nodes.workspace(RED.workspaces.active()).label);
      assert.strictEqual(active, 'Overview');
      await page.evaluate(() => RED.sidebar.show('debug'));
      const before = await page.evaluate(() => document.querySelectorAll('.red-ui-debug-msg').length);
      // the inject's button, as a user presses it
      await page.locator('[id="demo-overview-resend"] .red-ui-flow-node-button-button').click();
      await page.waitForFunction((n) => document.querySelectorAll('.red-ui-debug-msg').length > n + 3, before, { timeout: 20_000 });
    } finally {
      await page.close();
    }
  });

  it("the energy page shows import, export and net per day; the simulator's solar export is above 0 on the days it holds a noon", async () => {
    const page = await browser!.newPage();
    try {
      // Dashboard 2 keeps its charts in window.uiCharts when it thinks Cypress drives it
      await page.addInitScript(() => (window.Cypress = true));
      await page.goto(`${url}/dashboard/energy`, { waitUntil: 'load' });
      const series = () =>
        page.evaluate(() => {
          const out: Record<string, number[]> = {};
          for (const c of Object.values(window.uiCharts || {}) as any[])
            for (const s of c.chart.getOption().series || [])
              out[String(s.name)] = (s.data || []).map((d: any) => {
                const v = d && typeof d === 'object' && !Array.isArray(d) ? d.value : d;
                return Number(Array.isArray(v) ? v[1] : v);
              });
          return out;
        });
      await page.waitForFunction(
        () =>
          Object.values(window.uiCharts || {}).some((c: any) =>
            (c.chart.getOption().series || []).some((s: any) => s.name === 'export' && (s.data || []).length > 0),
          ),
        null,
        { timeout: 60_000 },
      );
      const got = await series();
      for (const name of ['import', 'export', 'net']) assert.ok(got[name] && got[name].length >= 7, `${name}: ${JSON.stringify(got)}`);
      // 7 days back from now: at least 6 local days hold their noon, when the simulated sun exports
      assert.ok(got.export.filter((y) => y > 0).length >= 6, `export per day: ${got.export}`);
      assert.ok(
        got.import.every((y) => y > 0),
        `import per day: ${got.import}`,
      );
    } finally {
      await page.close();
    }
  });

  it('Ctrl-C ends it within seconds while the dashboard page is connected', async () => {
    const page = await browser!.newPage();
    const sockets: string[] = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await page.goto(`${url}/dashboard/energy`, { waitUntil: 'load' });
    // the page is live: its widgets got their values over the socket
    await page.waitForFunction(() => /Price now\s+[\d.]+ GBP\/kWh/.test(document.body.innerText), null, { timeout: 60_000 });
    assert.ok(
      sockets.some((s) => s.includes('/dashboard/socket.io')),
      `the page holds a socket.io websocket: ${sockets.join(', ')}`,
    );
    const exited = new Promise<{ code: number | null; after: number }>((resolve) => {
      const sent = Date.now();
      demo!.once('exit', (code) => resolve({ code, after: Date.now() - sent }));
    });
    process.kill(-demo!.pid!, 'SIGINT');
    const { code, after } = await Promise.race([
      exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still running 10 s after Ctrl-C:\n${log}`)), 10_000)),
    ]);
    // 0: it stopped by itself, not by the watchdog that exits anyway after 5 s
    assert.strictEqual(code, 0, log);
    assert.ok(after < 5000, `stopped in ${after} ms`);
    assert.match(log, /Stopping Node-RED and the simulator/);
  });

  // A process manager, a script or an IDE's stop button signals the process it started:
  // npm, not node. npm hands the signal to its child, and `exec` in the start script makes
  // that child node itself (no shell in between that would die and leave node running).
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to the process \`npm start\` started (npm) frees the editor's and the simulator's ports within seconds`, async () => {
      const [port, simPort] = [await freePort(HOST), await freePort(HOST)];
      const demoDir = fs.mkdtempSync(path.join(e2e().tmp, 'npm-start-'));
      let out = '';
      const npm = spawn('npm', ['start'], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port), SIM_PORT: String(simPort), DEMO_DIR: demoDir, NODE_OPTIONS: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      npm.stdout!.on('data', (d) => (out += d));
      npm.stderr!.on('data', (d) => (out += d));
      try {
        await waitFor('npm start to start the demo', 100_000, async () => {
          if (npm.exitCode !== null) throw new Error(`npm start exited (${npm.exitCode}):\n${out}`);
          return /Ctrl-C stops both/.test(out) ? true : null;
        });
        assert.ok(!(await portFree(port)) && !(await portFree(simPort)), 'the demo holds both ports');
        const sent = Date.now();
        npm.kill(signal); // npm's pid only, not its process group
        await waitFor(`both ports free after ${signal} to npm`, 8000, async () =>
          (await portFree(port)) && (await portFree(simPort)) ? true : null,
        );
        const freed = Date.now() - sent;
        assert.ok(freed < 6000, `ports freed in ${freed} ms`);
        await waitFor('npm to exit', 5000, async () => (npm.exitCode !== null || npm.signalCode !== null ? true : null));
        assert.match(out, /Stopping Node-RED and the simulator/);
      } finally {
        if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
      }
      // nothing of the demo outlived it
      for (const p of [port, simPort]) assert.ok(await portFree(p), `port ${p} still held:\n${out}`);
    });
  }
});

/** Whether nothing listens on the loopback port (a listen there succeeds). */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}
