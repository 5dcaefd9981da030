'use strict';
// What the process benches (bench:pi, bench:footprint) read of a spawned Node-RED: a free
// loopback port to start it on, and the CPU time it has used from /proc.
const { execFileSync } = require('child_process');
const fs = require('fs');
const net = require('net');

/** Linux's USER_HZ, the unit of /proc/<pid>/stat times. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A port on 127.0.0.1 nothing listens on now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** CPU time (user + system) the process has used so far, in ms; throws where /proc is missing. */
function cpuMs(pid) {
  // fields after the command name (which may hold spaces): utime and stime are 14 and 15
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

module.exports = { freePort, cpuMs };
