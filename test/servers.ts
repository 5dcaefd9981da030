// The real InfluxDB 1.x and Mosquitto (Debian's `influxdb` and `mosquitto`) started as
// plain processes on free loopback ports, with their data in a temporary folder, for
// npm run test:servers. Where a server is not installed its tests are skipped with a
// message, unless REQUIRE_SERVERS=1 (CI): then that is a failure.
import { spawn, ChildProcess, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as http from 'http';
import * as net from 'net';
import * as mqtt from 'mqtt';
import { freePort } from './free-port';
import { FlowNode, helper, quiet } from './nodes/flow-support';

export interface RunningServer {
  port: number;
  /** Stops the process and removes its data. */
  stop(): Promise<void>;
  /** Stops the process, keeping its data and port (an outage). */
  halt(): Promise<void>;
  /** Starts it again after halt(), on the same port with the same data; resolves once it answers. */
  resume(): Promise<void>;
}

/** The path of a server's program, or null (with the skip message printed, or a throw under REQUIRE_SERVERS=1). */
export function serverProgram(name: 'influxd' | 'mosquitto'): string | null {
  for (const dir of ['/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin']) {
    const file = path.join(dir, name);
    if (fs.existsSync(file)) return file;
  }
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  const words = `${name} is not installed (apt-get install -y ${name === 'influxd' ? 'influxdb' : 'mosquitto'})`;
  if (process.env.REQUIRE_SERVERS === '1') throw new Error(`${words}, and REQUIRE_SERVERS=1 asks for it`);
  console.log(`      skipped: ${words}`);
  return null;
}

function waitFor(check: () => Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const attempt = () =>
      check().then(
        (ok) =>
          ok ? resolve() : Date.now() > until ? reject(new Error(`${what} did not start within ${ms} ms`)) : setTimeout(attempt, 50),
        () => (Date.now() > until ? reject(new Error(`${what} did not start within ${ms} ms`)) : setTimeout(attempt, 50)),
      );
    attempt();
  });
}

function ended(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A server process run from `dir` (removed by stop), halted and resumed on its port: up once `ready()` holds. */
async function processServer(
  port: number,
  dir: string,
  what: string,
  spawnIt: () => ChildProcess,
  ready: () => Promise<boolean>,
): Promise<RunningServer> {
  let child = spawnIt();
  const server: RunningServer = {
    port,
    stop: async () => {
      await ended(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
    halt: () => ended(child),
    resume: async () => {
      child = spawnIt();
      await waitFor(ready, what);
    },
  };
  try {
    await waitFor(ready, what);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return server;
}

/** InfluxDB 1.x: HTTP API on a free loopback port, nothing else listening, no reporting home. */
export async function startInflux(program: string): Promise<RunningServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'easy-influx-'));
  const [port, rpc] = [await freePort(), await freePort()];
  const conf = path.join(dir, 'influxdb.conf');
  fs.writeFileSync(
    conf,
    [
      'reporting-enabled = false',
      `bind-address = "127.0.0.1:${rpc}"`,
      '[meta]',
      `  dir = "${dir}/meta"`,
      '[data]',
      `  dir = "${dir}/data"`,
      `  wal-dir = "${dir}/wal"`,
      '  query-log-enabled = false',
      '[monitor]',
      '  store-enabled = false',
      '[http]',
      `  bind-address = "127.0.0.1:${port}"`,
      '  log-enabled = false',
      '[continuous_queries]',
      '  enabled = false',
      '',
    ].join('\n'),
  );
  return processServer(
    port,
    dir,
    'influxd',
    () => spawn(program, ['-config', conf], { stdio: 'ignore' }),
    async () => (await influxRequest(port, 'GET', '/ping')).status === 204,
  );
}

/** Mosquitto: one anonymous listener on a free loopback port, nothing kept on disk (resumed, it has no retained message). */
export async function startMosquitto(program: string): Promise<RunningServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'easy-mosquitto-'));
  const port = await freePort();
  const conf = path.join(dir, 'mosquitto.conf');
  fs.writeFileSync(conf, [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', ''].join('\n'));
  return processServer(
    port,
    dir,
    'mosquitto',
    () => spawn(program, ['-c', conf], { stdio: 'ignore' }),
    () =>
      new Promise<boolean>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      }),
  );
}

/**
 * The real InfluxDB for the suite it is called in: started once (the suite skipped where it is
 * not installed), stopped after, and with `db` given, that database empty before each test.
 */
export function influxForSuite(db?: string): { readonly port: number; readonly server: RunningServer } {
  const program = serverProgram('influxd');
  let influx: RunningServer | undefined;
  before(async function () {
    if (!program) return this.skip();
    influx = await startInflux(program);
  });
  after(async () => influx?.stop());
  if (db)
    beforeEach(async () => {
      const made = await influxRequest(influx!.port, 'POST', '/query', { q: `DROP DATABASE ${db}; CREATE DATABASE ${db}` });
      if (made.status !== 200) throw new Error(`InfluxDB did not make ${db} afresh: ${made.status}`);
    });
  return {
    get port() {
      return influx!.port;
    },
    get server() {
      return influx!;
    },
  };
}
/** One request to InfluxDB's HTTP API (form body for POST). */
export function influxRequest(port: number, method: 'GET' | 'POST', pathAndQuery: string, form?: Record<string, string>) {
  const body = form ? new URLSearchParams(form).toString() : '';
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: pathAndQuery,
        headers: form ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } : {},
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** An InfluxQL query (epoch=ms): the rows of its first series list, as objects with their tags. */
export async function influxQuery(port: number, db: string, q: string): Promise<Array<Record<string, unknown>>> {
  const res = await influxRequest(port, 'POST', '/query', { db, q, epoch: 'ms' });
  if (res.status !== 200) throw new Error(`influx query ${q}: HTTP ${res.status} ${res.body}`);
  const answer = JSON.parse(res.body) as {
    results: Array<{ error?: string; series?: Array<{ tags?: Record<string, string>; columns: string[]; values: unknown[][] }> }>;
  };
  const result = answer.results[0];
  if (result.error) throw new Error(`influx query ${q}: ${result.error}`);
  const rows: Array<Record<string, unknown>> = [];
  for (const s of result.series ?? [])
    for (const v of s.values) rows.push({ ...s.tags, ...Object.fromEntries(s.columns.map((c, i) => [c, v[i]])) });
  return rows;
}

/** The rows of a query once `count` have arrived (node-red-contrib-influxdb writes asynchronously), or what arrived after 10 s. */
export async function influxRows(port: number, db: string, q: string, count: number): Promise<Array<Record<string, unknown>>> {
  let got: Array<Record<string, unknown>> = [];
  for (let i = 0; i < 200; i++) {
    got = await influxQuery(port, db, q);
    if (got.length >= count) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return got;
}

/**
 * What a new subscriber to `topics` gets from the broker: the retained message of each topic,
 * as text (a live publish, not retained, is not counted). Complete when it returns: after
 * subscribing, the client publishes a marker to a topic of its own that it subscribed to as
 * well, and the broker hands that over after the subscription's retained messages.
 */
export async function retainedNow(port: number, topics: string[]): Promise<Map<string, string>> {
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0 });
  try {
    const marker = `easy-test/marker/${process.pid}/${Math.random().toString(36).slice(2)}`;
    const got = new Map<string, string>();
    let timer: NodeJS.Timeout | undefined;
    const end = new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the broker did not hand back the marker on ${marker} within 10 s`)), 10_000);
      client.on('message', (topic, payload, packet) => {
        if (topic === marker) resolve();
        else if (packet.retain) got.set(topic, payload.toString());
      });
    });
    await client.subscribeAsync([...topics, marker]);
    await client.publishAsync(marker, 'end');
    await end.finally(() => clearTimeout(timer));
    return got;
  } finally {
    await client.endAsync();
  }
}

/**
 * Fresh subscribers (retainedNow) until what is retained satisfies `ready` (the node's
 * publishes may still be on their way), or `limitMs` passed: then the last snapshot.
 */
export async function retainedWhen(
  port: number,
  topics: string[],
  ready: (seen: Map<string, string>) => boolean,
  limitMs = 15_000,
): Promise<Map<string, string>> {
  const started = Date.now();
  for (;;) {
    const seen = await retainedNow(port, topics);
    if (ready(seen) || Date.now() - started > limitMs) return seen;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * helper.load, with each of the test helper's own core nodes (catch, status, complete)
 * registered once: it registers one once per node of its type in the flow, and a flow with
 * two Catch nodes would register catch twice (an error).
 */
export async function loadFlowOnce(modules: unknown[], flow: unknown[], credentials: Record<string, unknown>): Promise<void> {
  const own = (helper as unknown as { _nodeModules: Record<string, (red: unknown) => unknown> })._nodeModules;
  const saved = { ...own };
  for (const [type, register] of Object.entries(saved)) {
    let done = false;
    own[type] = (red) => (done ? undefined : ((done = true), register(red)));
  }
  try {
    await helper.load(modules as never, flow as never, credentials as never);
  } finally {
    Object.assign(own, saved);
  }
}

/** node-red-contrib-influxdb's config node `influx`: InfluxDB 1.x on loopback `port`, database `db`. */
export function influxConfig(port: number, db: string): FlowNode {
  return { id: 'influx', type: 'influxdb', hostname: '127.0.0.1', port: String(port), database: db, influxdbVersion: '1.x' };
}

/**
 * Keep until written as docs/records.md wires it: a Complete (`written`) and a Catch
 * (`failed`) node scoped to the InfluxDB `writers`, both wired to `to` (the easy nodes, and
 * any helper node that should see them).
 */
export function confirmedBy(writers: string[], to: string[], failedTo = to): FlowNode[] {
  return [
    { id: 'written', type: 'complete', scope: writers, uncaught: false, wires: [to] },
    { id: 'failed', type: 'catch', scope: writers, uncaught: false, wires: [failedTo] },
  ];
}

/** Node-RED's `mqtt out` node `mq` (topic, QoS and retain from each message) and its broker node `b` on loopback `port`. */
export function mqttOut(port: number): FlowNode[] {
  return [
    { id: 'mq', type: 'mqtt out', topic: '', qos: '', retain: '', broker: 'b' },
    {
      id: 'b',
      type: 'mqtt-broker',
      broker: '127.0.0.1',
      port: String(port),
      clientid: '',
      protocolVersion: '4',
      keepalive: '60',
      cleansession: true,
    },
  ];
}

/** Until the broker node `b` is connected: what mqtt out gets before is not published. */
export async function brokerConnected(): Promise<void> {
  for (let i = 0; i < 200 && !(helper.getNode('b') as unknown as { connected: boolean }).connected; i++) await quiet(25);
}

/** A stream-mode easy-cost `c` of DEMO-FLAT: output 1 to a helper `out`, its records (`records`: the settings) to `to`. */
export function streamCost(records: Record<string, unknown>, to: string[]): FlowNode {
  return {
    id: 'c',
    type: 'easy-cost',
    account: 'acc',
    tariff: 'DEMO-FLAT',
    mode: 'stream',
    ...records,
    outputs: 3,
    wires: [['out'], [], to],
  };
}
