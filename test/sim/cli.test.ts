import should from 'should';
import * as path from 'path';
import { spawn } from 'child_process';
import { DEFAULT_PORT, parseCli } from '../../sim/cli';
import { request } from './helpers';

const ROOT = path.join(__dirname, '..', '..');

describe('simulator: command line', () => {
  describe('parseCli', () => {
    it('defaults to loopback, port 8787 and no faults', () => {
      should(parseCli([], {})).eql({ port: DEFAULT_PORT, host: '127.0.0.1', faults: {} });
      should(DEFAULT_PORT).equal(8787);
    });

    it('reads --port, --host and fault switches as kebab-case flags, with a space or =', () => {
      const options = parseCli(
        [
          '--port',
          '0',
          '--host=::1',
          '--latency-ms',
          '200',
          '--scope=tariffs,data',
          '--tariffs-removed',
          '--drop',
          'all',
          '--retry-after',
          'Wed, 06 Mar 2024 14:09:00 GMT',
        ],
        {},
      );
      should(options).eql({
        port: 0,
        host: '::1',
        faults: {
          latencyMs: 200,
          scope: ['tariffs', 'data'],
          tariffsRemoved: true,
          drop: 'all',
          retryAfter: 'Wed, 06 Mar 2024 14:09:00 GMT',
        },
      });
    });

    it('reads the environment, flags winning over it', () => {
      const env = { EASY_SIM_PORT: '9100', EASY_SIM_HOST: '127.0.0.2', EASY_SIM_FAULTS: '{"rateLimit":2,"latencyMs":50}' };
      should(parseCli(['--latency-ms', '10'], env)).eql({ port: 9100, host: '127.0.0.2', faults: { rateLimit: 2, latencyMs: 10 } });
    });

    it('refuses a stray argument, a bad port and a bad fault switch, naming them', () => {
      should(() => parseCli(['8787'], {})).throw(/unexpected argument 8787/);
      should(() => parseCli(['--port', 'http'], {})).throw(/bad port/);
      should(() => parseCli(['--port', '70000'], {})).throw(/bad port/);
      should(() => parseCli(['--drop', 'lots'], {})).throw(/fault drop/);
      should(() => parseCli(['--lag', '5'], {})).throw(/fault lag: unknown switch/);
    });
  });

  it('starts a simulator that prints its URL and tokens, applies flags and exits on SIGTERM', async function () {
    this.timeout(20_000);
    const child = spawn(process.execPath, ['-r', 'ts-node/register', path.join('sim', 'cli.ts'), '--port', '0', '--rate-limit', '1'], {
      cwd: ROOT,
      env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true', TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (match && output.includes('tokens:')) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`cli exited with ${code} before listening: ${output}`)));
      });
      should(output).containEql('demo-token').and.containEql('demo-no-tariffs');
      should(output).containEql('on for the first 5 minutes of every 15');
      should((await request(url, '/easy/v1/tariffs.json')).status).equal(429);
      should((await request(url, '/easy/v1/tariffs.json')).status).equal(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      should(await exited).equal(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
