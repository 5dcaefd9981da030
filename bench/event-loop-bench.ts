// npm run bench, event loop: a real Node-RED (embedded in this process, with its admin
// API) runs easy-tariff on a tariff at the rule limit made of consecutive one-second
// windows served by the simulator, so the price changes every second and easy-tariff
// re-prices every second; meanwhile the editor's calls arrive: GET /settings ten times a
// second and the schedule route (the week's chart) once a second. Printed: how long the
// event loop was blocked (perf_hooks.monitorEventLoopDelay: max and p99) and the
// latencies of those calls, against the same Node-RED running the 3-rule tariff, in the
// same run. `--json` prints the figures for the reliability test; `--seconds N` sets how
// long each tariff is measured.
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { monitorEventLoopDelay } from 'perf_hooks';
import { MAX_RULES_PER_TARIFF } from '../nodes/lib/engine/common/limits';
import type { Rule, Tariff } from '../nodes/lib/engine/tariff/tariff';
import { startSimulator, Simulator } from '../sim/server';
import { BASELINE_TARIFF, median } from './measure';

const ROOT = path.join(__dirname, '..', '..');
const TOKEN = 'demo-token';
/** The promised bound: the package never blocks Node-RED's event loop longer than this. */
export const TARGET_BLOCK_MS = 100;
/** Starts the line of `--json` output (Node-RED may print lines of its own). */
export const JSON_MARK = 'event-loop-figures';

export interface LoopFigures {
  tariff: string;
  rules: number;
  /** Longest and 99th percentile event-loop delay while measuring, ms. */
  maxBlockMs: number;
  p99BlockMs: number;
  settings: { calls: number; medianMs: number; maxMs: number };
  schedule: { calls: number; medianMs: number; maxMs: number };
  /** Price messages easy-tariff sent while measuring (one per change: about one a second for the windows). */
  prices: number;
}

/** Consecutive one-second windows from `start` (UTC), alternating prices, and a fallback: a change every second. */
function windowsTariff(start: number): Tariff {
  const n = MAX_RULES_PER_TARIFF - 1;
  const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);
  const rules: Rule[] = [];
  for (let k = 0; k < n; k++) {
    const from = start + k * 1000;
    rules.push({ priority: k, price: k % 2 ? 0.2 : 0.3, time_start: clock(from), time_end: clock(from + 1000) });
  }
  rules.push({ priority: n, price: 0.1 });
  return { id: 'windows', name: `${MAX_RULES_PER_TARIFF} one-second windows`, vat: 20, currency: 'GBP', rules };
}

export interface EmbeddedRed {
  url: string;
  stop(): Promise<void>;
  /** Price messages sent by the measured easy-tariff so far. */
  prices(): number;
}

/** Node-RED embedded in this process (its documented embedding API), with the package from this checkout. */
export async function startRed(globals: Record<string, unknown> = {}): Promise<EmbeddedRed> {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'easy-loop-'));
  const link = path.join(userDir, 'node_modules', '@tariffkit', 'node-red-easy');
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(ROOT, link, 'junction');
  let prices = 0;
  /* eslint-disable @typescript-eslint/no-require-imports */
  const RED = require('node-red');
  const express = require('express');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const app = express();
  const server = http.createServer(app);
  RED.init(server, {
    userDir,
    flowFile: 'flows.json',
    credentialSecret: 'event-loop-bench',
    httpAdminRoot: '/',
    httpNodeRoot: '/api',
    uiHost: '127.0.0.1',
    logging: { console: { level: 'error', metrics: false, audit: false } },
    editorTheme: { tours: false },
    // counts what easy-tariff sends, through a function node's global context
    functionGlobalContext: { countPrice: () => prices++, ...globals },
  });
  app.use('/api', RED.httpNode);
  app.use('/', RED.httpAdmin);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await RED.start();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    prices: () => prices,
    async stop() {
      await RED.stop();
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
      fs.rmSync(userDir, { recursive: true, force: true });
    },
  };
}

async function deploy(red: EmbeddedRed, sim: Simulator, tariffId: string): Promise<void> {
  const flows = [
    { id: 'z', type: 'tab', label: 'event loop' },
    { id: 'acc', type: 'easy-account', name: 'bench', baseUrl: sim.url, timezone: 'UTC', credentials: { token: TOKEN } },
    { id: 't', z: 'z', type: 'easy-tariff', account: 'acc', tariff: tariffId, refresh: 60, wires: [['count']] },
    { id: 'count', z: 'z', type: 'function', func: "global.get('countPrice')(); return null;", outputs: 0, wires: [] },
  ];
  const res = await fetch(`${red.url}/flows`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify(flows),
  });
  if (res.status !== 204 && res.status !== 200) throw new Error(`deploy answered ${res.status}: ${await res.text()}`);
}

async function timed(run: () => Promise<Response>): Promise<number> {
  const t0 = process.hrtime.bigint();
  const res = await run();
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`answered ${res.status}`);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function summary(ms: number[]) {
  return { calls: ms.length, medianMs: ms.length ? median(ms) : NaN, maxMs: ms.length ? Math.max(...ms) : NaN };
}

/** Serves `tariff`, deploys easy-tariff on it, waits for its first price, then measures for `seconds`. */
async function measure(red: EmbeddedRed, sim: Simulator, tariff: Tariff, seconds: number): Promise<LoopFigures> {
  sim.setAnswers({ tariffs: [tariff] });
  sim.resetRequests();
  const pricesBefore = red.prices();
  await deploy(red, sim, tariff.id);
  const started = Date.now();
  while (red.prices() === pricesBefore) {
    if (Date.now() - started > 30_000) throw new Error(`easy-tariff sent no price for ${tariff.id} within 30 s`);
    await sleep(50);
  }
  const schedule = { id: 'acc', tariff: tariff.id };
  await timed(() =>
    fetch(`${red.url}/easy-account/schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(schedule),
    }),
  );
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const prices0 = red.prices();
  const settingsMs: number[] = [];
  const scheduleMs: number[] = [];
  const until = Date.now() + seconds * 1000;
  const settingsCalls = (async () => {
    while (Date.now() < until) {
      settingsMs.push(await timed(() => fetch(`${red.url}/settings`)));
      await sleep(100);
    }
  })();
  const scheduleCalls = (async () => {
    while (Date.now() < until) {
      const body = JSON.stringify(schedule);
      scheduleMs.push(
        await timed(() =>
          fetch(`${red.url}/easy-account/schedule`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
        ),
      );
      await sleep(1000);
    }
  })();
  await Promise.all([settingsCalls, scheduleCalls]);
  histogram.disable();
  return {
    tariff: tariff.name,
    rules: tariff.rules.length,
    maxBlockMs: histogram.max / 1e6,
    p99BlockMs: histogram.percentile(99) / 1e6,
    settings: summary(settingsMs),
    schedule: summary(scheduleMs),
    prices: red.prices() - prices0,
  };
}

export async function eventLoopFigures(seconds: number): Promise<{ worst: LoopFigures; base: LoopFigures }> {
  const sim = await startSimulator({ port: 0 });
  const red = await startRed();
  try {
    const base = await measure(red, sim, BASELINE_TARIFF, seconds);
    // the windows start as it is deployed and last MAX_RULES_PER_TARIFF seconds: all of the measurement
    const measured = await measure(red, sim, windowsTariff(Math.floor(Date.now() / 1000) * 1000), seconds);
    return { worst: measured, base };
  } finally {
    await red.stop();
    await sim.close();
  }
}

function line(f: LoopFigures): string {
  const ms = (x: number) => x.toFixed(1).padStart(7);
  return (
    `  ${f.tariff.padEnd(26)} block max ${ms(f.maxBlockMs)} ms  p99 ${ms(f.p99BlockMs)} ms   ` +
    `GET /settings median ${ms(f.settings.medianMs)} ms max ${ms(f.settings.maxMs)} ms   ` +
    `schedule route median ${ms(f.schedule.medianMs)} ms max ${ms(f.schedule.maxMs)} ms   ${f.prices} prices sent`
  );
}

async function main(): Promise<void> {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const seconds = Number(arg('--seconds') ?? 15);
  const { worst, base } = await eventLoopFigures(seconds);
  if (process.argv.includes('--json')) {
    process.stdout.write(`\n${JSON_MARK} ${JSON.stringify({ worst, base })}\n`);
    return;
  }
  console.log(`event loop of a Node-RED running easy-tariff (re-pricing at every change) while the editor asks:`);
  console.log(`  GET /settings every 100 ms, the schedule route every 1 s; ${seconds} s each, same process and run;`);
  console.log(`  target: blocked <= ${TARGET_BLOCK_MS} ms; load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`);
  console.log(line(base));
  console.log(`${line(worst)}   ${worst.maxBlockMs <= TARGET_BLOCK_MS ? 'ok' : 'OVER TARGET'}`);
  console.log(
    `  ratio worst / 3 rules: block max ${(worst.maxBlockMs / base.maxBlockMs).toFixed(1)} x, p99 ${(worst.p99BlockMs / base.p99BlockMs).toFixed(1)} x`,
  );
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
