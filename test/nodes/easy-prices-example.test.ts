// The example "run the heater on spot prices plus the grid fees" as shipped, on the simulator
// at any hour of the day (its sample list is today's and tomorrow's quarter hours on this
// machine's clock), Dashboard 2's widgets read by helper nodes: the stack priced and planned,
// and its page (Spot prices) fed the stacked price with its parts, until when prices are
// known, the heater's planned quarter hours, and the known hours as chart lines (total net
// and gross, spot and fees) with the planned blocks; nothing caught.
import should from 'should';
import type { Simulator } from '../../sim/server';
import easyTariff = require('../../nodes/easy-tariff');
import easyPlan = require('../../nodes/easy-plan');
import easyPrices = require('../../nodes/easy-prices');
import easyAccount = require('../../nodes/easy-account');
import { exampleFlow, exampleOnSimulator, helper, inbox, TOKEN, withSimulator } from './flow-support';
import { until } from '../fake-clock';

const NAME = 'run-the-heater-on-spot-prices-plus-the-grid-fees';
const CORE = ['common/20-inject.js', 'function/10-function.js', 'function/10-switch.js', 'function/15-change.js'].map((file) =>
  require(require.resolve(`@node-red/nodes/core/${file}`)),
);
type Point = { x: number; y: number | null };

describe(`the example "${NAME}"`, function () {
  this.timeout(30_000);
  let sim: Simulator | null = null;

  afterEach(async () => {
    await helper.unload();
    await sim?.close();
    sim = null;
  });

  it('has a Dashboard 2 page of its own, on the shared base and theme, fed by our nodes through core ones', () => {
    const flow = exampleFlow(NAME);
    const shared = exampleFlow('price-and-cost-dashboard').filter((n) => n.type === 'ui-base' || n.type === 'ui-theme');
    should(flow.filter((n) => n.type === 'ui-base' || n.type === 'ui-theme')).eql(shared);
    const pages = flow.filter((n) => n.type === 'ui-page');
    should(pages.map((p) => [p.path, p.ui])).eql([['/spot', 'dash-base']]);
    should(flow.filter((n) => n.type === 'ui-group').every((g) => g.page === pages[0].id)).be.true();
    // widgets only of the kinds the other pages use; the chart as easy-tariff's chart output draws
    should(
      [...new Set(flow.filter((n) => n.type.startsWith('ui-') && !n.type.match(/^ui-(base|theme|page|group)$/)).map((n) => n.type))].sort(),
    ).eql(['ui-chart', 'ui-text']);
    should(flow.find((n) => n.type === 'ui-chart')).match({
      category: 'topic',
      xAxisType: 'time',
      xAxisProperty: 'x',
      yAxisProperty: 'y',
      removeOlder: '0',
    });
    should(flow.find((n) => n.id === 'spot-price')).match({ chart: true, chartDays: 2 });
  });

  it("the plan's blocks as chart points: one flat list, three points a block, for a plan of any number of blocks", async () => {
    // both examples draw the plan so; a plan of several blocks made nested lists (one per block) before, which the chart cannot draw
    const nodes = [...exampleFlow(NAME), ...exampleFlow('price-and-cost-dashboard')].filter((n) =>
      n.name?.toString().match(/as chart points$/),
    );
    should(nodes.map((n) => n.id)).eql(['spotdash-plan-points', 'dash-plan-points']);
    const flow = [
      { id: 'tab', type: 'tab' },
      ...nodes.flatMap(({ g: _group, ...n }) => [
        { ...n, z: 'tab', wires: [[`${n.id}-out`]] },
        { id: `${n.id}-out`, type: 'helper', z: 'tab' },
      ]),
    ];
    await helper.load(CORE, flow, {});
    const block = (h: number, price: number) => ({
      from: new Date(Date.UTC(2026, 0, 1, h)).toISOString(),
      to: new Date(Date.UTC(2026, 0, 1, h, 45)).toISOString(),
      price,
    });
    for (const n of nodes) {
      const out = inbox(`${n.id}-out`);
      for (const slots of [[], [block(1, 0.1)], [block(1, 0.1), block(3, 0.12), block(5, 0.09)]]) {
        helper.getNode(n.id).receive({ payload: { slots } });
        const [msg] = await out.next(1);
        should(msg).match({ topic: 'heater planned', action: 'append' });
        should(msg.payload).eql(
          slots.flatMap((b) => [
            { x: Date.parse(b.from), y: b.price },
            { x: Date.parse(b.to), y: b.price },
            { x: Date.parse(b.to), y: null },
          ]),
          `${n.id}: ${slots.length} blocks`,
        );
      }
    }
  });

  it('as shipped: the stack priced and planned, its page fed the price and its parts, the known hours and the plan', async () => {
    sim = await withSimulator();
    const flow = exampleOnSimulator(NAME, sim, 'Europe/London');
    await helper.load([easyAccount, easyPrices, easyTariff, easyPlan, ...CORE], flow, { acc: { token: TOKEN } });
    const [price, plans, errors, priceText, knownText, heaterText, chart] = [
      'spot-price-out',
      'spot-plan-out',
      'spot-errors',
      'spotdash-price',
      'spotdash-known',
      'spotdash-heater',
      'spotdash-chart',
    ].map(inbox);
    // the sample list comes half a second after deploy; the price with its parts after it
    let priced: Record<string, any> | undefined;
    let prices = 0; // each price is put in words on the page: as many texts
    while (!priced) {
      const [msg] = await price.next(1, 5000);
      prices++;
      if (msg.payload.spot !== null) priced = msg;
    }
    should(priced.payload).match({ tariffId: 'DEMO-NIGHT', currency: 'GBP', addOns: 0.01, vat: 5, reason: null });
    should(Math.abs(priced.payload.price - (priced.payload.spot + priced.payload.fees + 0.01))).be.below(1e-9);
    should([0.12, 0.28]).containEql(priced.payload.fees);
    // the two local days of the sample, back to back: prices known until the end of tomorrow (this machine's midnight)
    should(priced.payload.pricesKnownUntilMs - Date.now()).be.within(22 * 3_600_000, 50 * 3_600_000); // days of 23 to 25 hours
    // the plan made on the list (the one on deploy had no prices), and what the page made of it: waited for, not slept on
    const onList = () => plans.received.filter((m) => m.payload.pricesKnownUntilMs === priced!.payload.pricesKnownUntilMs);
    await until('the plan on the list', () => onList().length > 0);
    const plan = onList()[onList().length - 1].payload;
    // 3 h asked; all of it unless the test runs in the last hours of a night window (any hour of the day must pass)
    should(plan).match({ tariffId: 'DEMO-NIGHT', requested: 3 * 3_600_000 });
    should(plan.planned).be.above(0);
    should(plan.pricesKnownUntilMs).equal(priced.payload.pricesKnownUntilMs);

    // the page: each price's and plan's words, and the list plan's blocks drawn after the chart was replaced (known by their first point)
    const sent = chart.received;
    const last = () => sent.map((m) => m.topic).lastIndexOf('net GBP/kWh');
    const firstX = plan.slots.length ? Date.parse(plan.slots[0].from) : null;
    await until(
      'the page fed the plan',
      () =>
        heaterText.received.length >= plans.received.length &&
        knownText.received.length >= prices &&
        priceText.received.length >= prices &&
        last() >= 0 &&
        sent.slice(last()).some((m) => m.topic === 'heater planned' && (m.payload[0]?.x ?? null) === firstX),
    );
    // the page: the stacked price in words with its parts, the list's end, the heater's quarter hours
    const gbp = (n: number) => String(n.toFixed(4)).replace(/0{1,2}$/, '');
    const p = priced.payload;
    should(priceText.received.map((m) => m.payload)).containEql(
      `${gbp(p.gross)} GBP/kWh incl. VAT: spot ${gbp(p.spot)} + grid fees ${gbp(p.fees)} + add-ons 0.01 before VAT`,
    );
    should(knownText.received[knownText.received.length - 1].payload).equal(p.pricesKnownText);
    should(p.pricesKnownText).match(/^prices known until (\d{4}-\d\d-\d\d )?\d\d:\d\d$/);
    should(heaterText.received[heaterText.received.length - 1].payload).match(
      /^(\d+ h( \d+ min)?|\d+ min): (\d\d:\d\d–\d\d:\d\d(, )?)+ at [\d.]+ GBP\/kWh(; .+)?$/,
    );
    // the chart: the list charted when it came (the four lines of the stack, replacing the chart), then the plan's blocks
    should(sent.slice(last(), last() + 4).map((m) => [m.topic, m.action])).eql([
      ['net GBP/kWh', 'replace'],
      ['gross GBP/kWh', 'append'],
      ['spot GBP/kWh', 'append'],
      ['fees GBP/kWh', 'append'],
    ]);
    const [net, , spot, fees] = sent.slice(last(), last() + 4).map((m) => m.payload as Point[]);
    // the known hours: spot and fees add up to the total (with the add-ons) at each step; gaps only beyond the list
    const known = net.filter((pt) => pt.y !== null);
    should(known.length).be.above(40);
    should(known[known.length - 1].x).equal(p.pricesKnownUntilMs);
    for (let k = 0; k < net.length; k += 2) {
      const mid = (net[k].x + net[k + 1].x) / 2;
      const yAt = (line: Point[]) => line.find((q, j) => j % 2 === 0 && q.x <= mid && mid < line[j + 1].x)?.y ?? null;
      if (net[k].y === null) should([yAt(spot), yAt(fees)]).eql([null, null]);
      else should(yAt(spot)! + yAt(fees)! + 0.01).be.approximately(net[k].y!, 1e-9);
    }
    // the plan's blocks drawn after the chart was replaced: a step at the block's price, a gap after each
    const blocks = sent.slice(last()).filter((m) => m.topic === 'heater planned');
    should(blocks.length).be.above(0);
    const points = blocks[blocks.length - 1].payload as Point[];
    should(points.length).equal(plan.slots.length * 3);
    for (let i = 0; i < points.length; i += 3) should(points[i + 2]).eql({ x: points[i + 1].x, y: null });
    should(errors.received).eql([]);
  });
});
