// npm run bench, plan bursts: 2,000 commands to easy-plan through http-in, 100 at a time
// (boosts, one-offs, overrides, resends, as a dashboard or a script sends them), in a real
// Node-RED embedded in this process, against the same burst into a function node that does
// nothing (the baseline: http-in, the runtime, the HTTP answers). Printed: CPU time of the
// whole burst, the plan node's share per command (beyond the baseline), the plan messages
// sent, and the worst event-loop block (perf_hooks). A burst is planned once at its end
// (docs/semantics.md, "Bursts of commands"), so the plan node's share stays small.
import * as os from 'os';
import { monitorEventLoopDelay } from 'perf_hooks';
import { startSimulator } from '../sim/server';
import { EmbeddedRed, startRed } from './event-loop-bench';

const COMMANDS = 2000;
const AT_ONCE = 100;
const TOKEN = 'demo-token';
/** What the flow sent, counted by its function node through the global context. */
const COUNTS = { plans: 0, switches: 0, errors: 0 };
/** Commands in an order that changes the outcome at each step (the node test replays them one at a time and together). */
export const BURST_COMMANDS: Array<Record<string, unknown>> = [
  { payload: 'boost', duration: 10 },
  { duration: '30min', until: '07:00' },
  { payload: 'on' },
  { payload: 'boost', duration: 25 },
  { payload: 'auto' },
  { payload: 'resend' },
  { duration: '1h', until: '06:00' },
  { payload: 'boost', duration: 0 },
];

async function deploy(red: EmbeddedRed, simUrl: string, target: 'plan' | 'function', round: number): Promise<void> {
  // new ids each round: a full deploy that rewires a node of the same id to a removed one trips Node-RED
  const id = (name: string) => `${name}-${round}`;
  const flows = [
    { id: id('z'), type: 'tab', label: 'bursts' },
    { id: 'acc', type: 'easy-account', name: 'bench', baseUrl: simUrl, timezone: 'Europe/London', credentials: { token: TOKEN } },
    { id: id('in'), z: id('z'), type: 'http in', url: '/cmd', method: 'post', wires: [[id('command'), id('ok')]] },
    // the POSTed JSON is the command message (http-in puts the body in msg.payload)
    {
      id: id('command'),
      z: id('z'),
      type: 'function',
      func: 'return Object.assign({}, msg.payload);',
      outputs: 1,
      wires: [[id('target')]],
    },
    { id: id('ok'), z: id('z'), type: 'http response', statusCode: '200', wires: [] },
    target === 'plan'
      ? {
          id: id('target'),
          z: id('z'),
          type: 'easy-plan',
          account: 'acc',
          tariff: 'DEMO-NIGHT',
          durationHours: 2,
          durationMinutes: 0,
          mode: 'daily',
          from: '22:00',
          until: '07:00',
          wires: [[id('count')], [id('count')]],
        }
      : { id: id('target'), z: id('z'), type: 'function', func: 'return null;', outputs: 1, wires: [[id('count')]] },
    {
      id: id('count'),
      z: id('z'),
      type: 'function',
      func: "const k = msg.error ? 'errors' : msg.topic === 'plan' ? 'plans' : 'switches'; global.get('counts')[k]++; return null;",
      outputs: 0,
      wires: [],
    },
    { id: id('catch'), z: id('z'), type: 'catch', scope: null, wires: [[id('count')]] },
  ];
  const res = await fetch(`${red.url}/flows`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify(flows),
  });
  if (res.status !== 204 && res.status !== 200) throw new Error(`deploy answered ${res.status}: ${await res.text()}`);
}

type Burst = { cpuMs: number; wallMs: number; maxBlockMs: number; counts: { plans: number; switches: number; errors: number } };

async function burst(red: EmbeddedRed): Promise<Burst> {
  Object.assign(COUNTS, { plans: 0, switches: 0, errors: 0 });
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const cpu0 = process.cpuUsage();
  const t0 = Date.now();
  for (let k = 0; k < COMMANDS; k += AT_ONCE) {
    await Promise.all(
      Array.from({ length: AT_ONCE }, (_, j) =>
        fetch(`${red.url}/api/cmd`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(BURST_COMMANDS[(k + j) % BURST_COMMANDS.length]),
        }).then((r) => r.arrayBuffer()),
      ),
    );
  }
  const cpu = process.cpuUsage(cpu0);
  histogram.disable();
  await new Promise((resolve) => setTimeout(resolve, 200)); // the last plan of the burst
  const counts = { ...COUNTS };
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs: Date.now() - t0, maxBlockMs: histogram.max / 1e6, counts };
}

async function main(): Promise<void> {
  const sim = await startSimulator({ port: 0 });
  const red = await startRed({ counts: COUNTS });
  try {
    console.log(
      `plan bursts: ${COMMANDS} commands through http-in, ${AT_ONCE} at a time; load average ${os.loadavg()[0].toFixed(2)} on ${os.cpus().length} cores`,
    );
    const rows: Array<[string, Burst]> = [];
    for (const [round, target] of (['function', 'function', 'plan', 'function', 'plan'] as const).entries()) {
      await deploy(red, sim.url, target, round);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the first plan, from the simulator's tariffs
      const figures = await burst(red);
      if (round > 0) rows.push([target, figures]); // the first burst warms up http-in and fetch
    }
    const mean = (t: string, f: 'cpuMs' | 'maxBlockMs') => {
      const xs = rows.filter(([n]) => n === t).map(([, r]) => r[f]);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    for (const [target, r] of rows) {
      console.log(
        `  into ${target.padEnd(8)} CPU ${r.cpuMs.toFixed(0).padStart(5)} ms   wall ${r.wallMs.toFixed(0).padStart(5)} ms   worst block ${r.maxBlockMs.toFixed(0).padStart(4)} ms   sent: ${r.counts.plans} plans, ${r.counts.switches} switches, ${r.counts.errors} errors`,
      );
    }
    const extra = mean('plan', 'cpuMs') - mean('function', 'cpuMs');
    console.log(
      `  the plan node's share: ${extra.toFixed(0)} ms CPU for ${COMMANDS} commands (${((extra / COMMANDS) * 1000).toFixed(0)} µs a command), ${(mean('plan', 'cpuMs') / mean('function', 'cpuMs')).toFixed(2)}x the function node's burst`,
    );
  } finally {
    await red.stop();
    await sim.close();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
