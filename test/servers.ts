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

export interface RunningServer {
  port: number;
  stop(): Promise<void>;
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

function stopper(child: ChildProcess, dir: string): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      const done = () => {
        fs.rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGTERM');
    });
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
  const child = spawn(program, ['-config', conf], { stdio: 'ignore' });
  const stop = stopper(child, dir);
  try {
    await waitFor(async () => (await influxRequest(port, 'GET', '/ping')).status === 204, 'influxd');
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, stop };
}

/** Mosquitto: one anonymous listener on a free loopback port, nothing kept on disk. */
export async function startMosquitto(program: string): Promise<RunningServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'easy-mosquitto-'));
  const port = await freePort();
  const conf = path.join(dir, 'mosquitto.conf');
  fs.writeFileSync(conf, [`listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', ''].join('\n'));
  const child = spawn(program, ['-c', conf], { stdio: 'ignore' });
  const stop = stopper(child, dir);
  try {
    await waitFor(
      () =>
        new Promise<boolean>((resolve) => {
          const socket = net.connect(port, '127.0.0.1', () => {
            socket.destroy();
            resolve(true);
          });
          socket.on('error', () => resolve(false));
        }),
      'mosquitto',
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, stop };
}

/**
 * The real InfluxDB for the suite it is called in: started once (the suite skipped where it is
 * not installed), stopped after, and with `db` given, that database empty before each test.
 */
export function influxForSuite(db?: string): { readonly port: number } {
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
