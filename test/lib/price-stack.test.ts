// Price stacks (semantics rules 51-54): the worked examples of docs/semantics.md, VAT, no
// price never 0, and every function that takes a tariff taking a stack.
import should from 'should';
import { priceList } from '../../nodes/lib/engine/prices/price-list';
import { engineContext, nextPriceChange, priceAt, schedule } from '../../nodes/lib/engine/prices/price-source';
import { cheapestWindows, dearestWindows } from '../../nodes/lib/engine/plan/plan';
import { savingOffWindows } from '../../nodes/lib/engine/plan/plan-saving';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { compareTariffs } from '../../nodes/lib/engine/reports/compare';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';

const at = (iso: string) => Date.parse(iso);
const OSLO = { timezone: 'Europe/Oslo' };

/** The example of rules 53-54: Oslo, 29 March 2026 (clocks 02:00 -> 03:00 at 01:00 UTC). */
function example() {
  const list = priceList(
    [
      { start: '2026-03-29T00:00:00Z', price: 0.1 },
      { start: '2026-03-29T00:15:00Z', price: -0.05 },
      { start: '2026-03-29T00:30:00Z', end: '2026-03-29T01:00:00Z', price: 0.2 },
      { start: '2026-03-29T01:15:00Z', price: 0.3 },
    ],
    { resolution: 3600e3 },
  );
  const fees: Tariff = {
    id: 'grid',
    name: 'Grid',
    vat: 25,
    currency: 'NOK',
    rules: [
      { priority: 1, price: 0.5, time_start: '02:30', time_end: '03:00' },
      { priority: 2, price: 0.01 },
    ],
  };
  return { list, fees, stack: { list, fees, addOns: 0.001, vat: 25 } };
}

const near = (x: number | null | undefined, y: number) => should(Math.abs((x as number) - y)).be.below(1e-12);

describe('price stacks', () => {
  it("rule 53's example: the schedule, the gap, the DST day's missing fee", () => {
    const { stack } = example();
    const entries = schedule(stack, at('2026-03-28T23:00:00Z'), at('2026-03-29T03:00:00Z'), OSLO);
    should(entries.map((e) => [new Date(e.from).toISOString().slice(11, 16), e.price === null ? null : +e.price.toFixed(6)])).eql([
      ['23:00', null],
      ['00:00', 0.111],
      ['00:15', -0.039],
      ['00:30', 0.211],
      ['01:00', null],
      ['01:15', 0.311],
      ['02:15', null],
    ]);
    should(entries[1]).containEql({ spot: 0.1, fees: 0.01, ruleIndex: 1 });
    const p = priceAt(stack, '2026-03-29T00:20:00Z', OSLO)!;
    near(p.price, -0.039);
    near(p.gross, -0.04875);
    should(p.parts).eql({ spot: -0.05, fees: 0.01, addOns: 0.001, vatIncluded: false });
    should(p).containEql({ vat: 25, currency: 'NOK', tariffId: 'price list + grid', ruleIndex: 1 });
    should(priceAt(stack, '2026-03-29T01:05:00Z', OSLO)).be.null();
    should(priceAt(stack, '2026-03-29T02:15:00Z', OSLO)).be.null();
    should(nextPriceChange(stack, '2026-03-29T00:20:00Z', OSLO)!.at).equal(at('2026-03-29T00:30:00Z'));
    const gap = nextPriceChange(stack, '2026-03-29T00:40:00Z', OSLO)!;
    should(gap).eql({ at: at('2026-03-29T01:00:00Z'), price: null });
    should(nextPriceChange(stack, '2026-03-29T02:20:00Z', OSLO)).be.null();
  });

  it("rule 54's example: the cost by part, the gap's energy unpriced", () => {
    const { stack } = example();
    const readings = [
      ['2026-03-29T00:00:00Z', 0],
      ['2026-03-29T01:00:00Z', 1],
      ['2026-03-29T02:00:00Z', 3],
    ];
    const cost = computeCost(stack, readings, { ...OSLO, attribution: 'prorate' });
    near(cost.net, 0.59);
    near(cost.gross, 0.7375);
    near(cost.unpricedEnergy, 0.5);
    near(cost.parts!.spot, 0.5625);
    near(cost.parts!.fees, 0.025);
    near(cost.parts!.addOns, 0.0025);
    should(cost.byRule.map((r) => [r.ruleIndex, r.price, +r.energy.toFixed(9), +r.net.toFixed(9)])).eql([[1, 0.01, 2.5, 0.025]]);
    should(cost).containEql({ currency: 'NOK', vat: 25 });
  });

  it("fees' rule times meet the list's quarter hours at exact instants, in local time", () => {
    const list = priceList(
      Array.from({ length: 8 }, (_, k) => ({ start: at('2026-01-05T05:00:00Z') + k * 900e3, price: k })),
      { resolution: 900e3 },
    );
    const fees: Tariff = {
      id: 'f',
      name: 'f',
      vat: 0,
      currency: 'EUR',
      // 06:40 local (05:40 UTC) falls inside the list's 05:30-05:45 quarter
      rules: [
        { priority: 1, price: 100, time_start: '06:40', time_end: '24:00' },
        { priority: 2, price: 0 },
      ],
    };
    const s = schedule({ list, fees }, list.from, list.to, { timezone: 'Europe/Brussels' });
    should(s.map((e) => [(e.from - list.from) / 60e3, e.price])).eql([
      [0, 0],
      [15, 1],
      [30, 2],
      [40, 102],
      [45, 103],
      [60, 104],
      [75, 105],
      [90, 106],
      [105, 107],
    ]);
  });

  it("vat: 'included' adds nothing; no fees: the list and add-ons alone", () => {
    const { list, fees } = example();
    const included = priceAt({ list, fees, vat: 'included' }, '2026-03-29T00:00:00Z', OSLO)!;
    near(included.price, 0.11);
    near(included.gross, 0.11);
    should(included.vat).equal(0);
    should(included.parts!.vatIncluded).be.true();
    const bare = priceAt({ list, addOns: 0.02, currency: 'EUR' }, '2026-03-29T00:15:00Z', OSLO)!;
    near(bare.price, -0.03);
    should(bare).containEql({ ruleIndex: -1, currency: 'EUR', vat: 0, tariffId: 'price list' });
  });

  it('no fee rule matching is no price, never 0', () => {
    const { list } = example();
    const peakOnly: Tariff = {
      id: 'p',
      name: 'p',
      vat: 0,
      currency: 'NOK',
      rules: [{ priority: 1, price: 0.3, time_start: '01:15', time_end: '01:30' }],
    };
    // Oslo is UTC+1 on that night until 01:00 UTC: 01:15 local is 00:15 UTC
    should(priceAt({ list, fees: peakOnly }, '2026-03-29T00:00:00Z', OSLO)).be.null();
    near(priceAt({ list, fees: peakOnly }, '2026-03-29T00:20:00Z', OSLO)!.price, 0.25);
    const plan = cheapestWindows({ list, fees: peakOnly }, { ...OSLO, from: list.from, to: list.to, duration: 3600e3 });
    should(plan.planned).equal(900e3);
    should(plan.shortfall).equal('only 15 min of 1 h planned: no price is known in the rest of the window');
  });

  it('plans on the stack: cheapest, dearest, switching off', () => {
    const { stack, list } = example();
    const cheap = cheapestWindows(stack, { ...OSLO, from: list.from, to: list.to, duration: 1800e3 });
    should(cheap.slots.map((s) => [s.from, s.to])).eql([[list.from, list.from + 1800e3]]);
    near(cheap.slots[0].price, (0.111 - 0.039) / 2);
    should(cheap).containEql({ currency: 'NOK', vat: 25 });
    const dear = dearestWindows(stack, { ...OSLO, from: list.from, to: list.to, duration: 1800e3, contiguous: true });
    should(dear.slots.map((s) => [s.from, s.to])).eql([[at('2026-03-29T01:15:00Z'), at('2026-03-29T01:45:00Z')]]);
    const off = savingOffWindows(stack, { ...OSLO, from: list.from, to: list.to, maxOffInRow: 900e3 });
    should(off.slots.map((s) => [s.from, s.to])).eql([[list.from, list.from + 900e3]]);
  });

  it('compareTariffs ranks stacks among tariffs', () => {
    const { stack, fees } = example();
    const readings = [
      ['2026-03-29T00:00:00Z', 0],
      ['2026-03-29T00:30:00Z', 1],
    ];
    const rows = compareTariffs([fees, { ...stack, id: 'spot' }, { id: 'bad' }], readings, OSLO);
    // the grid tariff alone (0.01) is cheaper than spot + grid on these readings
    should(rows.map((r) => r.tariffId)).eql(['grid', 'spot']);
    near(rows[1].net, 0.111); // attributed at the interval's start (rule 11)
    should([...new Set(rows.problems.map((p) => p.tariffId))]).eql(['bad']);
  });

  it('costs a stack with a sensor timeline and splitBy: fee rules follow the sensor, each value its share', () => {
    const { list } = example();
    const fees: Tariff = {
      id: 'g',
      name: 'g',
      vat: 0,
      currency: 'NOK',
      rules: [
        { priority: 1, price: 0.5, gateway_id: 'gw', sensor_id: 'heat', sensor_value: 1, sensor_condition: 'eq' },
        { priority: 2, price: 0.01 },
      ],
    };
    const readings = [0, 1, 2, 3, 4].map((k) => [Date.parse('2026-03-29T00:00:00Z') + k * 900e3, k]);
    const sensors = {
      gw: {
        heat: [
          ['2026-03-29T00:00:00Z', 0],
          ['2026-03-29T00:30:00Z', 1],
        ],
      },
    } as never;
    const cost = computeCost({ list, fees }, readings, { ...OSLO, sensors, splitBy: { gatewayId: 'gw', sensorId: 'heat' } });
    // quarters at 0.10 and -0.05 with the 0.01 fee, then 0.20 twice with the 0.5 fee
    near(cost.net, 0.11 - 0.04 + 0.7 + 0.7);
    should(cost.bySensorValue!.map((v) => [v.value, +v.energy.toFixed(9), +v.net.toFixed(9)])).eql([
      [0, 2, 0.07],
      [1, 2, 1.4],
    ]);
    should(cost.byRule.map((r) => [r.ruleIndex, r.energy])).eql([
      [0, 2],
      [1, 2],
    ]);
  });

  it('compiles a stack once per list and fields, a new literal each call or not; a list of entries every call', () => {
    const { list, fees } = example();
    const ct = (stack: object) => engineContext(stack, OSLO).ct;
    should(ct({ list, fees, vat: 25 })).equal(ct({ list, fees, vat: 25 }));
    should(ct({ list, fees, vat: 25 })).not.equal(ct({ list, fees, vat: 20 }));
    should(ct({ list, fees, addOns: 0.1 })).not.equal(ct({ list, fees, addOns: 0.2 }));
    should(ct({ list, fees })).not.equal(ct({ list }));
    const entries = list.entries();
    const stack = { list: entries, fees };
    near(priceAt(stack, '2026-03-29T00:00:00Z', OSLO)!.price, 0.11);
    entries[0].price = 0.5; // edited in place: read again
    near(priceAt(stack, '2026-03-29T00:00:00Z', OSLO)!.price, 0.51);
  });

  it('follows fees changed in place, and refuses a wrong stack with a clear error', () => {
    const { stack, fees } = example();
    near(priceAt(stack, '2026-03-29T00:00:00Z', OSLO)!.price, 0.111);
    fees.rules[1].price = 0.02;
    near(priceAt(stack, '2026-03-29T00:00:00Z', OSLO)!.price, 0.121);
    should(() => priceAt({ ...stack, addOns: '0.1' }, 0, OSLO)).throw(/the stack's addOns must be a number per kWh, got "0.1"/);
    should(() => priceAt({ ...stack, vat: '25' }, 0, OSLO)).throw(/the stack's vat must be a percentage or 'included', got "25"/);
    should(() => priceAt({ ...stack, fees: { id: 'x' } }, 0, OSLO)).throw(/tariff "x": name must be a string/);
    should(() => priceAt({ list: [{ start: 0, price: '1' }] }, 0, OSLO)).throw(/price list entry 0 .*got the string "1"/);
  });
});
