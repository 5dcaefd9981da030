// Restarts of a real Node-RED process with a localfilesystem context store (flush every
// second): after a SIGKILL the stream totals come back as the cost node last saved them
// (at most a minute old; readings are cumulative, so no energy is lost and the gap is one
// interval), the last good tariffs price while the service refuses,
// and a corrupt or empty context file neither stops Node-RED nor goes unmentioned.
import should from 'should';
import * as fs from 'fs';
import type { Simulator } from '../../sim/server';
import { canarySimulator, CANARY } from './support';
import { FLUSH_SECONDS, RedProcess } from './process-support';

const HOUR = 3600_000;
const T0 = Date.parse('2026-03-04T00:00:00Z');
const Z = 'rel-flow';

function flows(sim: Simulator): object[] {
  return [
    { id: Z, type: 'tab', label: 'reliability' },
    { id: 'acc', type: 'easy-account', name: 'rel', baseUrl: sim.url, timezone: 'UTC', credentials: { token: CANARY } },
    // POST /api/reading {value, ts} -> easy-cost (stream) -> the totals as the answer
    { id: 'in', z: Z, type: 'http in', url: '/reading', method: 'post', wires: [['cost']] },
    { id: 'cost', z: Z, type: 'easy-cost', account: 'acc', tariff: 'DEMO-FLAT', mode: 'stream', wires: [['res']] },
    { id: 'res', z: Z, type: 'http response', wires: [] },
    // the price, kept in memory only, answered at GET /api/price
    { id: 'tariff', z: Z, type: 'easy-tariff', account: 'acc', tariff: 'DEMO-FLAT', refresh: 60, wires: [['keep']] },
    { id: 'keep', z: Z, type: 'change', rules: [{ t: 'set', p: '#:(memory)::price', pt: 'flow', to: 'payload', tot: 'msg' }], wires: [] },
    { id: 'pin', z: Z, type: 'http in', url: '/price', method: 'get', wires: [['read']] },
    {
      id: 'read',
      z: Z,
      type: 'change',
      rules: [{ t: 'set', p: 'payload', pt: 'msg', to: '#:(memory)::price', tot: 'flow' }],
      wires: [['res2']],
    },
    { id: 'res2', z: Z, type: 'http response', wires: [] },
  ];
}

describe('reliability: restarts of a real Node-RED process', function () {
  this.timeout(60000);
  let sim: Simulator;
  let red: RedProcess;

  beforeEach(async () => {
    sim = await canarySimulator();
    red = new RedProcess();
  });
  afterEach(async () => {
    await red.dispose();
    await sim.close();
  });

  const reading = (k: number) => red.post('/api/reading', { value: 100 + k, ts: T0 + k * HOUR });
  const price = async () => (await red.get('/api/price')) ?? {};

  async function startWithTotals(count: number) {
    await red.start();
    await red.deploy(flows(sim));
    await red.waitFor(async () => (await price()).price === 0.25, 'the first price');
    for (let k = 1; k <= count; k++) await reading(k);
  }

  it('keeps totals and last good tariffs across a SIGKILL between saves: no energy lost, the gap one interval', async () => {
    await startWithTotals(5); // the first reading is saved at once, the next ones within a minute of it
    await new Promise((r) => setTimeout(r, FLUSH_SECONDS * 1000 + 700)); // the first save flushed
    const last = await reading(6); // not saved yet: killed between saves
    should(last.total).match({ energy: 5, intervals: 5 });
    await red.kill('SIGKILL');

    sim.setFaults({ tariffsRemoved: true }); // the service refuses tariffs after the restart
    await red.start();
    await red.waitFor(async () => (await price()).price !== undefined, 'a price after the restart');
    should(await price()).containEql({ price: 0.25, stale: true });

    const after = await reading(7);
    // a cumulative meter loses no energy, only the resolution of the readings since the last save
    should(after.total.energy).equal(6);
    should(after.total.net).equal(1.5); // 6 kWh at 0.25: exact
    should(after.total.intervals).be.within(1, 6);
    should(after.total.from).equal(new Date(T0 + HOUR).toISOString());
    should(red.output).not.match(/started from zero/);
  });

  it('a shutdown (SIGTERM) saves the totals as they are: nothing lost, not even the resolution', async () => {
    await startWithTotals(5); // readings 2 to 5 are not saved yet: the next save is a minute after the first
    await red.kill('SIGTERM');
    await red.start();
    await red.waitFor(async () => (await price()).price !== undefined, 'a price after the restart');
    const after = await reading(6);
    should(after.total).match({ energy: 5, intervals: 5, from: new Date(T0 + HOUR).toISOString() });
  });

  /** Runs until 3 readings are flushed, kills, rewrites the cost node's context file, starts again. */
  async function restartWithContextFile(content: string) {
    await startWithTotals(3);
    await new Promise((r) => setTimeout(r, FLUSH_SECONDS * 1000 + 700));
    await red.kill('SIGKILL');
    const files = red.contextFiles().filter((f) => fs.readFileSync(f, 'utf8').includes('"totals"'));
    should(files).have.length(1);
    fs.writeFileSync(files[0], content);
    await red.start();
  }

  for (const [name, content, words] of [
    [
      'unreadable totals',
      '{"totals": {"version": 1, "kept": "garbage"}}',
      /\[warn\] \[easy-cost:cost\] running totals started from zero: stored totals are unreadable/,
    ],
    ['an empty context file', '', /\[info\] \[easy-cost:cost\] running totals start from zero: none are stored/],
  ] as const) {
    it(`starts with ${name}, and the cost node says it started from zero`, async () => {
      await restartWithContextFile(content);
      const after = await reading(4);
      should(after.total).match({ energy: 0, intervals: 0, from: new Date(T0 + 4 * HOUR).toISOString() });
      should(red.output).match(words);
      should(red.output).not.containEql(CANARY);
    });
  }

  // Node-RED 4.1's cached localfilesystem store (what flushInterval needs) refuses to
  // start on a context file that is not JSON, before any node runs: no node package can
  // help there. Pinned so that a Node-RED that copes shows up here.
  it('a context file that is not JSON stops Node-RED itself (upstream limitation, pinned)', async () => {
    await should(restartWithContextFile('{"totals": {not json')).be.rejectedWith(
      /Error loading context store: .*Invalid JSON in context file/,
    );
  });
});
