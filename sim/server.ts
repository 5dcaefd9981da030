// The simulator of the "easy" API: a real HTTP server (Node's http only) on loopback that
// serves the demo account of ./demo-data and misbehaves on demand through fault switches.
// See sim/README.md for the routes, the tokens, the demo data and every fault switch.
import * as http from 'http';
import type { AddressInfo, Socket } from 'net';
import * as zlib from 'zlib';
import { DEMO_GATEWAY, archive, demoSensors, demoTariffs, findDemoSensor, sensorReading } from './demo-data';
import { DEFAULT_FAULTS, Endpoint, Faults, applyBodyFault, normaliseFaults } from './faults';
import { CSV_TYPE, Reply, Route, dataCsv, errorReply, jsonReply, parseRoute, parseUtcParam, sensorsCsv } from './routes';
import { ServedAnswers, answersJson, controlRefusal, readJsonBody, servedAnswers } from './control';

export type { Faults, Endpoint } from './faults';
export type { ServedAnswers } from './control';
export { isLoopback } from './control';

export interface TokenAccess {
  /** false: 403 on the tariffs endpoint, like an account without the tariffs feature. */
  tariffs: boolean;
}

export const DEMO_TOKENS: Record<string, TokenAccess> = {
  'demo-token': { tariffs: true },
  'demo-no-tariffs': { tariffs: false },
};

export interface SimulatorOptions {
  /** 0 (default) = any free port. */
  port?: number;
  /** Default 127.0.0.1: the simulator is for this machine only. */
  host?: string;
  /** The clock all demo values follow; inject it for deterministic tests. */
  now?: () => number;
  faults?: Partial<Faults>;
  /** Accepted tokens; default DEMO_TOKENS. */
  tokens?: Record<string, TokenAccess>;
  /** The tariffs answer, asked afresh for every request; default demoTariffs(). */
  tariffs?: () => unknown[];
  /** How many of the latest requests the log keeps; default DEFAULT_LOG_LIMIT. */
  logLimit?: number;
  /** The demo's zone: the solar export (e3.kwh) rises and sets by its wall clock; default UTC. */
  timezone?: string;
}

export interface RequestRecord {
  method: string;
  /** Path and query as requested. */
  path: string;
  endpoint: Endpoint | null;
  /** null when the connection was dropped without a response. */
  status: number | null;
  /** Wall-clock arrival time (Date.now(), not the injected clock), so retry spacing can be measured. */
  at: number;
}

export interface Simulator {
  url: string;
  port: number;
  faults(): Faults;
  setFaults(f: Partial<Faults>): void;
  clearFaults(): void;
  /** Serves these answers from now on (null: the demo account again). */
  setAnswers(a: ServedAnswers | null): void;
  requests: RequestRecord[];
  resetRequests(): void;
  close(): Promise<void>;
}

/** By default the request log keeps the latest this many requests. */
export const DEFAULT_LOG_LIMIT = 10_000;

/** Resolves when `res` can take more, or is gone. */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

const BOMB_MEMBER_BYTES = 1024 * 1024;
let bombMemberCache: Buffer | undefined;
/** One gzip member of 1 MiB of spaces (JSON whitespace), made once. */
function bombMember(): Buffer {
  bombMemberCache ??= zlib.gzipSync(Buffer.alloc(BOMB_MEMBER_BYTES, ' '), { level: 9 });
  return bombMemberCache;
}

/** The switches that count down the requests they still hit. */
type Countdown = 'drop' | 'rateLimit' | 'serverError' | 'bodyTimes';

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const now = opts.now ?? Date.now;
  const tokens = opts.tokens ?? DEMO_TOKENS;
  const logLimit = opts.logLimit ?? DEFAULT_LOG_LIMIT;
  const timezone = opts.timezone ?? 'UTC';
  demoSensors(timezone); // an unknown zone stops the start
  let faults: Faults = normaliseFaults({ ...DEFAULT_FAULTS, ...opts.faults });
  const requests: RequestRecord[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let served = servedAnswers(null);

  /** Whether a counted fault hits this request; a hit uses up one of its remaining requests. */
  function takes(key: Countdown): boolean {
    const left = faults[key];
    if (left === 'all') return true;
    if (left <= 0) return false;
    faults = { ...faults, [key]: left - 1 };
    return true;
  }

  function inScope(endpoint: Endpoint): boolean {
    return faults.scope === 'all' || (faults.scope as Endpoint[]).includes(endpoint);
  }

  function authorise(req: http.IncomingMessage): TokenAccess | Reply {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const unauthorized = (message: string) => errorReply(401, 'unauthorized', message, { 'WWW-Authenticate': 'Bearer realm="easy"' });
    if (!match) return unauthorized('Authorization header is missing or not "Bearer <token>"');
    const access = tokens[match[1]];
    if (!access || faults.revokedTokens.includes(match[1])) return unauthorized('access token is not valid');
    return access;
  }

  function answerApi(route: Route, url: URL, access: TokenAccess): Reply {
    const at = now();
    if (route.endpoint === 'tariffs') {
      if (!access.tariffs || faults.tariffsRemoved) return errorReply(403, 'forbidden', 'no access to the tariffs feature');
      if (route.unsupportedFormat) return errorReply(406, 'not_acceptable', 'CSV is not available for tariffs');
      return jsonReply(200, served.tariffs !== undefined ? served.tariffs : (opts.tariffs ?? demoTariffs)());
    }
    const gatewayId = route.gatewayId ?? '';
    if (route.endpoint === 'sensors' && served.sensors.has(gatewayId)) return jsonReply(200, served.sensors.get(gatewayId));
    const dataKey = `${gatewayId}/${route.sensorId ?? ''}`;
    if (route.endpoint === 'data' && served.data.has(dataKey)) return jsonReply(200, served.data.get(dataKey));
    if (route.gatewayId !== DEMO_GATEWAY || faults.removedGateways.includes(route.gatewayId)) {
      return errorReply(404, 'not_found', `gateway ${route.gatewayId} not found on this account`);
    }
    if (route.endpoint === 'sensors') {
      const rows = demoSensors(timezone).map((sensor) => sensorReading(sensor, at));
      const csv = route.format === 'csv' || faults.sensorsCsv;
      return csv ? { status: 200, body: sensorsCsv(rows), contentType: CSV_TYPE } : jsonReply(200, rows);
    }
    const sensor = findDemoSensor(route.sensorId ?? '', timezone);
    if (!sensor) return errorReply(404, 'not_found', `sensor ${route.sensorId} not found on gateway ${route.gatewayId}`);
    const from = parseUtcParam('from', url.searchParams.get('from'));
    const toParam = url.searchParams.get('to');
    const to = toParam === null ? at : parseUtcParam('to', toParam);
    if (typeof from === 'string') return errorReply(400, 'bad_request', from);
    if (typeof to === 'string') return errorReply(400, 'bad_request', to);
    if (to < from) return errorReply(400, 'bad_request', 'to is before from');
    // No data from the future.
    const rows = archive(sensor, from, Math.min(to, at));
    return route.format === 'csv' ? { status: 200, body: dataCsv(rows), contentType: CSV_TYPE } : jsonReply(200, rows);
  }

  async function answerControl(req: http.IncomingMessage, url: URL): Promise<Reply> {
    const refused = controlRefusal(req, url);
    if (refused) return refused;
    const route = `${req.method} ${url.pathname}`;
    try {
      if (route === 'GET /__sim/faults') return jsonReply(200, faults);
      if (route === 'POST /__sim/faults') {
        simulator.setFaults(await readJsonBody(req, {}));
        return jsonReply(200, faults);
      }
      if (route === 'POST /__sim/reset') {
        await readJsonBody(req, null);
        simulator.clearFaults();
        simulator.setAnswers(null);
        simulator.resetRequests();
        return jsonReply(200, faults);
      }
      if (route === 'GET /__sim/answers') return jsonReply(200, answersJson(served));
      if (route === 'POST /__sim/answers') {
        simulator.setAnswers(await readJsonBody(req, null));
        return jsonReply(200, answersJson(served));
      }
      if (route === 'GET /__sim/requests') return jsonReply(200, requests);
    } catch (err) {
      return errorReply(400, 'bad_request', (err as Error).message);
    }
    return errorReply(404, 'not_found', `no simulator control route ${route}`);
  }

  function send(res: http.ServerResponse, reply: Reply, record: RequestRecord | null): void {
    if (record) record.status = reply.status;
    const accepts = /\bgzip\b/i.test(String(res.req.headers['accept-encoding'] ?? ''));
    if (faults.gzip && accepts && reply.body !== '') {
      const body = zlib.gzipSync(reply.body);
      const headers = {
        'Content-Type': reply.contentType,
        'Content-Encoding': 'gzip',
        Vary: 'Accept-Encoding',
        'Content-Length': body.length,
      };
      res.writeHead(reply.status, { ...headers, ...reply.headers });
      res.end(body);
      return;
    }
    res.writeHead(reply.status, { 'Content-Type': reply.contentType, 'Content-Length': Buffer.byteLength(reply.body), ...reply.headers });
    res.end(reply.body);
  }

  /**
   * A 200 whose gzip body inflates to `inflated` bytes of spaces: gzip members of 1 MiB
   * each (~1 kB on the wire) sent one after another as the client takes them, so neither
   * side needs memory for it unless the client inflates what it reads.
   */
  async function gzipBomb(res: http.ServerResponse, reply: Reply, record: RequestRecord, inflated: number): Promise<void> {
    record.status = 200;
    res.writeHead(200, { 'Content-Type': reply.contentType, 'Content-Encoding': 'gzip' });
    const member = bombMember();
    for (let sent = 0; sent < inflated && !res.destroyed; sent += BOMB_MEMBER_BYTES) {
      if (!res.write(member)) await drained(res);
    }
    if (!res.destroyed) res.end();
  }

  function later(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    if (url.pathname.startsWith('/__sim/')) return send(res, await answerControl(req, url), null);

    const route = parseRoute(url.pathname, String(req.headers.accept ?? ''));
    const record: RequestRecord = {
      method: req.method ?? '',
      path: req.url ?? '',
      endpoint: route?.endpoint ?? null,
      status: null,
      at: Date.now(),
    };
    requests.push(record);
    // A demo left running for days must not grow without bound; tests never get near this.
    if (requests.length > logLimit) requests.splice(0, requests.length - logLimit);
    if (!route) return send(res, errorReply(404, 'not_found', `no such endpoint ${url.pathname}`), record);
    if (req.method !== 'GET') return send(res, errorReply(405, 'method_not_allowed', 'only GET', { Allow: 'GET' }), record);

    const hit = inScope(route.endpoint);
    if (hit && faults.latencyMs > 0) await later(faults.latencyMs);
    if (hit && takes('drop')) {
      req.socket.destroy();
      return;
    }
    if (hit && takes('rateLimit')) {
      const retryAfter: Record<string, string> = faults.retryAfter === null ? {} : { 'Retry-After': String(faults.retryAfter) };
      return send(res, errorReply(429, 'rate_limited', 'too many requests', retryAfter), record);
    }
    if (hit && takes('serverError')) {
      return send(res, errorReply(faults.serverErrorStatus, 'server_error', 'simulated server error'), record);
    }
    if (hit && faults.redirectTo !== null) {
      return send(res, { status: 302, body: '', contentType: 'text/plain', headers: { Location: faults.redirectTo } }, record);
    }
    const access = authorise(req);
    if ('status' in access) return send(res, access, record);
    const reply = answerApi(route, url, access);
    if (reply.status === 200 && hit && faults.body === 'gzip-bomb' && takes('bodyTimes'))
      return gzipBomb(res, reply, record, faults.hugeBytes);
    if (reply.status === 200 && hit && faults.body !== null && takes('bodyTimes')) {
      const mangled = applyBodyFault(faults.body, route.endpoint, reply.body, reply.contentType === CSV_TYPE, faults.hugeBytes);
      if (mangled.cutAfter !== undefined) {
        // Announce the whole body, send part of it, then hang up: a link lost mid-transfer.
        record.status = 200;
        res.writeHead(200, { 'Content-Type': reply.contentType, 'Content-Length': Buffer.byteLength(reply.body) });
        res.write(reply.body.slice(0, mangled.cutAfter), () => res.destroy());
        return;
      }
      return send(res, { ...reply, body: mangled.body }, record);
    }
    if (hit && faults.trickleMs > 0) return trickle(res, reply, record, faults.trickleMs);
    send(res, reply, record);
  }

  /** Headers at once, then the body in pieces spread over `ms`. */
  async function trickle(res: http.ServerResponse, reply: Reply, record: RequestRecord, ms: number): Promise<void> {
    const pieces = 10;
    const body = Buffer.from(reply.body);
    record.status = reply.status;
    res.writeHead(reply.status, { 'Content-Type': reply.contentType, 'Content-Length': body.length, ...reply.headers });
    res.flushHeaders();
    for (let i = 0; i < pieces; i++) {
      // Wait first, so the last piece goes out at `ms`: the body is complete no earlier.
      await later(ms / pieces);
      // The client may have hung up (its deadline): stop writing to a closed socket.
      if (res.destroyed) return;
      res.write(body.subarray(Math.floor((i * body.length) / pieces), Math.floor(((i + 1) * body.length) / pieces)));
    }
    res.end();
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) send(res, errorReply(500, 'server_error', `simulator bug: ${err.message}`), null);
      else res.destroy();
    });
  });
  // Longer than clients' own idle timeouts (Node's agents: 5 s), so the client closes an idle
  // keep-alive socket first and never sends a request on one the server is closing.
  server.keepAliveTimeout = 30_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  const simulator: Simulator = {
    url: `http://${host}:${address.port}`,
    port: address.port,
    // A copy: changing what a test got back must not change the switches behind setFaults' back.
    faults: () => normaliseFaults({ ...faults }),
    setFaults(f) {
      faults = normaliseFaults({ ...faults, ...f });
    },
    clearFaults() {
      faults = normaliseFaults(DEFAULT_FAULTS);
    },
    setAnswers(a) {
      served = servedAnswers(a);
    },
    requests,
    resetRequests() {
      requests.length = 0;
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // Keep-alive sockets would hold server.close() open until they time out.
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return simulator;
}
