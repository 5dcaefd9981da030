'use strict';
// npm start: the simulator plus an embedded Node-RED with this package and every flow in
// examples/ deployed as the demo, all on loopback. Ctrl-C stops both. The dashboard
// example's page is served by Dashboard 2 (@flowfuse/node-red-dashboard, a devDependency
// of this repository, never of the package), which Node-RED finds beside itself in
// node_modules.
//
//   PORT      the editor's port (default 1880)
//   SIM_PORT  the simulator's port (default: any free one)
//   DEMO_DIR  the demo's Node-RED user directory (default .demo/ in this checkout)
//
// The demo's Node-RED lives in .demo/ (git-ignored): its flows are rewritten from
// examples/ on every start (the account pointed at this run's simulator), its context
// (cost totals, last good tariffs) is kept on disk between runs.

const fs = require('fs');
const http = require('http');
const net = require('net');
const path = require('path');

const ROOT = path.join(__dirname, '..');
const EDITOR_SETTINGS = require('./editor-settings');
const { exampleFlows, encryptCredentials, dashboardPages } = require('./demo-flows');
const USER_DIR = process.env.DEMO_DIR ? path.resolve(process.env.DEMO_DIR) : path.join(ROOT, '.demo');
const HOST = '127.0.0.1';
const DEMO_TOKEN = 'demo-token';
/** Encrypts the demo's credentials file; for this demo only. */
const DEMO_CREDENTIAL_SECRET = 'node-red-easy-demo-only';
/** How long a stop may take before the process exits anyway. */
const STOP_GRACE_MS = 5000;
const pkg = require(path.join(ROOT, 'package.json'));

/** Makes this checkout an installed module of the demo's userDir, where Node-RED looks for nodes. */
function linkPackage() {
  const link = path.join(USER_DIR, 'node_modules', ...pkg.name.split('/'));
  fs.mkdirSync(path.dirname(link), { recursive: true });
  try {
    if (fs.realpathSync(link) === fs.realpathSync(ROOT)) return;
    fs.rmSync(link, { recursive: true, force: true });
  } catch {
    // no link yet
  }
  fs.symlinkSync(ROOT, link, 'junction');
}

/** The servers the records examples write to, on their default loopback ports (docs/examples.md). */
const EXAMPLE_SERVERS = [
  {
    port: 8086,
    what: 'InfluxDB',
    present: 'the InfluxDB example writes to it',
    missing: 'the InfluxDB example says why its writes fail under its debug node (apt-get install influxdb)',
  },
  {
    port: 1883,
    what: 'MQTT broker',
    present: 'the Home Assistant example publishes to it',
    missing: "the Home Assistant example's mqtt out node shows disconnected (apt-get install mosquitto)",
  },
];

/** Whether something accepts connections on a loopback port. */
function listening(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, HOST, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

async function main() {
  const { startSimulator } = require(path.join(ROOT, 'dist', 'sim', 'server.js'));
  const RED = require('node-red');

  // the demo account's zone is the machine's (its setting is empty): the simulated sun rises by that clock
  const { machineTimeZone } = require(path.join(ROOT, 'dist', 'nodes', 'lib', 'engine', 'time', 'time.js'));
  const sim = await startSimulator({ host: HOST, port: Number(process.env.SIM_PORT || 0), timezone: machineTimeZone() });
  fs.mkdirSync(USER_DIR, { recursive: true });
  linkPackage();
  const { flows, credentials } = exampleFlows(sim.url, DEMO_TOKEN);
  fs.writeFileSync(path.join(USER_DIR, 'flows.json'), JSON.stringify(flows, null, 2));
  // encrypted as Node-RED does (aes-256-ctr, key sha256 of the secret): no token in clear on disk
  fs.writeFileSync(path.join(USER_DIR, 'flows_cred.json'), JSON.stringify(encryptCredentials(credentials, DEMO_CREDENTIAL_SECRET)));

  const port = Number(process.env.PORT || 1880);
  // the editor and admin API first, then what flows serve (the dashboard), else 404
  const server = http.createServer((req, res) =>
    RED.httpAdmin(req, res, () =>
      RED.httpNode(req, res, () => {
        res.statusCode = 404;
        res.end();
      }),
    ),
  );
  RED.init(server, {
    userDir: USER_DIR,
    flowFile: 'flows.json',
    credentialSecret: DEMO_CREDENTIAL_SECRET,
    uiHost: HOST,
    uiPort: port,
    httpAdminRoot: '/',
    httpNodeRoot: '/',
    contextStorage: { default: { module: 'localfilesystem' } },
    logging: { console: { level: 'info', metrics: false, audit: false } },
    // a newcomer lands on the flows: no consent dialog, and nothing calls out for updates
    ...EDITOR_SETTINGS,
  });

  // Every socket, upgraded ones included: an open dashboard page holds a socket.io
  // websocket, which server.closeAllConnections() does not see (upgraded sockets leave the
  // server's bookkeeping), and its client reconnects while Node-RED stops.
  const sockets = new Set();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let stopping = null;
  const stop = () => {
    if (stopping) {
      console.log('Stopped at once.');
      process.exit(130); // a second Ctrl-C
    }
    stopping = (async () => {
      console.log('\nStopping Node-RED and the simulator… (Ctrl-C again to stop at once)');
      // whatever holds the process, it ends within STOP_GRACE_MS
      setTimeout(() => {
        console.error(`Still stopping after ${STOP_GRACE_MS / 1000} s: exiting anyway.`);
        process.exit(1);
      }, STOP_GRACE_MS).unref();
      const closed = new Promise((resolve) => server.close(() => resolve()));
      await RED.stop().catch((err) => console.error(err));
      for (const socket of sockets) socket.destroy();
      await closed;
      await sim.close();
      process.exit(0);
    })();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, resolve);
  });
  await RED.start();
  console.log(`\nSimulator of the easy API: ${sim.url} (token ${DEMO_TOKEN})`);
  console.log(`Node-RED editor with the demo flows: http://${HOST}:${port}/`);
  console.log('It opens on the Overview tab: "send the current values" fills the Debug sidebar.');
  for (const page of dashboardPages(flows)) console.log(`Dashboard page: http://${HOST}:${port}${page}`);
  for (const server of EXAMPLE_SERVERS) {
    const up = await listening(server.port);
    console.log(`${server.what} (${HOST}:${server.port}): ${up ? `listening; ${server.present}` : `not running; ${server.missing}`}.`);
  }
  console.log('Ctrl-C stops both.\n');
}

main().catch((err) => {
  console.error(err && err.code === 'EADDRINUSE' ? `Port in use: ${err.message} (set PORT or SIM_PORT)` : err);
  process.exit(1);
});
