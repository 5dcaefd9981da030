// The example flows of the sensors and cost nodes, run as shipped (only the account
// pointed at the simulator, debug nodes swapped for helper nodes to read what arrives).
import should from 'should';
import * as fs from 'fs';
import * as path from 'path';
import easyCost = require('../../nodes/easy-cost');
import easySensors = require('../../nodes/easy-sensors');
import easyTariff = require('../../nodes/easy-tariff');
import easyPlan = require('../../nodes/easy-plan');
import { priceAt } from '../../nodes/lib/engine/prices/price-source';
import { namedPeriod } from '../../nodes/lib/engine/time/time';
import { SOLAR_DAY_KWH, DEMO_TARIFFS } from '../../sim/demo-data';
import { DASHBOARD_CONFIG, exampleFlow, exampleOnSimulator, FlowNode, helper, inbox, loadFlow, simulatorHooks } from './flow-support';

const CORE = ['common/20-inject.js', 'function/10-switch.js', 'function/15-change.js', 'function/rbe.js', 'sequence/17-split.js'].map(
  (file) => require(require.resolve(`@node-red/nodes/core/${file}`)),
);
const OURS = new Set(['easy-account', 'easy-sensors', 'easy-cost', 'easy-tariff', 'easy-plan']);
const CORE_TYPES = new Set(['tab', 'inject', 'switch', 'change', 'rbe', 'debug', 'catch', 'comment', 'function', 'join']);
const EXAMPLES = fs
  .readdirSync(path.join(__dirname, '..', '..', 'examples'))
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''));

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const example = exampleFlow;

describe('examples of easy-sensors and easy-cost', function () {
  // the examples' injects fire seconds after deploy and the tests wait up to 15 s for what they make: more than mocha's 10 s
  this.timeout(30_000);
  const suite = simulatorHooks();

  async function run(name: string, edit: (n: FlowNode) => FlowNode = (n) => n) {
    const flow = exampleOnSimulator(name, suite.sim, 'UTC', edit);
    if (flow.some((n) => (n.wires as string[][] | undefined)?.flat().includes('gen-probe')))
      flow.push({ id: 'gen-probe', type: 'helper', z: 'easy-ex-generator' });
    await loadFlow([easySensors, easyCost, ...CORE], flow);
  }

  it('use only core nodes beside ours, and wire only to nodes that exist', () => {
    for (const name of ['alert-when-the-generator-runs', 'daily-cost-report', 'cost-of-last-month']) {
      const flow = example(name);
      const ids = new Set(flow.map((n) => n.id));
      for (const node of flow) {
        should(OURS.has(node.type) || CORE_TYPES.has(node.type)).be.true(`${name}: ${node.type}`);
        for (const wire of ((node.wires as string[][]) ?? []).flat()) should(ids.has(wire)).be.true(`${name}: wire to ${wire}`);
      }
      should(flow.filter((n) => 'credentials' in n)).be.empty();
      should(JSON.stringify(flow)).not.match(/demo-token/);
    }
  });

  it('can all be deployed side by side, as the demo does: no node id used twice but the shared account and dashboard base', () => {
    const { exampleFlows } = require('../../scripts/demo-flows.js');
    const { flows } = exampleFlows('http://127.0.0.1:1');
    should(flows.length).be.above(EXAMPLES.length * 3);
  });

  it("keep every chart's axis labels inside it (Dashboard 2 draws them outside the chart area by default)", () => {
    const charts = EXAMPLES.flatMap((name) => example(name).filter((n) => n.type === 'ui-chart'));
    should(charts.length).be.above(2);
    for (const chart of charts) should(chart).match({ chartOptions: { grid: { containLabel: true } } });
  });

  it('name every debug node distinctly across the examples (the demo deploys them all side by side)', () => {
    const names = EXAMPLES.flatMap((name) =>
      example(name)
        .filter((n) => n.type === 'debug')
        .map((n) => String(n.name ?? '')),
    );
    should(names.length).be.above(10);
    for (const name of names) should(name.trim()).not.be.empty();
    should(names.filter((n, i) => names.indexOf(n) !== i)).eql([]);
  });

  describe('alert when the generator runs', () => {
    const NAME = 'alert-when-the-generator-runs';

    /** The example as shipped, plus a probe beside the filter that sees what easy-sensors sends. */
    const withProbe = (n: FlowNode): FlowNode =>
      n.id === 'gen-sensors' ? { ...n, wires: [[...(n.wires as string[][])[0], 'gen-probe']] } : n;
    let probe: ReturnType<typeof inbox>;
    let alerts: ReturnType<typeof inbox>;
    async function deployWithProbe() {
      await run(NAME, withProbe);
      probe = inbox('gen-probe');
      alerts = inbox('gen-alert');
    }

    it('sends no alert on deploy or restart, only when the generator changes', async () => {
      await deployWithProbe();
      // deploy: the first poll reads the input, easy-sensors sends it (Only changed sends the first value)
      const [first] = await probe.next(1, 8000);
      should(first.topic).equal('1');
      should([0, 1]).containEql(first.payload.value);
      await delay(300);
      should(alerts.received).eql([]);
      // restart: Node-RED stopped and started again, the same input read again
      await helper.unload();
      await deployWithProbe();
      const [again] = await probe.next(1, 8000);
      await delay(300);
      should(alerts.received).eql([]);
      // a change, as easy-sensors sends it at the next poll: alerted, once
      const flipped = 1 - again.payload.value;
      helper.getNode('gen-changes').receive({ ...again, payload: { ...again.payload, value: flipped } });
      const [alert] = await alerts.next(1);
      should(alert.payload).match(flipped === 1 ? /^Generator started \(value sent \d{4}-/ : /^Generator stopped \(value sent \d{4}-/);
      // the same value again (a stale flag changed, a repeated poll): no second alert
      helper.getNode('gen-changes').receive({ ...again, payload: { ...again.payload, value: flipped, stale: true } });
      await delay(200);
      should(alerts.received).eql([]);
    });

    it("says in the flow's info how it alerts on a change only", () => {
      const tab = example(NAME).find((n) => n.type === 'tab')!;
      should(tab.info)
        .match(/first value/)
        .and.match(/ignore initial value/)
        .and.match(/never fires on a start, a restart or a deploy/);
    });
  });

  it('daily cost report: a reading after midnight reports the day that ended', async () => {
    await run('daily-cost-report');
    const out = inbox('daily-out');
    const cost = helper.getNode('daily-cost');
    cost.receive({ payload: 100, ts: '2026-03-04T23:00:00Z' });
    cost.receive({ payload: 102, ts: '2026-03-05T00:30:00Z' });
    const [msg] = await out.next(1);
    // Wednesday 23:00 is outside working hours (0.31 GBP/kWh) on a weekday; VAT 20 %
    should(msg.payload).equal(`Day ending 2026-03-05T00:00:00.000Z: 2.0 kWh, GBP ${(2 * 0.31 * 1.2).toFixed(2)} incl. VAT`);
  });

  it('cost of last month: range and batch injects give summaries', async () => {
    await run('cost-of-last-month');
    const out = inbox('month-out');
    helper.getNode('month-inject').receive({});
    const [month] = await out.next(1, 5000);
    should(month.payload).have.properties(['from', 'to', 'kWh', 'net', 'gross', 'byRule']);
    should(month.payload.net).match(/^GBP [\d,]+\.\d\d$/);
    should(month.payload.kWh).be.above(24 * 28 * 0.5);
    helper.getNode('batch-inject').receive({}); // the inject sets its own three readings
    const [batch] = await out.next(1);
    // Monday 08:00-12:00 priced at its start (weekday, outside hours), 12:00-20:00 in working hours
    should(batch.payload).match({ energy: 22, formatted: { net: { text: (10.5 * 0.31 + 11.5 * 0.42).toFixed(2) } } });
  });

  describe('price and cost dashboard (Dashboard 2 widgets swapped for helper nodes)', () => {
    it('uses Dashboard 2 widgets fed straight from our nodes and core ones, no function node', () => {
      const flow = example('price-and-cost-dashboard');
      const ids = new Set(flow.map((n) => n.id));
      for (const node of flow) {
        should(
          OURS.has(node.type) ||
            CORE_TYPES.has(node.type) ||
            DASHBOARD_CONFIG.has(node.type) ||
            ['ui-text', 'ui-chart'].includes(node.type),
        ).be.true(node.type);
        should(node.type).not.equal('function');
        for (const wire of ((node.wires as string[][]) ?? []).flat()) should(ids.has(wire)).be.true(`wire to ${wire}`);
      }
      const chart = flow.find((n) => n.type === 'ui-chart')!;
      // what the tariff node sends: series from msg.topic, x and y from each point, time axis kept whole
      should(chart).match({
        category: 'topic',
        categoryType: 'msg',
        xAxisProperty: 'x',
        xAxisPropertyType: 'property',
        yAxisProperty: 'y',
        yAxisPropertyType: 'property',
        xAxisType: 'time',
        removeOlder: '0',
      });
    });

    it("shows the price now, the next 24 h as step lines, and today's and this month's cost", async () => {
      const flow = exampleOnSimulator('price-and-cost-dashboard', suite.sim);
      const before = Date.now();
      await loadFlow([easySensors, easyCost, easyTariff, easyPlan, ...CORE], flow);
      const [prices, charts, todays, months, heater, generator, dayBars, genToday] = [
        'dash-price',
        'dash-chart',
        'dash-cost-today',
        'dash-cost-month',
        'dash-heater',
        'dash-generator',
        'dash-days-chart',
        'dash-gen-today',
      ].map(inbox);
      const [price] = await prices.next(1);
      const now = priceAt(
        DEMO_TARIFFS.find((t) => t.id === 'DEMO-WORKDAY')!,
        Date.now(),
        { timezone: 'UTC' },
      )!;
      should(price.payload).equal(`${now.gross.toFixed(4).replace(/0{1,2}$/, '')} GBP/kWh incl. VAT`);
      // the chart: the tariff's two lines (replace, append) and the heater's planned hours as a third
      // line, sent when planned and again after each replace; in whichever order the two nodes start
      const sent = await charts.next(4, 8000);
      const lines = sent.filter((m) => m.topic !== 'heater planned');
      const [net, gross] = lines;
      should([net.topic, net.action, gross.topic, gross.action]).eql(['net GBP/kWh', 'replace', 'gross GBP/kWh', 'append']);
      const planned = sent.filter((m) => m.topic === 'heater planned');
      should(planned.length).be.above(0);
      const last = sent.lastIndexOf(planned[planned.length - 1]);
      should(last).be.above(sent.indexOf(net), 'the planned hours are drawn after the chart was replaced');
      const points = planned[0].payload as Array<{ x: number; y: number | null }>;
      should(points.length % 3).equal(0);
      should(points.length).be.above(0);
      for (let i = 0; i < points.length; i += 3) {
        should(points[i + 1].x).be.above(points[i].x);
        should(points[i].y).equal(points[i + 1].y);
        should(points[i + 2]).eql({ x: points[i + 1].x, y: null });
      }
      const [plan] = await heater.next(1, 8000);
      // the run time to the minute, then the slots (or why nothing is planned, in the plan's own words)
      should(plan.payload).match(/^((\d+ h( \d+ min)?|\d+ min): (\d\d:\d\d–\d\d:\d\d(, )?)+ at [\d.]+ GBP\/kWh|nothing planned: .+)$/);
      const [gen] = await generator.next(1, 8000);
      should(['running', 'stopped']).containEql(gen.payload);
      // today's run time: the demo's generator runs the first 5 minutes of every quarter hour (UTC)
      const [ran] = await genToday.next(1, 10_000);
      should(ran.payload).match(/^\d+\.\d h in \d+ starts?$/);
      should(net.payload[0].x).be.within(before, Date.now());
      should(net.payload[0].y).equal(now.price);
      // the injects fire 2 and 3 s after deploy
      const [today] = await todays.next(1, 8000);
      const [month] = await months.next(1, 8000);
      for (const text of [today.payload, month.payload]) should(text).match(/^GBP [\d,]+\.\d\d \(\d+\.\d kWh\)$/);
      // this month's cost per day: one bar per local day so far (UTC here), adding up to the month's cost
      const [bars] = await dayBars.next(1, 8000);
      should(bars).match({ topic: 'GBP per day', action: 'replace' });
      const days = new Date().getUTCDate();
      should(bars.payload.map((b: { x: string }) => b.x)).eql(Array.from({ length: days }, (_, i) => String(i + 1).padStart(2, '0')));
      const total = bars.payload.reduce((sum: number, b: { y: number }) => sum + b.y, 0);
      should(total).be.approximately(Number(/^GBP ([\d,.]+)/.exec(month.payload)![1].replace(/,/g, '')), 0.01 * days);
    });
  });

  describe('price and cost dashboard: import, export and net per day', () => {
    it('the last 7 days by local day: import cost, export credit (the solar register at 0.15) and the net, export at every whole day', async () => {
      await loadFlow([easySensors, easyCost, easyTariff, easyPlan, ...CORE], exampleOnSimulator('price-and-cost-dashboard', suite.sim));
      const [chart] = await inbox('dash-io-chart').next(1, 15_000);
      should(chart.action).equal('replace');
      const points = chart.payload as Array<{ x: string; y: number; series: string }>;
      const of = (series: string) => points.filter((p) => p.series === series);
      const [imp, exp, net] = ['import', 'export', 'net'].map(of);
      // a day a bar (UTC here): the 7 days back from now cut to the range, 8 local days
      should(imp.map((p) => p.x)).eql(exp.map((p) => p.x));
      should(imp.length).equal(8);
      // each whole day in between holds its noon: the sun's day at 0.15 a kWh, no VAT on export
      for (const day of exp.slice(1, -1)) should(day.y).be.approximately(Math.round(SOLAR_DAY_KWH * 0.15 * 100) / 100, 0.011);
      for (const p of imp) should(p.y).be.above(0);
      imp.forEach((p, k) => {
        should(net[k].x).equal(p.x);
        should(net[k].y).be.approximately(p.y - exp[k].y, 0.011);
      });
    });
  });

  describe('the generator and the bill (Dashboard 2 widgets swapped for helper nodes)', () => {
    const WIDGETS = new Set(['ui-text', 'ui-chart']);

    async function runDashboard(name: string) {
      await loadFlow([easyCost, ...CORE], exampleOnSimulator(name, suite.sim));
    }

    for (const name of ['how-long-did-the-generator-run', 'which-tariff-is-cheapest-for-me']) {
      it(`${name}: a page of its own, core nodes and Dashboard 2 widgets only, the dashboard's base and theme shared`, () => {
        const flow = example(name);
        const ids = new Set(flow.map((n) => n.id));
        for (const node of flow) {
          should(OURS.has(node.type) || CORE_TYPES.has(node.type) || DASHBOARD_CONFIG.has(node.type) || WIDGETS.has(node.type)).be.true(
            node.type,
          );
          should(node.type).not.equal('function');
          for (const wire of ((node.wires as string[][]) ?? []).flat()) should(ids.has(wire)).be.true(`wire to ${wire}`);
        }
        const shared = example('price-and-cost-dashboard').filter((n) => n.type === 'ui-base' || n.type === 'ui-theme');
        should(flow.filter((n) => n.type === 'ui-base' || n.type === 'ui-theme')).eql(shared);
        const page = flow.find((n) => n.type === 'ui-page')!;
        should(page.ui).equal('dash-base');
        should(flow.filter((n) => n.type === 'ui-group').every((g) => g.page === page.id)).be.true();
        should(flow.find((n) => n.type === 'ui-chart')).match({
          chartType: 'bar',
          xAxisType: 'category',
          category: 'topic',
          xAxisProperty: 'x',
          yAxisProperty: 'y',
        });
        should(flow.filter((n) => 'credentials' in n)).be.empty();
      });
    }

    it('how long did the generator run: run time, starts and cost in words and as bars, for yesterday on deploy', async () => {
      await runDashboard('how-long-did-the-generator-run');
      const [words, bars] = ['genrun-text', 'genrun-chart'].map(inbox);
      const [text] = await words.next(1, 8000);
      // the simulator's generator runs 5 minutes of every quarter hour (UTC): 4 starts an hour, the one
      // at midnight included (a start is counted in [from, to)), so 96 starts and 8 hours on a 24-hour day
      const yesterday = namedPeriod('yesterday', Date.now(), { timezone: 'Europe/London' });
      const hours = (yesterday.to - yesterday.from) / 3600_000;
      should(text.payload).match(
        new RegExp(
          `^yesterday: ${(hours / 3).toFixed(1)} h, ${hours * 4} starts; running GBP [\\d,]+\\.\\d\\d, not running GBP [\\d,]+\\.\\d\\d$`,
        ),
      );
      const [bar] = await bars.next(1);
      should(bar.topic).equal('yesterday');
      should(bar.payload.map((p: { x: string }) => p.x)).eql(['running', 'not running']);
      should(bar.payload[0].y).be.above(0);
      helper.getNode('genrun-ask-week').receive({ gateway: 'DEMO', sensor: 'e1.kwh', period: 'this-week' });
      const [week] = await words.next(1, 8000);
      should(week.payload).match(/^this-week: /);
    });

    it('which tariff is cheapest for me: the cheapest in words, the tariffs as bars, for last month on deploy', async () => {
      await runDashboard('which-tariff-is-cheapest-for-me');
      const [words, bars, otherBars] = ['cmp-text', 'cmp-chart', 'cmp-chart-other'].map(inbox);
      const [text] = await words.next(1, 8000);
      // the period in words, never the raw key; the user's own tariff named
      should(text.payload).match(
        /^Last month: the cheapest is .+, (GBP|EUR) [\d,]+\.\d\d\. Yours, Working hours \(50\/60\/70\), (costs [\d,]+\.\d\d GBP more than .+|is the cheapest in GBP)\.$/,
      );
      should(text.payload).not.match(/last-month/);
      // one chart per currency, each replacing what it showed
      const [gbp] = await bars.next(1);
      const [eur] = await otherBars.next(1);
      should(gbp).match({ topic: 'gross cost (GBP)', currency: 'GBP', action: 'replace' });
      should(eur).match({ topic: 'gross cost (EUR)', currency: 'EUR', action: 'replace' });
      should(gbp.payload.length).be.above(2);
      // one short label per bar, the user's own marked
      const labels = [...gbp.payload, ...eur.payload].map((b: { x: string }) => b.x);
      should(new Set(labels).size).equal(labels.length);
      should(labels.filter((l) => l.startsWith('Yours: '))).eql(['Yours: Working hours (50/60/70)']);
    });
  });
});
