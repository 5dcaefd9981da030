// easy-cost on a price stack through the real runtime, the simulator serving the tariffs and
// the archive over loopback, on a fake clock in Europe/Oslo (2026-11-20 10:00): a month of
// quarter hours (negative prices among them) stacked with grid fees whose tariff says 25 %
// VAT while the prices node says 12 %. Stream totals, the month-end projection (the list
// ending at midnight: no price beyond, or the tariff alone), range mode and compare mode
// each give the gross of a reference computed here by a minute walk with Intl for the local
// hour, to the cent; the tariff's 25 % would miss it by far more.
import should from 'should';
import type { Simulator } from '../../sim/server';
import { archive, findDemoSensor } from '../../sim/demo-data';
import easyPrices = require('../../nodes/easy-prices');
import easyCost = require('../../nodes/easy-cost');
import easyAccount = require('../../nodes/easy-account');
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { priceList } from '../../nodes/lib/engine/prices/price-list';
import { catchNodes, FakeClock, FlowNode, GATEWAY, helper, inbox, lastStatus, quiet, TOKEN, warnings, withSimulator } from './flow-support';
import { installClock } from '../fake-clock';

const ZONE = 'Europe/Oslo';
const at = (iso: string) => Date.parse(iso);
const Q = 15 * 60_000;
const MIN = 60_000;
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
const FLAT = { id: 'FLAT', name: 'fixed price', vat: 25, currency: 'NOK', rules: [{ priority: 1, price: 0.9 }] };
const ADD_ONS = 0.05;
const VAT = 12;
const DAILY = 3;
const NOW = at('2026-11-20T10:00:00+01:00');
const MONTH = { from: at('2026-11-01T00:00:00+01:00'), to: at('2026-12-01T00:00:00+01:00') };
/** The list: every quarter hour of November to the end of the 20th (local), some below zero. */
const LIST_END = at('2026-11-21T00:00:00+01:00');
const entries = Array.from({ length: (LIST_END - MONTH.from) / Q }, (_, k) => ({
  start: new Date(MONTH.from + k * Q).toISOString(),
  end: new Date(MONTH.from + (k + 1) * Q).toISOString(),
  price: Math.round((0.4 + 0.3 * Math.sin(k / 7) - (k % 37 === 0 ? 0.6 : 0)) * 1e4) / 1e4,
}));
const stackRef = { list: priceList(entries), fees: GRID, addOns: ADD_ONS, vat: VAT, currency: 'NOK' };

// the test's own reference: the local hour by Intl, the list's quarter hour by arithmetic
const hourFormat = new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hour: '2-digit', hourCycle: 'h23' });
const fee = (ms: number) => {
  const hour = Number(hourFormat.format(ms));
  return hour >= 6 && hour < 22 ? 0.3 : 0.1;
};
const spot = (ms: number) => (ms >= MONTH.from && ms < LIST_END ? entries[Math.floor((ms - MONTH.from) / Q)].price : null);
/** Net of `kwhPerMs` from `from` to the month's end, minute by minute: beyond the list the fee alone, or nothing (null). */
function restNet(
  from: number,
  kwhPerMs: number,
  beyond: 'none' | 'tariff',
): { net: number; unpricedFrom: number | null; netBefore: number } {
  let net = 0;
  let unpricedFrom: number | null = null;
  for (let t = from; t < MONTH.to; t += MIN) {
    const s = spot(t);
    if (s === null && beyond === 'none') {
      unpricedFrom ??= t;
      continue;
    }
    net += kwhPerMs * MIN * (s === null ? fee(t) : s + fee(t) + ADD_ONS);
  }
  return { net, unpricedFrom, netBefore: net };
}

/** Readings every 10 min from the 19th 00:00 to now, 0.2 to 0.8 kWh each. */
const readings: Array<[number, number]> = [];
for (let t = at('2026-11-19T00:00:00+01:00'), v = 1000, k = 0; t <= NOW; t += 10 * MIN, k++) {
  readings.push([t, Math.round(v * 1000) / 1000]);
  v += 0.2 + 0.15 * ((k * 7) % 5);
}
const cents = (x: number) => Math.round(x * 100);

describe('easy-cost on a price stack: its own VAT in stream totals, projection, range and compare', function () {
  this.timeout(30_000);
  let sim: Simulator | null = null;
  let clock: FakeClock | null = null;

  afterEach(async () => {
    await helper.unload();
    clock?.uninstall();
    clock = null;
    await sim?.close();
    sim = null;
  });

  const pricesNode = (id: string, whenOut: 'stop' | 'tariff'): FlowNode => ({
    id,
    type: 'easy-prices',
    unit: 'kWh',
    fees: 'tariff',
    addOns: ADD_ONS,
    vat: 'percent',
    vatPercent: VAT,
    whenOut,
  });
  const costNode = (id: string, prices: string, mode: string, over: Record<string, unknown> = {}): FlowNode => ({
    id,
    type: 'easy-cost',
    account: 'acc',
    prices,
    tariff: 'GRID',
    mode,
    dailyCharge: DAILY,
    wires: [[`${id}-out`], []],
    ...over,
  });

  async function start(nodes: FlowNode[]) {
    clock = installClock(NOW);
    sim = await withSimulator({ tariffs: () => [GRID, FLAT], now: () => Date.now() });
    const account = { id: 'acc', type: 'easy-account', name: 'demo', baseUrl: sim.url, timezone: ZONE, timeoutMs: 7 * 86_400_000 };
    const helpers = nodes.filter((n) => n.type === 'easy-cost').map((n) => ({ id: `${n.id}-out`, type: 'helper' }));
    await helper.load([easyAccount, easyPrices, easyCost], [account, ...nodes, ...helpers, ...catchNodes()], { acc: { token: TOKEN } });
  }

  it('stream: totals at the stack with its VAT, the projection on the list and, beyond it, none or the tariff alone', async () => {
    await start([
      pricesNode('none', 'stop'),
      pricesNode('fees', 'tariff'),
      costNode('a', 'none', 'stream'),
      costNode('b', 'fees', 'stream'),
    ]);
    const caught = inbox('caught');
    helper.getNode('a').receive({ payload: entries });
    helper.getNode('b').receive({ payload: entries });
    await quiet(20);
    const outA = inbox('a-out');
    const outB = inbox('b-out');
    for (const [ts, value] of readings) {
      helper.getNode('a').receive({ payload: value, ts });
      helper.getNode('b').receive({ payload: value, ts });
    }
    const a = (await outA.next(readings.length)).pop()!.payload;
    const b = (await outB.next(readings.length)).pop()!.payload;
    should(caught.received).eql([]);

    const month = computeCost(stackRef, readings, { timezone: ZONE });
    const today = computeCost(
      stackRef,
      readings.filter(([ts]) => ts >= at('2026-11-20T00:00:00+01:00')),
      { timezone: ZONE },
    );
    should(month.unpricedEnergy).equal(0);
    for (const p of [a, b]) {
      should(p).match({ currency: 'NOK', vat: VAT });
      should(p.site.today).match({ vat: VAT, currency: 'NOK' });
      should(cents(p.site.today.gross)).equal(cents(today.gross));
      should(cents(p.site.month.gross)).equal(cents(month.gross));
      should(p.site.month.gross).be.approximately(month.gross, 1e-6);
      // the daily charge carries the stack's VAT too: 20 days of November begun
      should(p.dailyCharge.month).match({ days: 20, net: 60, gross: 60 * (1 + VAT / 100) });
    }
    // the fee tariff's 25 % would be another bill: the test can tell them apart
    should(Math.abs(cents(month.net * 1.25) - cents(month.gross))).be.above(100);

    // the projection: the use per hour since counting began, at each instant's price to the month's end
    const basisMs = NOW - readings[0][0];
    const kwhPerMs = month.energy / basisMs;
    const chargeSoFar = DAILY * 20 * (1 + VAT / 100);
    const chargeMonth = DAILY * 30 * (1 + VAT / 100);
    should(a.projection).match({ method: 'stacked-prices', basisMs, projected: null });
    const none = restNet(NOW, kwhPerMs, 'none');
    should(none.unpricedFrom).equal(LIST_END);
    should(a.projection.untilUnpriced).match({ toMs: LIST_END });
    should(cents(a.projection.untilUnpriced.gross)).equal(cents(month.gross + chargeSoFar + none.netBefore * (1 + VAT / 100)));
    should(a.projection.prices).match({ knownUntilMs: LIST_END, beyond: 'none', listHours: 14, beyondHours: 0, unpricedHours: 240 });
    should(a.projection.prices.note).match(
      /^not projected: 240 h of the rest of the month have no price \(prices known until 24:00; the prices node gives no price beyond the list\)$/,
    );

    const fees = restNet(NOW, kwhPerMs, 'tariff');
    should(b.projection).match({ method: 'stacked-prices' });
    should(b.projection.prices).match({ beyond: 'tariff', listHours: 14, beyondHours: 240, unpricedHours: 0 });
    should(b.projection.prices.note).match(/then at the tariff alone/);
    should(cents(b.projection.projected.gross)).equal(cents(month.gross + fees.net * (1 + VAT / 100) + chargeMonth));
    should(b.projection.projected.energy).be.approximately(kwhPerMs * (MONTH.to - readings[0][0]), 1e-6);
    // scaling the cost so far (a tariff's projection) would be another figure
    should(Math.abs(cents(b.projection.projected.gross) - cents((month.gross * (MONTH.to - MONTH.from)) / basisMs + chargeMonth))).be.above(
      100,
    );

    await clock!.tickAsync(2000);
    await quiet(20);
    should(lastStatus('a')?.text).match(/· month → not projected \(prices known until 24:00\)$/);
    should(lastStatus('b')?.text).match(/· month → NOK [\d,]+\.\d\d$/);
  });

  it('range: the archive at the stack (over a flat tariff, still every reading: no shortcut), each day with the stack VAT', async () => {
    await start([pricesNode('none', 'stop'), costNode('r', 'none', 'range', { tariff: 'FLAT' })]);
    helper.getNode('r').receive({ payload: entries });
    await quiet(20);
    const out = inbox('r-out');
    const from = at('2026-11-18T00:00:00+01:00');
    const to = at('2026-11-20T00:00:00+01:00');
    helper.getNode('r').receive({ gateway: GATEWAY, from, to, split: 'day' });
    const [msg] = await out.next(1);
    const rows = archive(findDemoSensor('e1.kwh')!, from, to).map(([iso, value]): [number, number] => [Date.parse(`${iso}Z`), value]);
    const expected = computeCost({ ...stackRef, fees: FLAT }, rows, { timezone: ZONE });
    should(expected.energy).be.above(1);
    should(msg.payload).match({ vat: VAT, currency: 'NOK', fetched: { shortcut: false } });
    should(cents(msg.payload.gross)).equal(cents(expected.gross));
    should(msg.payload.days).have.length(2);
    for (const day of msg.payload.days) should(day).match({ vat: VAT, currency: 'NOK' });
    const sum = msg.payload.days[0].gross + msg.payload.days[1].gross;
    should(sum).be.approximately(expected.gross, 1e-6);
    should(lastStatus('r')?.text).match(/: NOK [\d,]+\.\d\d$/);
  });

  it("compare: the stack beside the account's tariffs, marked as the node's; without a tariff to stack over, said why", async () => {
    await start([pricesNode('none', 'stop'), costNode('k', 'none', 'compare'), costNode('n', 'none', 'compare', { tariff: '' })]);
    const caught = inbox('caught');
    helper.getNode('k').receive({ payload: entries });
    await quiet(20);
    const out = inbox('k-out');
    helper.getNode('k').receive({ payload: readings });
    const [msg] = await out.next(1);
    const stacked = computeCost(stackRef, readings, { timezone: ZONE });
    const rows = msg.payload.rows as Array<{ tariffId: string; gross: number; vat: number; current: boolean; name: string }>;
    should(rows.map((r) => r.tariffId).sort()).eql(['FLAT', 'GRID', 'price list + GRID']);
    const stackRow = rows.find((r) => r.tariffId === 'price list + GRID')!;
    should(stackRow).match({ vat: VAT, current: true, name: 'spot prices + grid fees' });
    should(cents(stackRow.gross)).equal(cents(stacked.gross));
    should(rows.find((r) => r.tariffId === 'GRID')).match({ vat: 25, current: false });
    should(cents(rows.find((r) => r.tariffId === 'GRID')!.gross)).equal(cents(computeCost(GRID, readings, { timezone: ZONE }).gross));

    helper.getNode('n').receive({ payload: readings });
    const [err] = await caught.next(1);
    should(err.error.message).match(/ompare mode with Prices compares the stack over the node's tariff: set Tariff/);
    should(lastStatus('n')).match({ fill: 'red' });
  });

  it('stream: wrong lists at the cost node reach Catch naming the entry, the readings counted meanwhile at the kept prices, nothing lost', async () => {
    await start([pricesNode('none', 'stop'), costNode('a', 'none', 'stream')]);
    const caught = inbox('caught');
    const out = inbox('a-out');
    helper.getNode('a').receive({ payload: entries });
    await quiet(20);
    const half = readings.length >> 1;
    for (const [ts, value] of readings.slice(0, half)) helper.getNode('a').receive({ payload: value, ts });
    await out.next(half);
    const spoilt: Array<[string, unknown[], RegExp]> = [
      [
        'a hole',
        [...entries.slice(0, 40), ...entries.slice(42)].map(({ start, price }) => ({ start, price })),
        /payload\[39\].*a hole of 30 min/,
      ],
      [
        'a duplicate',
        [...entries.slice(0, 41), entries[40], ...entries.slice(41)],
        /payload\[41\] starts at .* as .*payload\[40\] does: a duplicate price/,
      ],
      [
        'text for a number',
        entries.map((e, k) => (k === 7 ? { ...e, price: String(e.price) } : e)),
        /payload\[7\]\.price must be a number/,
      ],
    ];
    for (const [what, list, words] of spoilt) {
      helper.getNode('a').receive({ payload: list });
      const [err] = await caught.next(1);
      should(err.error.message).match(words, `${what}: ${err.error.message}`);
    }
    for (const [ts, value] of readings.slice(half)) helper.getNode('a').receive({ payload: value, ts });
    const last = (await out.next(readings.length - half)).pop()!.payload;
    // every reading counted, each interval at the list kept before the wrong ones came
    const month = computeCost(stackRef, readings, { timezone: ZONE });
    should(last.site.month.energy).be.approximately(month.energy, 1e-9);
    should(cents(last.site.month.gross)).equal(cents(month.gross));
    // a whole list per MWh read per kWh is a warning, not a silent bill
    helper.getNode('a').receive({ payload: entries.map((e) => ({ ...e, price: e.price * 1000 + 500 })) });
    await quiet(20);
    should(warnings('a').some((w) => /look 1,000× too high for prices per kWh/.test(w))).be.true();
    should(caught.received).eql([]);
  });
});
