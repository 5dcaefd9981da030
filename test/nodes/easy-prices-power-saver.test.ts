// power-saver's own Lowest Price and Best Save fixtures (test/fixtures/power-saver, its 5.2.2
// tests) fed to easy-plan in power-saver's input format (msg.payload.priceData, as
// ps-receive-price sends it and ps-strategy-lowest-price / ps-strategy-best-save take it),
// through an easy-prices node with no fees, in the real runtime on a fake clock in
// Europe/Oslo. Lowest Price: every window of docs/power-saver.md's re-run planned by the node
// at least as well as power-saver plans it (the same run time at no more cost, or more run
// time where power-saver drops a block above the maximum price: rules 28-29), and exactly as
// the library plans it (which the re-run holds optimal). Best Save: the node, switching off
// where that saves most on the whole list, saves at least as much as power-saver's plan by
// power-saver's own measure (price off less price back on, minute by minute) with power-saver's
// rule of the least saving (on average over each off period); at every minute off, as that allows.
// Wrong lists in that format sent to easy-plan itself reach Catch naming the entry, the plan unchanged.
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import type { Simulator } from '../../sim/server';
import easyPlan = require('../../nodes/easy-plan');
import easyPrices = require('../../nodes/easy-prices');
import easyAccount = require('../../nodes/easy-account');
import { catchNodes, FakeClock, helper, inbox, quiet, TOKEN, withSimulator } from './flow-support';
import { installClock, until } from '../fake-clock';
import { lowestPriceRerun, WindowRow } from '../../bench/power-saver-rerun';
import { FIXTURES, MINUTE, sameCost } from '../../bench/power-saver-cases';
import {
  BEST_SAVE_FIXTURES,
  fixtureCase,
  fixturePayload,
  oursRuleSaving,
  peerRuleSaving,
  planSaving,
  scheduleMinutes,
} from '../../bench/power-saver-best-save';
import { calculate } from '../../bench/peer-best-save';
import { formatClock } from '../../nodes/lib/engine/common/format';

const ZONE = 'Europe/Oslo';
/** The account's tariff: no fees are added (the prices node says none); it gives the currency only. */
const NOK = { id: 'NOK', name: 'spot only', vat: 0, currency: 'NOK', rules: [{ priority: 1, price: 0 }] };

type Slot = { fromMs: number; toMs: number };
type Plan = { window: Slot; slots: Slot[]; planned: number; pricesKnownUntilMs: number | null };

describe("easy-plan fed power-saver's own fixtures in its input format", function () {
  this.timeout(120_000);
  let sim: Simulator | null = null;
  let clock: FakeClock | null = null;

  async function unload(): Promise<void> {
    await helper.unload();
    clock?.uninstall();
    clock = null;
    await sim?.close();
    sim = null;
  }
  afterEach(unload);

  /** Deploys easy-plan `p` (`settings` over its account, prices and outputs) on an easy-prices node with no fees at `atMs`. */
  async function deploy(atMs: number, settings: Record<string, unknown>) {
    clock = installClock(atMs);
    sim = await withSimulator({ tariffs: () => [NOK], now: () => Date.now() });
    const account = { id: 'acc', type: 'easy-account', name: 'demo', baseUrl: sim.url, timezone: ZONE, timeoutMs: 7 * 86_400_000 };
    await helper.load(
      [easyAccount, easyPrices, easyPlan],
      [
        account,
        { id: 'pr', type: 'easy-prices', unit: 'kWh', fees: 'none', addOns: 0, vat: 'included', whenOut: 'stop' },
        { id: 'p', type: 'easy-plan', account: 'acc', prices: 'pr', tariff: 'NOK', ...settings, wires: [['sw'], ['plan']] },
        { id: 'sw', type: 'helper' },
        { id: 'plan', type: 'helper' },
        ...catchNodes(),
      ],
      { acc: { token: TOKEN } },
    );
    return { plans: inbox('plan'), caught: inbox('caught') };
  }

  /**
   * Deploys easy-plan as `deploy` does, sends it `payload` as power-saver's strategy nodes
   * take it (msg.payload = { priceData: [...] }), and gives the plan made on the list;
   * nothing caught.
   */
  async function planOn(atMs: number, settings: Record<string, unknown>, payload: unknown, label: string): Promise<Plan> {
    const { plans, caught } = await deploy(atMs, settings);
    helper.getNode('p').receive({ payload });
    // the plan made on the list (the one on deploy, before it, has no prices)
    await until(
      'a plan on the list',
      () => caught.received.length > 0 || plans.received.some((m) => m.payload.pricesKnownUntilMs !== null),
    );
    await quiet(10);
    should(caught.received).eql([], label);
    const plan = plans.received[plans.received.length - 1].payload as Plan;
    await unload();
    return plan;
  }

  it("wrong lists in power-saver's format (msg.payload.priceData) reach Catch naming the entry; the plan stays as it was", async () => {
    const good = (): { priceData: Array<Record<string, unknown>> } =>
      JSON.parse(fs.readFileSync(path.join(FIXTURES, 'converted-prices.json'), 'utf8'));
    const daily = { durationHours: 2, durationMinutes: 0, mode: 'daily', from: '22:00', until: '07:00', contiguous: false, maxPrice: '' };
    const { plans, caught } = await deploy(Date.parse('2021-10-11T10:00:00+02:00'), daily);
    helper.getNode('p').receive({ payload: good() });
    await until('a plan on the list', () => plans.received.some((m) => m.payload.pricesKnownUntilMs !== null));
    const first = plans.received.findIndex((m) => m.payload.pricesKnownUntilMs !== null);
    const planned = plans.received[first].payload;
    should(planned.slots.map((x: Slot) => [x.fromMs, x.toMs])).eql([
      [Date.parse('2021-10-12T02:00:00+02:00'), Date.parse('2021-10-12T04:00:00+02:00')],
    ]);
    // each spoils the night's two cheapest hours (02:00 and 03:00), so a list taken would change the plan
    const hostile: Array<[string, (list: Array<Record<string, unknown>>) => void, RegExp]> = [
      [
        'a hole',
        (list) => list.splice(26, 2),
        /priceData\[25\] \(2021-10-11T23:00:00\.000Z\): the next price starts 180 min later, where the entries around it last 60 min: a hole of 120 min/,
      ],
      [
        'a duplicate hour',
        (list) => list.splice(26, 0, list[26]),
        /priceData\[27\] starts at 2021-10-12T00:00:00\.000Z, as .*priceData\[26\] does: a duplicate price/,
      ],
      [
        'a price per MWh',
        (list) => (list[27].value = 812.4),
        /priceData\[27\] \(2021-10-12T01:00:00\.000Z\): 812\.4 per kWh is over 300× the list's other prices/,
      ],
      [
        'text for a number',
        (list) => (list[3].value = '0.81'),
        /priceData\[3\]\.value must be a number \(a number, not text\), got "0\.81"/,
      ],
      ['no start', (list) => delete list[5].start, /priceData\[5\]\.start must be an ISO 8601 time or epoch ms, got undefined/],
    ];
    for (const [what, spoil, words] of hostile) {
      const payload = good();
      spoil(payload.priceData);
      helper.getNode('p').receive({ payload });
      const [err] = await caught.next(1);
      should(err.error.message).match(words, `${what}: ${err.error.message}`);
    }
    for (const payload of [{ priceData: 'not a list' }, { priceData: [42] }]) {
      helper.getNode('p').receive({ payload });
      should((await caught.next(1))[0].error.message).match(/msg\.payload\.priceData/);
    }
    // planning again on the kept prices gives the plan as it was (and so did any plan since: none came of a wrong list)
    helper.getNode('p').receive({ payload: 'plan' });
    await until('the plan asked for', () => plans.received.some((m) => m.payload.cause === 'message'));
    for (const m of plans.received.slice(first)) {
      should(m.payload.slots).eql(planned.slots);
      should(m.payload.pricesKnownUntilMs).equal(planned.pricesKnownUntilMs);
    }
    should(caught.received).eql([]);
  });

  /** Whether a plan's slots cover the minute from `t`. */
  const inSlots = (plan: Plan, t: number) => plan.slots.some((s) => s.fromMs <= t && t + MINUTE <= s.toMs);

  const rows: WindowRow[] = lowestPriceRerun().rows;

  it(`Lowest Price: plans every window (${rows.length}) at least as well as power-saver, exactly as the library`, async () => {
    let asWell = 0;
    for (const row of rows) {
      const c = row.case;
      const plan = await planOn(
        row.fromMs,
        {
          durationHours: Math.floor(c.minutesOn / 60),
          durationMinutes: c.minutesOn % 60,
          mode: 'daily',
          from: formatClock(row.fromMs, ZONE).slice(0, 5),
          until: formatClock(row.toMs, ZONE).slice(0, 5),
          contiguous: c.doNotSplit,
          maxPrice: c.maxPrice === null ? '' : String(c.maxPrice),
        },
        JSON.parse(fs.readFileSync(path.join(FIXTURES, c.file), 'utf8')),
        `${row.test} ${row.window}`,
      );
      should(plan.window).match({ fromMs: row.fromMs, toMs: row.toMs }, `${row.test} ${row.window}`);
      // the node's plan on the window's minutes: its cost of 1 kW and its run time
      let cost = 0;
      let on = 0;
      for (let i = 0; i < row.values.length; i++) {
        if (!inSlots(plan, row.fromMs + i * MINUTE)) continue;
        cost += row.values[i] / 60;
        on++;
      }
      const label = `${row.test} ${row.window}: node ${on} min at ${cost}, library ${row.ours}, power-saver ${row.peerMinutes} min at ${row.peer}`;
      should(on * MINUTE).equal(plan.planned, label);
      should(sameCost(cost, row.ours)).be.true(label);
      // at least as well: the same run time at no more cost, or more of it (power-saver dropped a block above maxPrice)
      const better = on > row.peerMinutes || (on === row.peerMinutes && (cost < row.peer || sameCost(cost, row.peer)));
      should(better).be.true(label);
      asWell++;
    }
    should(asWell).equal(rows.length);
  });

  // every fixture under both rules of the least saving (rule 36): power-saver's ('average') and every instant's
  const bestSaveRuns = BEST_SAVE_FIXTURES.flatMap((f) => (['average', 'instant'] as const).map((minSavingOf) => ({ f, minSavingOf })));

  it(`Best Save: on every fixture (${BEST_SAVE_FIXTURES.length} settings) saves at least as much as power-saver with its rule of the least saving, and with every instant's as that rule allows`, async () => {
    const found: string[] = [];
    const atLeastAsMuch = { average: 0, instant: 0 };
    for (const { f, minSavingOf } of bestSaveRuns) {
      const k = fixtureCase(f);
      const minutes = k.values.length;
      const peer = calculate(k.values, k.maxMinutesOff, k.minMinutesOff, k.recoveryPercentage, k.recoveryMaxMinutes, k.minSaving);
      if (f.expected) {
        // the port plans as power-saver's own test expects
        const expected: { schedule: Array<{ time: string; value: boolean }> } = fixturePayload(f.expected) as never;
        should(peer).eql(scheduleMinutes(expected.schedule, k.startMs, minutes), `${f.test}: the port as the test expects`);
      }
      // the whole list as the window (power-saver plans all of it), the load on and switched off where that saves most
      const plan = await planOn(
        k.startMs,
        {
          strategy: 'save',
          mode: 'rolling',
          hours: (minutes * MINUTE) / 3_600_000,
          maxOffMinutes: k.maxMinutesOff,
          minOffMinutes: k.minMinutesOff,
          minOnMinutes: 1,
          minSaving: k.minSaving,
          minSavingOf,
          recoveryPercent: k.recoveryPercentage,
          recoveryMaxMinutes: k.recoveryMaxMinutes ?? '',
        },
        fixturePayload(f.file),
        f.test,
      );
      should(plan.window).match({ fromMs: k.startMs, toMs: k.startMs + minutes * MINUTE }, f.test);
      // the node's off periods on the minute grid, as on/off a minute (true: on)
      for (const s of plan.slots) should((s.fromMs - k.startMs) % MINUTE === 0 && (s.toMs - k.startMs) % MINUTE === 0).be.true(f.test);
      const node = k.values.map((_, i) => !inSlots(plan, k.startMs + i * MINUTE));
      const ours = planSaving(k.values, node);
      const theirs = planSaving(k.values, peer);
      const label = `${f.file} (${f.test}, least saving ${minSavingOf === 'average' ? 'on average' : 'at every instant'}): node saves ${ours} in ${node.filter((x) => !x).length} min off, power-saver ${theirs} in ${peer.filter((x) => !x).length}`;
      // the node keeps its own rule (rule 36, with the least saving as set) and power-saver's
      should(oursRuleSaving(k, node, minSavingOf) !== null).be.true(label);
      should(peerRuleSaving(k, node) !== null).be.true(label);
      should(peerRuleSaving(k, peer) !== null).be.true(label);
      // at least as much; at every instant, less only where power-saver's plan has off minutes that save less than the
      // least saving (power-saver holds an off run's average to it, that rule every instant off): count them
      let under = 0;
      for (let i = 0; i < minutes; i++) {
        let back = i;
        while (back < minutes - 1 && !peer[back]) back++;
        if (!peer[i] && k.values[i] - k.values[back] < k.minSaving) under++;
      }
      const asWell = ours > theirs || sameCost(ours, theirs);
      found.push(`${label}${asWell ? '' : `; power-saver's plan has ${under} off minutes saving less than ${k.minSaving}`}`);
      should(asWell || (minSavingOf === 'instant' && under > 0)).be.true(label);
      if (asWell) atLeastAsMuch[minSavingOf]++;
    }
    should(found).have.length(bestSaveRuns.length);
    console.log(found.map((x) => `      ${x}`).join('\n'));
    // docs/power-saver.md quotes it: all 5 with power-saver's rule; 4 of 5 at every instant (bug 232's list: power-saver's
    // plan keeps 15 minutes off that save 0.0058 < 0.01)
    should(atLeastAsMuch).eql({ average: BEST_SAVE_FIXTURES.length, instant: 4 });
  });
});
