// The bounds on the package's timers, in the real runtime with a fake clock (real HTTP to
// the simulator): easy-tariff's refresh is at least a minute, easy-sensors' interval between
// 10 s and a day; a value from the flow outside them is clamped with one warning, and no
// value makes a request storm (a timer beyond 2^31-1 ms used to fire at once).
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import type { Simulator } from '../../sim/server';
import easySensors = require('../../nodes/easy-sensors');
import easyTariff = require('../../nodes/easy-tariff');
import { boundedSetting, SENSOR_INTERVAL, TARIFF_REFRESH } from '../../nodes/lib/runtime/common/node-settings';
import { accountNode, FakeClock, GATEWAY, helper, inbox, installClock, loadFlow, quiet, withSimulator } from './flow-support';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe('timer bounds', function () {
  this.timeout(30000);
  let sim: Simulator;
  let clock: FakeClock | null = null;

  beforeEach(async () => {
    sim = await withSimulator();
    clock = installClock();
  });
  afterEach(async () => {
    clock?.uninstall();
    clock = null;
    await helper.unload();
    await sim.close();
  });

  const count = (endpoint: string) => sim.requests.filter((r) => r.endpoint === endpoint).length;
  const warnings = (id: string): string[] => (helper.getNode(id) as any).warn.getCalls().map((c: any) => String(c.args[0]));

  /** Ticks the fake clock a step at a time, letting the requests each step starts reach the simulator. */
  async function advance(ms: number, step: number): Promise<void> {
    for (let t = 0; t < ms; t += step) {
      await clock!.tickAsync(Math.min(step, ms - t));
      await quiet(5);
    }
  }

  it('easy-tariff refresh 0.001 min: clamped to 1 min with one warning, at most one tariffs request a minute', async () => {
    await loadFlow(
      [easyTariff],
      [
        accountNode(sim, 'UTC'),
        { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-FLAT', refresh: 0.001, wires: [['out']] },
        { id: 'out', type: 'helper' },
      ],
    );
    await inbox('out').next(1);
    await advance(5 * MINUTE, 10_000);
    should(count('tariffs')).be.within(5, 6); // the first, then one a minute
    should(warnings('t')).eql(['refresh 0.001 min is below the minimum: refreshing every 1 min']);
  });

  it('easy-tariff refresh beyond a week: clamped to a week, with one warning', async () => {
    await loadFlow(
      [easyTariff],
      [
        accountNode(sim, 'UTC'),
        { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-FLAT', refresh: 1e12, wires: [['out']] },
        { id: 'out', type: 'helper' },
      ],
    );
    await inbox('out').next(1);
    await advance(6 * DAY, DAY / 4);
    should(count('tariffs')).equal(1);
    await advance(DAY - MINUTE, DAY / 4);
    should(count('tariffs')).equal(1);
    await advance(2 * MINUTE, 1000);
    should(count('tariffs')).equal(2);
    should(warnings('t')).eql(['refresh 1000000000000 min is above the maximum: refreshing every 10080 min']);
  });

  it('easy-sensors interval of 10 days: clamped to a day with one warning, no poll storm (its watchdog would pass 2^31 ms)', async () => {
    await loadFlow(
      [easySensors],
      [
        accountNode(sim, 'UTC'),
        {
          id: 's',
          type: 'easy-sensors',
          account: 'acc',
          gateway: GATEWAY,
          interval: 864000,
          output: 'all',
          onlyChanged: false,
          sensors: '',
          wires: [['out']],
        },
        { id: 'out', type: 'helper' },
      ],
    );
    await inbox('out').next(1);
    await advance(10 * MINUTE, MINUTE);
    should(count('sensors')).equal(1);
    // big steps while nothing is due, then small ones: a request in flight must not see its deadline pass in one step
    await advance(DAY - 12 * MINUTE, DAY / 8);
    should(count('sensors')).equal(1);
    await advance(4 * MINUTE, 1000);
    should(count('sensors')).equal(2);
    should(warnings('s')).eql(['interval 864000 s is above the maximum: polling every 86400 s']);
  });

  it('bounds and fallbacks of the settings themselves', () => {
    should(boundedSetting('0.5', TARIFF_REFRESH)).eql({
      value: 1,
      warning: 'refresh 0.5 min is below the minimum: refreshing every 1 min',
    });
    should(boundedSetting(30, TARIFF_REFRESH)).eql({ value: 30, warning: null });
    for (const missing of [undefined, null, '', 'soon', 0, -5, NaN, Infinity, {}, [5]]) {
      should(boundedSetting(missing, SENSOR_INTERVAL)).eql({ value: 60, warning: null });
    }
    should(boundedSetting(10, SENSOR_INTERVAL)).eql({ value: 10, warning: null });
    should(boundedSetting(86400, SENSOR_INTERVAL)).eql({ value: 86400, warning: null });
    should(boundedSetting(86401, SENSOR_INTERVAL).value).equal(86400);
  });

  it('the editor refuses the same out-of-range values (the validate functions of the html)', () => {
    const defaultsOf = (type: string): Record<string, { validate?: (v: unknown) => boolean }> => {
      const html = fs.readFileSync(path.join(__dirname, '..', '..', 'nodes', `${type}.html`), 'utf8');
      const script = /<script type="text\/javascript">([\s\S]*?)<\/script>/.exec(html)![1];
      let def: any;
      // the editor's own number validator: a finite number or numeric text
      const RED = {
        nodes: { registerType: (_t: string, d: unknown) => (def = d) },
        validators: { number: () => (v: unknown) => String(v).trim() !== '' && !isNaN(Number(v)) },
      };
      new Function('RED', '$', script)(RED, () => undefined);
      return def.defaults;
    };
    const refresh = defaultsOf('easy-tariff').refresh.validate!;
    for (const ok of [1, 60, '15', 10080]) should(refresh(ok)).be.true(String(ok));
    for (const bad of [0.001, 0, -1, 10081, 'x', '']) should(refresh(bad)).be.false(String(bad));
    const interval = defaultsOf('easy-sensors').interval.validate!;
    for (const ok of [10, 60, '300', 86400]) should(interval(ok)).be.true(String(ok));
    for (const bad of [9, 0, 864000, 'x', '']) should(interval(bad)).be.false(String(bad));
  });

  it('the package has no raw setTimeout or setInterval: every timer is a DeadlineTimer or a PaceTimer (long-timer.ts)', () => {
    const root = path.join(__dirname, '..', '..', 'nodes');
    const files = fs
      .readdirSync(root, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('long-timer.ts') && !f.endsWith('clock-steps.ts'));
    should(files.length).be.above(10);
    for (const file of files) {
      const code = fs.readFileSync(path.join(root, file), 'utf8').replace(/\/\/.*$/gm, '');
      should(code).not.match(/\bset(Timeout|Interval)\s*\(/, file);
    }
  });
});
