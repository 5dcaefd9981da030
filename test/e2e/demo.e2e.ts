// The `npm start` demo as a new user runs it: scripts/start.js in its own process group
// (as a terminal runs it), the dashboard page open in chromium, then Ctrl-C (SIGINT to the
// group, as the terminal sends it). The page's socket.io connection must not keep the
// process alive. Its own user directory (DEMO_DIR), so a developer's .demo/ is untouched.
import * as assert from 'assert';
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { chromium, type Browser } from 'playwright-core';
import { freePort } from '../free-port';
import { HOST, ROOT, e2e, waitFor } from './env';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
declare const document: any; // inside page.waitForFunction

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
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  });

  after(async () => {
    await browser?.close();
    if (demo && demo.exitCode === null && demo.signalCode === null) process.kill(-demo.pid!, 'SIGKILL');
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
});
