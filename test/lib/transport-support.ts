// Real servers on loopback for the transport tests: a forward proxy (plain http requests
// and CONNECT tunnels, or CONNECT only), an https server with a self-signed certificate
// made for the test by openssl, and a server that records what it was sent.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

export interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface TestServer {
  url: string;
  port: number;
  seen: Seen[];
  close(): Promise<void>;
}

/** Where a host:port asked for really is: test host names resolve only through this. */
export type HostMap = (host: string, port: number) => { host: string; port: number } | null;

function listen(server: http.Server, onClose: () => void = () => undefined): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        close: () => {
          onClose();
          for (const s of sockets) s.destroy();
          return new Promise<void>((r) => server.close(() => r()));
        },
      }),
    ),
  );
}

/**
 * A forward proxy. `connectOnly`: plain requests get 405, as proxies that only tunnel do.
 * `auth`: the `user:password` it wants in Proxy-Authorization, else 407.
 */
export async function startProxy(map: HostMap, opts: { connectOnly?: boolean; auth?: string } = {}): Promise<TestServer> {
  const seen: Seen[] = [];
  const tunnels = new Set<net.Socket>();
  const authorised = (headers: http.IncomingHttpHeaders) =>
    !opts.auth || headers['proxy-authorization'] === `Basic ${Buffer.from(opts.auth).toString('base64')}`;
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    if (opts.connectOnly) return void res.writeHead(405).end('CONNECT only');
    if (!authorised(req.headers)) return void res.writeHead(407, { 'Proxy-Authenticate': 'Basic realm="test"' }).end();
    const target = new URL(req.url ?? '');
    const to = map(target.hostname, Number(target.port) || 80);
    if (!to) return void res.writeHead(502).end('unknown host');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    const upstream = http.request(
      { host: to.host, port: to.port, path: target.pathname + target.search, method: req.method, headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    upstream.end();
  });
  server.on('connect', (req: http.IncomingMessage, socket: net.Socket) => {
    seen.push({ method: 'CONNECT', url: req.url ?? '', headers: req.headers });
    socket.on('error', () => undefined);
    if (!authorised(req.headers)) return void socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n');
    const [host, port] = (req.url ?? '').split(':');
    const to = map(host, Number(port));
    if (!to) return void socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    const upstream = net.connect(to.port, to.host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    tunnels.add(upstream);
    upstream.on('error', () => socket.destroy());
    upstream.on('close', () => tunnels.delete(upstream));
  });
  const { port, close } = await listen(server, () => tunnels.forEach((t) => t.destroy()));
  return { url: `http://127.0.0.1:${port}`, port, seen, close };
}

/** A self-signed certificate for `hostname`, made by openssl in a temporary directory. */
export function selfSignedCertificate(hostname: string): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'easy-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${hostname}`,
      ].concat(['-addext', `subjectAltName=DNS:${hostname}`, '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')]),
      { stdio: 'ignore' },
    );
    return { key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A server (https with `tls`) that records each request and answers with `handler`. */
export async function startRecorder(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  tls?: { key: string; cert: string },
): Promise<TestServer> {
  const seen: Seen[] = [];
  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    handler(req, res);
  };
  const server = tls ? https.createServer(tls, handle) : http.createServer(handle);
  const { port, close } = await listen(server);
  return { url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`, port, seen, close };
}

/** Answers by asking `upstream` (the simulator) the same path with the same headers: an https front for it. */
export function relayTo(upstream: string): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (req, res) => {
    const headers = { ...req.headers };
    delete headers.host;
    const up = http.request(`${upstream}${req.url}`, { headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    up.end();
  };
}

/** Runs `fn` with these environment variables set (undefined: removed), then puts them back. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T> | T): Promise<T> {
  const saved = new Map(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Every proxy variable cleared, so the machine's own settings cannot leak into a test. */
export const NO_PROXY_ENV: Record<string, undefined> = Object.fromEntries(
  ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY', 'no_proxy', 'NO_PROXY'].map((k) => [k, undefined]),
);
