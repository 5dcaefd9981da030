// A real Node-RED process whose wall clock the test steps while it runs, as NTP steps a Pi's:
// Debian's libfaketime (apt-get install faketime) preloaded with the offset read from a file
// at every clock read (FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE), the monotonic clock left
// alone (FAKETIME_DONT_FAKE_MONOTONIC), so timers keep real time as they do through a real
// step. Within seconds of a step forward and back, easy-tariff's price is the one of the new
// clock and easy-sensors polls on at its pace. Skipped with a message where libfaketime is
// not installed, unless REQUIRE_FAKETIME=1 (CI installs it: then that is a failure).
import should from 'should';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Simulator } from '../../sim/server';
import { canarySimulator, CANARY } from './support';
import { RedProcess } from './process-support';
import { LOOK_EVERY_MS } from '../../nodes/lib/engine/time/clock-steps';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const Z = 'clock-flow';
/** A step is seen at the heartbeat's next look; then a price is sent and read over HTTP. */
const SEEN_WITHIN_MS = LOOK_EVERY_MS + 3000;
const LIBFAKETIME = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib/arm-linux-gnueabihf', '/usr/lib']
  .map((dir) => path.join(dir, 'faketime', 'libfaketimeMT.so.1'))
  .find((file) => fs.existsSync(file));

/** hh:mm (UTC) of an instant. */
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

function flows(sim: Simulator, cheapFrom: number): object[] {
  return [
    { id: Z, type: 'tab', label: 'clock steps' },
    { id: 'acc', type: 'easy-account', name: 'clock', baseUrl: sim.url, timezone: 'UTC', credentials: { token: CANARY } },
    { id: 'tariff', z: Z, type: 'easy-tariff', account: 'acc', tariff: 'STEPS', refresh: 60, wires: [['keep']] },
    { id: 'keep', z: Z, type: 'change', rules: [{ t: 'set', p: '#:(memory)::price', pt: 'flow', to: 'payload', tot: 'msg' }], wires: [] },
    { id: 'pin', z: Z, type: 'http in', url: '/price', method: 'get', wires: [['read']] },
    {
      id: 'read',
      z: Z,
      type: 'change',
      rules: [{ t: 'set', p: 'payload', pt: 'msg', to: '#:(memory)::price', tot: 'flow' }],
      wires: [['res']],
    },
    { id: 'res', z: Z, type: 'http response', wires: [] },
    { id: 'sensors', z: Z, type: 'easy-sensors', account: 'acc', gateway: 'DEMO', interval: 10, output: 'all', wires: [[]] },
    // the tariff's cheap hours, 2 h to 4 h after the test began (UTC)
    { id: 'note', z: Z, type: 'comment', name: `cheap ${hhmm(cheapFrom)}-${hhmm(cheapFrom + 2 * HOUR)}` },
  ];
}

describe('reliability: a real Node-RED whose clock is stepped (libfaketime)', function () {
  this.timeout(120_000);
  let sim: Simulator;
  let red: RedProcess;
  let offsetFile: string;

  before(function () {
    if (LIBFAKETIME) return;
    if (process.env.REQUIRE_FAKETIME === '1')
      throw new Error('libfaketime is not installed (apt-get install faketime) and REQUIRE_FAKETIME=1');
    console.log('      libfaketime is not installed (apt-get install faketime): the clock-step process test is skipped');
    this.skip();
  });

  afterEach(async () => {
    await red?.dispose();
    await sim?.close();
    fs.rmSync(offsetFile, { force: true });
  });

  it('the price of the new clock and polls at their pace within seconds of a step forward 3 days and back 2 hours', async () => {
    const began = Date.now();
    const cheapFrom = Math.ceil((began + 2 * HOUR) / 60_000) * 60_000;
    const tariff = {
      id: 'STEPS',
      name: 'steps',
      vat: 0,
      currency: 'EUR',
      rules: [
        { priority: 1, price: 0.1, time_start: hhmm(cheapFrom), time_end: hhmm(cheapFrom + 2 * HOUR) },
        { priority: 2, price: 0.3 },
      ],
    };
    sim = await canarySimulator({ tariffs: () => [tariff] });
    offsetFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'easy-clock-')), 'offset');
    const offset = (ms: number) => fs.writeFileSync(offsetFile, `${ms >= 0 ? '+' : ''}${Math.round(ms / 1000)}\n`);
    offset(0);
    red = new RedProcess({
      env: {
        LD_PRELOAD: LIBFAKETIME!,
        FAKETIME_TIMESTAMP_FILE: offsetFile,
        FAKETIME_NO_CACHE: '1',
        FAKETIME_DONT_FAKE_MONOTONIC: '1',
      },
    });
    await red.start(60_000);
    await red.deploy(flows(sim, cheapFrom));
    const price = async () => ((await red.get('/api/price')) ?? {}).price;
    const polls = () => sim.requests.filter((r) => r.endpoint === 'sensors').length;
    await red.waitFor(async () => (await price()) === 0.3, 'the first price (dear)', 20_000);
    await red.waitFor(() => polls() >= 2, 'two polls', 30_000);

    // forward 3 days and 3 hours: inside the cheap hours (the timer armed on the old clock is 2 h away)
    offset(3 * DAY + 3 * HOUR);
    let stepped = Date.now();
    await red.waitFor(async () => (await price()) === 0.1, 'the cheap price after the step forward', SEEN_WITHIN_MS);
    should(Date.now() - stepped).be.below(SEEN_WITHIN_MS);
    const afterForward = polls();
    await new Promise((r) => setTimeout(r, 21_000));
    should(polls() - afterForward).be.within(1, 3); // every 10 s: no burst, no stop

    // back 2 hours: dear again (the next change, armed on the clock that was ahead, is a day away)
    offset(3 * DAY + HOUR);
    stepped = Date.now();
    await red.waitFor(async () => (await price()) === 0.3, 'the dear price after the step back', SEEN_WITHIN_MS);
    should(Date.now() - stepped).be.below(SEEN_WITHIN_MS);
    const afterBack = polls();
    await new Promise((r) => setTimeout(r, 21_000));
    should(polls() - afterBack).be.within(1, 3); // a step back of 2 h stops no poll
    should(red.output).not.match(/Error|error:/);
  });
});
