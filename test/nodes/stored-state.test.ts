// Stored state read back as data from outside (docs/semantics.md, "Stored state"): forged
// values in every node's context store, put there while the real runtime is stopped and
// read back through a localfilesystem store at its start. Each must give no crash and no
// "Invalid time value" or "Cannot read properties", one warning naming what was dropped,
// and a node that works afterwards.
import should from 'should';
import type { Simulator } from '../../sim/server';
import { DEMO_TARIFFS } from '../../sim/demo-data';
import { addReading, newTotals, TotalsState } from '../../nodes/lib/engine/cost/totals';
import { plainTotals } from '../../nodes/lib/engine/cost/stored-totals';
import { encodeStored } from '../../nodes/lib/runtime/cost/stream-store';
import easyCost = require('../../nodes/easy-cost');
import easyTariff = require('../../nodes/easy-tariff');
import easyPlan = require('../../nodes/easy-plan');
import { accountNode, catchNodes, FileContext, FlowNode, helper, inbox, loadFlow, quiet, warnings, withSimulator } from './flow-support';

const MIN = 60_000;
const HOUR = 60 * MIN;
const YEAR = 366 * 24 * HOUR;
/** What no forged value may ever give: a crash's words. */
const CRASH = /Invalid time value|Cannot read properties|is not a function|is not iterable|Maximum call stack/;

/** Own "__proto__" keys, as JSON.parse makes them (an object literal would set the prototype). */
const withProto = (json: string) => JSON.parse(json);

describe('stored state read back as data from outside (real runtime, localfilesystem store)', function () {
  this.timeout(60_000);
  let sim: Simulator;
  let context: FileContext;

  beforeEach(async () => {
    sim = await withSimulator();
    context = new FileContext('easy-stored-');
  });

  afterEach(async () => {
    await context.unload();
    await sim.close();
  });

  /** Loads `nodes` with the account and Catch, runs until `ready`, then restarts with `key` of node `id` set to `forged`. */
  async function restartForged(
    modules: unknown[],
    nodes: FlowNode[],
    id: string,
    key: string,
    forged: unknown,
    ready?: () => Promise<void>,
  ) {
    await loadFlow([...modules, context.use()], [{ ...accountNode(sim, 'UTC'), timeoutMs: 2000 }, ...nodes, ...catchNodes()]);
    await ready?.();
    const store = helper.getNode(id).context();
    await context.restart(
      () => new Promise<void>((resolve, reject) => store.set(key, forged, (err: Error | undefined) => (err ? reject(err) : resolve()))),
    );
    return { caught: inbox('caught') };
  }

  /** Nothing at Catch, and no warning anywhere, reads like a crash. */
  function noCrash(caught: { received: Array<Record<string, any>> }, ids: string[]) {
    for (const m of caught.received) should(String(m.error?.message)).not.match(CRASH);
    for (const id of ids) for (const w of warnings(id)) should(w).not.match(CRASH);
  }

  describe("easy-account's last good tariffs (priced from while the service refuses)", () => {
    const tariffs = JSON.parse(JSON.stringify(DEMO_TARIFFS));
    const good = () => ({ fetchedAt: Date.now() - HOUR, tariffs, problems: [] });
    const problem = { severity: 'warning', tariffId: null, ruleIndex: null, field: null, message: 'm' };
    const cases: Array<[string, () => unknown, RegExp, boolean]> = [
      [
        'fetchedAt huge',
        () => ({ ...good(), fetchedAt: 1e300 }),
        /^stored tariffs: dropped the fetch time \(1e\+300, not an instant near now\)/,
        true,
      ],
      ['fetchedAt 2 years ahead', () => ({ ...good(), fetchedAt: Date.now() + 2 * YEAR }), /dropped the fetch time \(20\d\d-/, true],
      ['fetchedAt text', () => ({ ...good(), fetchedAt: 'yesterday' }), /dropped the fetch time \("yesterday"/, true],
      ['fetchedAt NaN (null in JSON)', () => ({ ...good(), fetchedAt: NaN }), /dropped the fetch time \(null/, true],
      ['fetchedAt far back', () => ({ ...good(), fetchedAt: -1e15 }), /dropped the fetch time/, true],
      ['problems with null', () => ({ ...good(), problems: [null, { severity: 'error' }, problem] }), /dropped 2 of 3 problems/, true],
      ['problems not a list', () => ({ ...good(), problems: 'x' }), /dropped the problems \(not a list\)/, true],
      ['50,000 problems', () => ({ ...good(), problems: Array(50_000).fill(problem) }), /dropped 49899 of 50000 problems/, true],
      [
        'tariffs with garbage',
        () => ({ ...good(), tariffs: [null, 5, ...tariffs] }),
        /dropped 2 of \d+ tariffs that break the interface/,
        true,
      ],
      [
        '5,000 tariffs',
        () => ({ ...good(), tariffs: [...tariffs, ...Array(5000 - tariffs.length).fill(tariffs[0])] }),
        /dropped 4900 tariffs beyond the 100 an answer gives/,
        true,
      ],
      [
        '__proto__ keys (a good fetch time there, a bad one of its own)',
        () => withProto(`{"__proto__": {"fetchedAt": ${Date.now() - HOUR}}, "fetchedAt": "x", "tariffs": ${JSON.stringify(tariffs)}}`),
        /^stored tariffs: dropped the fetch time \("x", not an instant near now\)/,
        true,
      ],
      ['not an object', () => 42, /^stored tariffs: dropped everything: not the shape the account stores$/, false],
    ];
    for (const [name, forged, said, prices] of cases) {
      it(`${name}: one warning, ${prices ? 'prices from them' : 'no price, no crash'}`, async () => {
        const price = { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-FLAT', refresh: 60, wires: [['out']] };
        const { caught } = await restartForged(
          [easyTariff],
          [price, { id: 'out', type: 'helper' }],
          'acc',
          'lastGoodTariffs',
          { baseUrl: sim.url, lastGood: forged() },
          async () => {
            await inbox('out').next(1);
            sim.setFaults({ tariffsRemoved: true }); // the restarted account must price from the store
          },
        );
        const out = inbox('out');
        if (prices) {
          const [msg] = await out.next(1, 10_000);
          should(msg.payload).match({ price: 0.25, stale: true });
        } else {
          await quiet(2500);
          should(out.received.filter((m) => typeof m.payload?.price === 'number')).be.empty();
        }
        should(warnings('acc')).have.length(1);
        should(warnings('acc')[0]).match(said);
        noCrash(caught, ['acc', 't']);
      });
    }
  });

  describe("easy-tariff's last known sensor values", () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['not a list', 'x', /^stored sensor values: dropped everything: not a list of sensor values$/],
      [
        'garbage entries',
        [null, 5, { gatewayId: 'DEMO', sensorId: '1', value: 'NaN' }, { gatewayId: 'DEMO', sensorId: '1', value: 1 }],
        /dropped 3 of 4 entries/,
      ],
      ['__proto__ keys', [withProto('{"__proto__": {"value": 1}, "gatewayId": "DEMO", "sensorId": "1"}')], /dropped 1 of 1 entries/],
      ['5,000 entries', Array(5000).fill({ gatewayId: 'DEMO', sensorId: '1', value: 1 }), /dropped 4000 values beyond the 1000 kept/],
      ['an id too long', [{ gatewayId: 'D'.repeat(5000), sensorId: '1', value: 1 }], /dropped 1 of 1 entries/],
    ];
    for (const [name, forged, said] of cases) {
      it(`${name}: one warning, and it prices from the polled sensor`, async () => {
        const price = { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'DEMO-GENERATOR', refresh: 60, wires: [['out']] };
        const { caught } = await restartForged(
          [easyTariff],
          [price, { id: 'out', type: 'helper' }],
          't',
          'lastKnownSensors',
          forged,
          async () => {
            await inbox('out').next(1, 10_000);
          },
        );
        const [msg] = await inbox('out').next(1, 10_000);
        should(msg.payload.price).be.a.Number();
        should(warnings('t')).have.length(1);
        should(warnings('t')[0]).match(said);
        noCrash(caught, ['acc', 't']);
      });
    }
  });

  describe("easy-cost's running totals (stream mode)", () => {
    const flat = (a: { value: number }, b: { value: number }) => {
      const energy = b.value - a.value;
      return { energy, net: energy * 0.25, gross: energy * 0.3, unpricedEnergy: 0, resets: 0 };
    };
    /** A meter's totals over `count` readings `stepMs` apart, 0.01 kWh each, ending an hour ago. */
    const counted = (count: number, stepMs = MIN): TotalsState => {
      let t = newTotals('UTC', 'DEMO-FLAT');
      const first = Date.now() - HOUR - count * stepMs;
      for (let i = 0; i < count; i++) t = addReading(t, { ts: first + i * stepMs, value: 100 + i / 100 }, flat, count, true).state;
      return t;
    };
    const store = (meters: Array<{ topic: string | null; totals: TotalsState }>) =>
      encodeStored(
        meters.map((m) => ({ gateway: null, ...m })),
        { timezone: 'UTC', tariffId: 'DEMO-FLAT' },
      ) as { meters: string[] };
    /** The stored line of one meter with field `k` replaced. */
    const edited = (fields: Record<number, unknown>) => {
      const s = store([{ topic: null, totals: counted(10) }]);
      const line = JSON.parse(s.meters[0]);
      for (const [k, value] of Object.entries(fields)) line[Number(k)] = value;
      return { ...s, meters: [JSON.stringify(line)] };
    };
    // one forged reading line of `readings` readings (short numbers: a 20,000-reading line is 280 kB)
    const hugeLine = (topic: string, readings: number) => {
      const first = Date.now() - 2 * YEAR;
      const flatReadings = [first, 1, ...Array(2 * (readings - 1)).fill(1)];
      const costs = Array(5 * (readings - 1)).fill(0);
      return JSON.stringify([
        null,
        topic,
        first,
        [
          [0, 0, 0, 0, 0, 0],
          [0, 0, 0, 0, 0, 0],
          [0, 0, 0, 0, 0, 0],
          [readings - 1, 0, 0, 0, 0, readings - 1],
        ],
        flatReadings,
        costs,
      ]);
    };
    const v3 = (meters: string[]) => ({ version: 3, timezone: 'UTC', tariffId: 'DEMO-FLAT', meters });
    // [name, forged, what the warning says, the total energy after two new readings of 0.5 kWh apart on the default meter]
    const cases: Array<[string, () => unknown, RegExp, number]> = [
      [
        'total starting at 1e300',
        () => edited({ 2: 1e300 }),
        /^stored running totals: dropped meter 1 of 1 \(|totals starting at 1e\+300/,
        0.5,
      ],
      [
        'total starting 2 years ahead',
        () => edited({ 2: Date.now() + 2 * YEAR }),
        /totals starting at 20\d\d-.*not an instant near now/,
        0.5,
      ],
      ['total starting after its readings', () => edited({ 2: Date.now() }), /totals starting at 20\d\d-.*after their readings/, 0.5],
      ['readings at 1e300', () => edited({ 4: [1e300, 1], 5: [] }), /readings at 1e\+300, not an instant near now/, 0.5],
      [
        'a negative interval count',
        () => {
          const s = store([{ topic: null, totals: counted(10) }]);
          const line = JSON.parse(s.meters[0]);
          line[3][3][5] = -5; // the total's intervals
          return { ...s, meters: [JSON.stringify(line)] };
        },
        /^running totals started from zero: stored totals are unreadable$/,
        0.5,
      ],
      [
        'a huge version 2 meter',
        () => ({
          version: 2,
          timezone: 'UTC',
          tariffId: 'DEMO-FLAT',
          meters: [{ gateway: null, topic: null, totals: plainTotals(counted(5000, 20_000)) }], // as 0.1.x stored its window: lists
        }),
        /dropped 2000 of the oldest readings beyond the 3000/,
        100.5, // the default meter kept: 149.99 → 200 → 200.5
      ],
      [
        '2 meters × 10,000 readings',
        () => v3([hugeLine('a', 9000), store([{ topic: null, totals: counted(10) }]).meters[0]]),
        /dropped 8936 of the oldest readings beyond the 64 the node stores \(a;/,
        100.5, // the default meter kept: 100.09 → 200 → 200.5
      ],
      [
        '128 meters × 20,000 readings',
        () => v3(Array.from({ length: 128 }, (_, i) => hugeLine(`m${i}`, 20_000))),
        /^stored running totals: dropped meter 1 of 128 \(2\d\d\d\d\d characters of text, more than the node writes\); .*; and 123 more$/,
        0.5,
      ],
      [
        '__proto__ meters with 9,000 readings',
        () => v3([hugeLine('__proto__', 9000).replace('[null,', '["__proto__",'), store([{ topic: null, totals: counted(10) }]).meters[0]]),
        /dropped 8936 of the oldest readings beyond the 64 the node stores \(__proto__\/__proto__;/,
        100.5,
      ],
    ];
    for (const [name, forged, said, energy] of cases) {
      it(`${name}: one warning, and the next readings count`, async () => {
        const cost = { id: 'c', type: 'easy-cost', account: 'acc', tariff: 'DEMO-FLAT', mode: 'stream', wires: [['out']] };
        const { caught } = await restartForged([easyCost], [cost, { id: 'out', type: 'helper' }], 'c', 'totals', forged());
        await quiet(100);
        const out = inbox('out');
        const node = helper.getNode('c');
        node.receive({ payload: 200, ts: Date.now() - 2 * MIN });
        node.receive({ payload: 200.5, ts: Date.now() - MIN });
        const msgs = await out.next(2, 10_000);
        should(msgs[1].payload.ignored).be.undefined();
        should(msgs[1].payload.total.energy).be.approximately(energy, 1e-9);
        should(warnings('c')).have.length(1);
        should(warnings('c')[0]).match(said);
        noCrash(caught, ['c']);
      });
    }
  });

  describe("easy-cost's generator report (stream mode)", () => {
    const cases: Array<[string, (s: any) => unknown, RegExp]> = [
      [
        'today starting at 1e300',
        (s) => ({ ...s, day: { ...s.day, from: 1e300 } }),
        /^stored generator report: dropped today \(not a day of UTC near now/,
      ],
      ['run time beyond the day', (s) => ({ ...s, day: { ...s.day, runMs: 1e15 } }), /dropped today/],
      ['sums with NaN', (s) => ({ ...s, week: { ...s.week, running: [NaN, 0, 0] } }), /dropped this week/],
      [
        'closed with null',
        (s) => ({ ...s, closed: { day: null, month: 'x' } }),
        /^stored generator report: dropped the closed month \(not a month of UTC/,
      ],
      ['last value 2 years ahead', (s) => ({ ...s, last: [Date.now() + 2 * YEAR, 1] }), /dropped the last value \(20\d\d-/],
      [
        '__proto__ closed (never read as a period)',
        (s) => ({ ...s, closed: withProto(`{"__proto__": ${JSON.stringify(s.day)}, "week": {"from": 1e300}}`) }),
        /^stored generator report: dropped the closed week \(not a week of UTC/,
      ],
      ['not an object', () => [1, 2], /dropped everything: not the shape the report stores/],
    ];
    for (const [name, forge, said] of cases) {
      it(`${name}: one warning, and the report goes on`, async () => {
        const cost = {
          id: 'c',
          type: 'easy-cost',
          account: 'acc',
          tariff: 'DEMO-GENERATOR',
          mode: 'stream',
          generator: true,
          wires: [['out']],
        };
        let stored: unknown;
        const reading = (value: number, ago: number) => ({ payload: value, ts: Date.now() - ago });
        await loadFlow(
          [easyCost, context.use()],
          [{ ...accountNode(sim, 'UTC'), timeoutMs: 2000 }, cost, { id: 'out', type: 'helper' }, ...catchNodes()],
        );
        const first = inbox('out');
        helper.getNode('c').receive(reading(100, 3 * MIN));
        helper.getNode('c').receive(reading(101, 2 * MIN));
        await first.next(2, 10_000);
        const ctx = helper.getNode('c').context();
        await context.restart(async () => {
          stored = ctx.get('generator');
          ctx.set('generator', forge(stored));
        });
        should(stored).match({ version: 1, day: { from: Number } });
        const caught = inbox('caught');
        const out = inbox('out');
        helper.getNode('c').receive(reading(102, MIN));
        const [msg] = await out.next(1, 10_000);
        should(msg.payload.generator).match({ today: { from: String } });
        should(warnings('c')).have.length(1);
        should(warnings('c')[0]).match(said);
        noCrash(caught, ['c']);
      });
    }
  });

  describe("easy-plan's plan and override", () => {
    const planNode = {
      id: 'p',
      type: 'easy-plan',
      account: 'acc',
      tariff: 'DEMO-NIGHT',
      durationHours: 1,
      durationMinutes: 0,
      mode: 'rolling',
      hours: 6,
      contiguous: false,
      maxPrice: '',
      wires: [['sw'], ['plan']],
    };
    /** A ledger on from a minute ago until `to`, with `over` replacing any field. */
    const onUntil = (stored: any, to: number, over: Record<string, unknown> = {}) => {
      const now = Date.now();
      return {
        ...stored,
        ledger: {
          ...stored.ledger,
          boost: { from: now - MIN, to },
          pieces: [{ from: now - MIN, to, price: 0.25, owner: 'boost' }],
          ...over,
        },
      };
    };
    const cases: Array<[string, (s: any) => [unknown, unknown], RegExp, boolean]> = [
      [
        'a boost ending in 300 years',
        (s) => [onUntil(s, Date.now() + 300 * YEAR), undefined],
        /^stored plan: dropped the plan \(the boost ends at .*, beyond what the settings reach\): output 1 off until a new plan$/,
        true,
      ],
      [
        'a window of 1e300',
        (s) => [onUntil(s, Date.now() + 30 * MIN, { cycle: { ...s.ledger.cycle, to: 1e300 } }), undefined],
        /the window ends at 1e\+300/,
        true,
      ],
      [
        'a boost of 9 days',
        (s) => [onUntil(s, Date.now() + 9 * 24 * HOUR), undefined],
        /the boost lasts longer than the settings allow/,
        true,
      ],
      [
        'slots overlapping',
        (s) => [
          onUntil(s, Date.now() + 30 * MIN, {
            pieces: [
              { from: 1, to: 3, price: 1, owner: 'plan' },
              { from: 2, to: 4, price: 1, owner: 'plan' },
            ],
          }),
          undefined,
        ],
        /slots that overlap/,
        true,
      ],
      [
        '20,000 slots',
        (s) => [onUntil(s, Date.now() + 30 * MIN, { pieces: Array(20_000).fill({ from: 1, to: 2, price: 1, owner: 'plan' }) }), undefined],
        /more than 10000 slots/,
        true,
      ],
      [
        'slots of the wrong type',
        (s) => [onUntil(s, Date.now() + 30 * MIN, { pieces: [{ from: '1', to: 2, price: 1, owner: '__proto__' }] }), undefined],
        /slots that are not ones/,
        true,
      ],
      ['a ledger of text', (s) => [{ ...s, ledger: 'x' }, undefined], /not the shape the node stores/, true],
      ['an override of 42', (s) => [s, 42], /^stored plan: dropped the override \(not on, off or auto\): auto$/, false],
    ];
    /** The plan node loaded and its first plan made (and stored): its context. */
    async function planned() {
      await loadFlow(
        [easyPlan, context.use()],
        [
          { ...accountNode(sim, 'UTC'), timeoutMs: 2000 },
          planNode,
          { id: 'sw', type: 'helper' },
          { id: 'plan', type: 'helper' },
          ...catchNodes(),
        ],
      );
      await inbox('plan').next(1, 10_000);
      return helper.getNode('p').context();
    }

    it('a plan stored 364 days ahead (this clock behind): kept with one warning saying so, its window planned on', async () => {
      const ctx = await planned();
      const ahead = 364 * 24 * HOUR;
      let cycleFrom = NaN;
      await context.restart(async () => {
        const s = ctx.get('plan') as any;
        should(s.savedAt).be.a.Number();
        const moved = <S extends { from: number; to: number }>(span: S): S => ({ ...span, from: span.from + ahead, to: span.to + ahead });
        cycleFrom = s.ledger.cycle.from + ahead;
        ctx.set('plan', {
          ...s,
          savedAt: s.savedAt + ahead,
          ledger: { ...s.ledger, cycle: moved(s.ledger.cycle), pieces: s.ledger.pieces.map(moved) },
        });
      });
      const caught = inbox('caught');
      const [plan] = await inbox('plan').next(1, 10_000);
      should(plan.payload.window.fromMs).equal(cycleFrom);
      should(warnings('p')).have.length(1);
      should(warnings('p')[0]).match(
        /^stored plan lie 36[34] days ahead of this machine's clock \(.*\): kept, as this clock is probably behind/,
      );
      noCrash(caught, ['p']);
    });

    for (const [name, forge, said, untrusted] of cases) {
      it(`${name}: one warning${untrusted ? ', output 1 off at once, then planned afresh' : ''}`, async () => {
        const ctx = await planned();
        await context.restart(async () => {
          const [plan, override] = forge(ctx.get('plan'));
          ctx.set('plan', plan);
          if (override !== undefined) ctx.set('override', override);
        });
        const caught = inbox('caught');
        const sw = inbox('sw');
        const plans = inbox('plan');
        const [first] = await sw.next(1, 10_000);
        if (untrusted) should(first.payload).equal(false);
        await plans.next(1, 10_000); // planned afresh
        should(warnings('p')).have.length(1);
        should(warnings('p')[0]).match(said);
        noCrash(caught, ['p']);
      });
    }
  });
});
