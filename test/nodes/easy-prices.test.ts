// easy-prices with easy-tariff and easy-plan in the real runtime, the simulator serving the
// grid-fee tariff over loopback, on a fake clock in Europe/Oslo on its 23-hour day
// (2026-03-29): a Tibber answer of quarter hours fed as tibber-query sends it; the stacked
// price at each quarter hour with its parts; "prices known until 24:00" where the list ends;
// tomorrow's list at 13:00 plans the night again, what was promised kept; a restart at
// 14:00 keeps tomorrow's prices; wrong lists reach Catch naming the entry, the kept prices
// unchanged.
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import type { Simulator } from '../../sim/server';
import easyTariff = require('../../nodes/easy-tariff');
import easyPlan = require('../../nodes/easy-plan');
import easyPrices = require('../../nodes/easy-prices');
import easyAccount = require('../../nodes/easy-account');
import easyCost = require('../../nodes/easy-cost');
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { catchNodes, FakeClock, FileContext, FlowNode, helper, inbox, lastStatus, quiet, TOKEN, withSimulator } from './flow-support';
import { installClock, steady, until } from '../fake-clock';
import { cheapestWindows } from '../../nodes/lib/engine/plan/plan';
import { priceList } from '../../nodes/lib/engine/prices/price-list';
import { readPriceList } from '../../nodes/lib/engine/prices/price-inputs';
import { schedule } from '../../nodes/lib/engine/prices/price-source';

const ZONE = 'Europe/Oslo';
const at = (iso: string) => Date.parse(iso);
const Q = 15 * 60_000;
const GRID = {
  id: 'GRID',
  name: 'grid fees',
  vat: 25,
  currency: 'NOK',
  rules: [
    { priority: 1, price: 0.3, time_start: '06:00', time_end: '22:00' },
    { priority: 2, price: 0.1 },
  ],
};

type TibberAnswer = {
  payload: {
    viewer: {
      homes: Array<{ currentSubscription: { priceInfo: { today: Array<{ total: number; startsAt: string }>; tomorrow: unknown[] } } }>;
    };
  };
};
const answer = (): TibberAnswer =>
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'price-inputs', 'tibber-quarter-hours-23h.json'), 'utf8'));
/** The answer before 13:00: today's prices, tomorrow's list empty (as Tibber sends it). */
function todayOnly(): TibberAnswer {
  const a = answer();
  a.payload.viewer.homes[0].currentSubscription.priceInfo.tomorrow = [];
  return a;
}
const today = answer().payload.viewer.homes[0].currentSubscription.priceInfo.today;
const spotAt = (ms: number) =>
  today.find((e, i) => at(e.startsAt) <= ms && ms < (i + 1 < today.length ? at(today[i + 1].startsAt) : at('2026-03-30T00:00:00+02:00')))!
    .total;

describe('easy-prices with easy-tariff and easy-plan', function () {
  this.timeout(30_000);
  let sim: Simulator | null = null;
  let clock: FakeClock | null = null;
  let context: FileContext | null = null;

  afterEach(async () => {
    await (context ? context.unload() : helper.unload());
    context = null;
    clock?.uninstall();
    clock = null;
    await sim?.close();
    sim = null;
  });

  const pricesNode = (over: Record<string, unknown> = {}): FlowNode => ({
    id: 'pr',
    type: 'easy-prices',
    unit: 'kWh',
    fees: 'tariff',
    addOns: 0.05,
    vat: 'tariff',
    whenOut: 'stop',
    ...over,
  });

  async function start(now: string, nodes: FlowNode[], opts: { file?: boolean } = {}) {
    clock = installClock(at(now));
    const extra: unknown[] = [];
    if (opts.file) {
      context = new FileContext();
      extra.push(context.use());
    }
    sim = await withSimulator({ tariffs: () => [GRID], now: () => Date.now() });
    const account = { id: 'acc', type: 'easy-account', name: 'demo', baseUrl: sim.url, timezone: ZONE, timeoutMs: 7 * 86_400_000 };
    await helper.load([easyAccount, easyPrices, easyTariff, easyPlan, easyCost, ...extra], [account, ...nodes, ...catchNodes()], {
      acc: { token: TOKEN },
    });
  }

  async function tickTo(target: number) {
    while (Date.now() < target) {
      await clock!.tickAsync(Math.min(3_600_000, target - Date.now()));
      await quiet(10);
    }
    await quiet(10);
  }

  it('easy-tariff: the stacked price at each quarter hour with its parts, its chart with them, and no price where the list ends', async () => {
    await start('2026-03-29T10:07:00+02:00', [
      pricesNode(),
      { id: 't', type: 'easy-tariff', account: 'acc', prices: 'pr', tariff: 'GRID', refresh: 60, wires: [['out'], ['chart']] },
      { id: 'out', type: 'helper' },
      { id: 'chart', type: 'helper' },
    ]);
    const out = inbox('out');
    const [first] = await out.next(1);
    should(first.payload).match({
      price: null,
      reason: 'no price list yet: send one (Tibber, Nord Pool, power-saver or [{ start, price }])',
      pricesKnownUntil: null,
      pricesKnownText: 'no prices known now',
    });
    helper.getNode('t').receive(todayOnly());
    const [priced] = await out.next(1);
    const spot = spotAt(at('2026-03-29T10:00:00+02:00'));
    should(priced.payload).match({
      price: Math.round((spot + 0.3 + 0.05) * 1e9) / 1e9,
      gross: Math.round((spot + 0.3 + 0.05) * 1.25 * 1e9) / 1e9,
      vat: 25,
      currency: 'NOK',
      tariffId: 'GRID',
      spot,
      fees: 0.3,
      addOns: 0.05,
      validFrom: '2026-03-29T08:00:00.000Z',
      validUntil: '2026-03-29T08:15:00.000Z',
      pricesKnownUntil: '2026-03-29T22:00:00.000Z',
      pricesKnownText: 'prices known until 24:00',
      reason: null,
    });
    // the chart of the next 24 h: the total net and gross, then its spot and fees parts (net), gaps beyond the list
    helper.getNode('t').receive({ payload: 'chart' });
    const lines = await inbox('chart').next(4);
    should(lines.map((m) => [m.topic, m.action])).eql([
      ['net NOK/kWh', 'replace'],
      ['gross NOK/kWh', 'append'],
      ['spot NOK/kWh', 'append'],
      ['fees NOK/kWh', 'append'],
    ]);
    const [net, , spotLine, feesLine] = lines.map((m) => m.payload as Array<{ x: number; y: number | null }>);
    const yAt = (line: typeof net, x: number) => line.find((p, k) => k % 2 === 0 && p.x <= x && x < line[k + 1].x)?.y;
    for (let x = at('2026-03-29T10:07:00+02:00'); x < at('2026-03-30T10:07:00+02:00'); x += Q) {
      const known = x < at('2026-03-30T00:00:00+02:00');
      should(yAt(spotLine, x)).equal(known ? spotAt(x) : null);
      should(yAt(feesLine, x)).equal(known ? (x < at('2026-03-29T22:00:00+02:00') ? 0.3 : 0.1) : null);
      if (known) should(yAt(net, x)).be.approximately(spotAt(x) + yAt(feesLine, x)! + 0.05, 1e-9);
    }
    // every quarter hour to the list's end: a message at each exact change, the fees' change at 22:00 in it
    const seen: Array<Record<string, any>> = [];
    await tickTo(at('2026-03-30T00:05:00+02:00'));
    seen.push(...out.received.splice(0));
    const changes = seen.map((m) => m.payload.validFromMs);
    for (let k = 0; k < changes.length - 1; k++) should(changes[k + 1] - changes[k]).equal(Q);
    const at22 = seen.find((m) => m.payload.validFrom === '2026-03-29T20:00:00.000Z')!;
    should(at22.payload).match({ fees: 0.1, spot: spotAt(at('2026-03-29T22:00:00+02:00')) });
    const last = seen[seen.length - 1];
    should(last.payload).match({
      price: null,
      validFrom: '2026-03-29T22:00:00.000Z',
      pricesKnownText: 'no prices known now',
      reason: 'no price: prices known until 2026-03-29 24:00; the next list has not come',
    });
  });

  it('easy-plan: plans on what is known, says so, plans the night again when tomorrow comes at 13:00 and keeps it over a restart at 14:00', async () => {
    await start(
      '2026-03-29T10:00:00+02:00',
      [
        pricesNode(),
        {
          id: 'p',
          type: 'easy-plan',
          account: 'acc',
          prices: 'pr',
          tariff: 'GRID',
          durationHours: 2,
          durationMinutes: 0,
          mode: 'daily',
          from: '22:00',
          until: '07:00',
          contiguous: false,
          maxPrice: '',
          wires: [['sw'], ['plan']],
        },
        { id: 'sw', type: 'helper' },
        { id: 'plan', type: 'helper' },
      ],
      { file: true },
    );
    const plans = inbox('plan');
    /** The latest plan made on prices known until `until`, once one has come (waited for, not slept on). */
    const planOn = async (knownUntil: string) => {
      const made = () => plans.received.filter((m) => m.payload.pricesKnownUntil === knownUntil);
      await until(`a plan on prices until ${knownUntil}`, () => made().length > 0);
      return made()[made().length - 1];
    };
    helper.getNode('p').receive(todayOnly());
    let plan = await planOn('2026-03-29T22:00:00.000Z');
    should(plan.payload).match({
      pricesKnownUntil: '2026-03-29T22:00:00.000Z',
      pricesNote: 'prices known until 24:00: the rest of the window is planned when the next list comes',
      planned: 2 * 3_600_000,
    });
    // only 22:00-24:00 has prices: the two hours are those
    should(plan.payload.slots.map((s: any) => [s.fromLocal, s.toLocal])).eql([['2026-03-29T22:00:00+02:00', '2026-03-30T00:00:00+02:00']]);
    should(lastStatus('p')!.text).match(/· prices known until 24:00$/);

    await tickTo(at('2026-03-29T13:00:00+02:00'));
    plans.received.splice(0);
    helper.getNode('p').receive(answer());
    plan = await planOn('2026-03-30T22:00:00.000Z');
    // the reference: the same stack planned by the library on the whole window
    const list = priceList(readPriceList(answer()).entries.map((e) => ({ start: e.from, end: e.to, price: e.price })));
    const expected = cheapestWindows(
      { list, fees: GRID, addOns: 0.05, vat: 25, currency: 'NOK' },
      {
        timezone: ZONE,
        from: at('2026-03-29T22:00:00+02:00'),
        to: at('2026-03-30T07:00:00+02:00'),
        duration: 2 * 3_600_000,
      },
    );
    should(plan.payload.slots.map((s: any) => [s.fromMs, s.toMs])).eql(expected.slots.map((s) => [s.from, s.to]));
    should(plan.payload).match({ pricesKnownUntil: '2026-03-30T22:00:00.000Z', pricesNote: null, cause: 'tariffs' });
    const promised = plan.payload.slots;

    await tickTo(at('2026-03-29T14:00:00+02:00'));
    await context!.restart();
    const again = inbox('plan');
    await quiet(100);
    await clock!.tickAsync(1000);
    await until('a plan after the restart', () => again.received.length > 0);
    await steady('the plans after the restart', () => again.received.length);
    // every plan after the restart keeps the night's slots: none was made on an empty list while the kept prices were read
    for (const m of again.received) should(m.payload.slots).eql(promised);
    const after = again.received[again.received.length - 1];
    should(after.payload).match({ pricesKnownUntil: '2026-03-30T22:00:00.000Z' });
  });

  it('wrong lists reach Catch naming the entry; the kept prices stay as they were', async () => {
    await start('2026-03-29T10:07:00+02:00', [
      pricesNode(),
      { id: 't', type: 'easy-tariff', account: 'acc', prices: 'pr', tariff: 'GRID', refresh: 60, wires: [['out']] },
      { id: 'out', type: 'helper' },
    ]);
    const out = inbox('out');
    const caught = inbox('caught');
    await out.next(1);
    helper.getNode('t').receive(todayOnly());
    const [good] = await out.next(1);
    const hostile: Array<[string, (a: TibberAnswer) => void, RegExp]> = [
      [
        'a hole',
        (a) => a.payload.viewer.homes[0].currentSubscription.priceInfo.today.splice(40, 2),
        /priceInfo\.today\[39\] \(2026-03-29T08:45:00\.000Z\): the next price starts 45 min later, where the entries around it last 15 min: a hole of 30 min/,
      ],
      [
        'a duplicate quarter hour',
        (a) =>
          a.payload.viewer.homes[0].currentSubscription.priceInfo.today.splice(
            40,
            0,
            a.payload.viewer.homes[0].currentSubscription.priceInfo.today[40],
          ),
        /today\[41\] starts at 2026-03-29T09:00:00\.000Z, as .*today\[40\] does: a duplicate price/,
      ],
      [
        'a price per MWh',
        (a) => (a.payload.viewer.homes[0].currentSubscription.priceInfo.today[50].total = 812.4),
        /today\[50\] \(2026-03-29T11:30:00\.000Z\): 812\.4 per kWh is over 300× the list's other prices/,
      ],
      [
        'text for a number',
        (a) => ((a.payload.viewer.homes[0].currentSubscription.priceInfo.today[3] as any).total = '0.81'),
        /today\[3\]\.total must be a number \(a number, not text\), got "0\.81"/,
      ],
      [
        '20,000 entries',
        (a) =>
          (a.payload.viewer.homes[0].currentSubscription.priceInfo.tomorrow = Array.from({ length: 20_000 }, (_, i) => ({
            total: 1,
            startsAt: new Date(at('2026-03-30T00:00:00+02:00') + i * Q).toISOString(),
          }))),
        /^Too many prices: 20092 entries, at most 10000 a message/,
      ],
    ];
    for (const [what, spoil, words] of hostile) {
      const a = todayOnly();
      spoil(a);
      helper.getNode('t').receive(a);
      const [err] = await caught.next(1);
      should(err.error.message).match(words, `${what}: ${err.error.message}`);
    }
    const proto = JSON.parse('{"payload":{"priceInfo":{"today":[{"__proto__":{"startsAt":"2026-03-29T10:00:00+02:00","total":9}}]}}}');
    helper.getNode('t').receive(proto);
    should((await caught.next(1))[0].error.message).match(/today\[0\]\.startsAt must be an ISO 8601 time or epoch ms, got undefined/);
    await quiet(50);
    // nothing was priced again: the kept list is the one before
    should(out.received).eql([]);
    helper.getNode('t').receive({ payload: 'price' });
    const [kept] = await out.next(1);
    should(kept.payload).eql(good.payload);
  });

  it('easy-cost: readings costed at the stack in force at each instant; beyond the list unpriced, never 0', async () => {
    await start('2026-03-30T00:40:00+02:00', [
      pricesNode(),
      { id: 'c', type: 'easy-cost', account: 'acc', prices: 'pr', tariff: 'GRID', mode: 'batch', wires: [['costs']] },
      { id: 'costs', type: 'helper' },
    ]);
    const costs = inbox('costs');
    const caught = inbox('caught');
    helper.getNode('c').receive(todayOnly());
    await quiet(20);
    should(costs.received).eql([]);
    // 21:00 to 00:30: the fees change at 22:00, the list ends at 24:00 (an interval is priced where it starts: semantics rule 11)
    const readings = [
      ['2026-03-29T21:00:00+02:00', 1000],
      ['2026-03-29T23:00:00+02:00', 1004],
      ['2026-03-30T00:00:00+02:00', 1006],
      ['2026-03-30T00:30:00+02:00', 1007],
    ];
    helper.getNode('c').receive({ payload: readings });
    const [msg] = await costs.next(1);
    const list = priceList(readPriceList(todayOnly()).entries.map((e) => ({ start: e.from, end: e.to, price: e.price })));
    const expected = computeCost({ list, fees: GRID, addOns: 0.05, vat: 25, currency: 'NOK' }, readings, { timezone: ZONE });
    should(msg.payload).match({ net: Math.round(expected.net * 1e9) / 1e9, energy: 7, currency: 'NOK', vat: 25 });
    should(expected.net).be.above(0);
    should(msg.payload.unpricedEnergy).equal(1); // 00:00-00:30: no list price, not a price of 0
    should(expected.unpricedEnergy).equal(1);
    should(caught.received).eql([]);
  });

  it("the dialogs' week chart: the stack of the deployed prices node over the tariff, spot and fees as two more lines", async () => {
    // on the list's day: a list older than the 62 days kept would be let go at once
    clock = installClock(Date.parse('2026-03-29T10:07:00+02:00'));
    sim = await withSimulator({ tariffs: () => [GRID] });
    const account = { id: 'acc', type: 'easy-account', name: 'demo', baseUrl: sim.url, timezone: ZONE };
    await helper.load(
      [easyAccount, easyPrices, easyTariff],
      [
        account,
        pricesNode(),
        { id: 't', type: 'easy-tariff', account: 'acc', prices: 'pr', tariff: 'GRID', refresh: 60, wires: [['out']] },
        { id: 'out', type: 'helper' },
      ],
      { acc: { token: TOKEN } },
    );
    const chart = async (body: object) => {
      const res = await (helper as any).request().post('/easy-account/schedule').send(body).set('Content-Type', 'application/json');
      should(res.status).equal(200, res.text);
      return res.body;
    };
    const at = '2026-03-29T10:07:00+02:00';
    // no list kept yet: said, the tariff's chart meanwhile
    should(await chart({ id: 'acc', tariff: 'GRID', prices: 'pr', at })).match({
      stackNote: 'no price list kept yet: the chart fills in when the first list comes',
    });
    should(await chart({ id: 'acc', tariff: 'GRID', prices: 'not-deployed', at })).match({
      stackNote: /^the prices node is not deployed yet/,
    });
    helper.getNode('t').receive(answer());
    await quiet(50);
    const data = await chart({ id: 'acc', tariff: 'GRID', prices: 'pr', at });
    should(data.stackNote).be.undefined();
    should(data.lines.map((l: any) => l.key)).eql(['base', 'spot', 'fees']);
    const list = priceList(readPriceList(answer()).entries.map((e) => ({ start: e.from, end: e.to, price: e.price })));
    const expected = schedule({ list, fees: GRID, addOns: 0.05, vat: 25, currency: 'NOK', beyond: 'none' }, data.from, data.to, {
      timezone: ZONE,
    });
    should(data.lines[0].segments.map((s: any) => [s.from, s.to, s.price])).eql(expected.map((s) => [s.from, s.to, s.price]));
    should(data.lines[1].segments.map((s: any) => s.price)).eql(expected.map((s) => s.spot ?? null));
    should(data.lines[2].segments.map((s: any) => s.price)).eql(expected.map((s) => s.fees ?? null));
    // the list's two days, then no price (gaps in the line, not zeros)
    should(data.lines[0].segments[data.lines[0].segments.length - 1]).match({ price: null });
  });
});
