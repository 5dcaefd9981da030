// The demand charge in easy-cost's month-end projection (docs/semantics.md, rule 63)
// through the real Node-RED runtime: easy-peak's output 1 wired into easy-cost's stream
// mode, worked by hand; a bill of another month left out; a bill edited on its way at Catch.
// The reactive energy charge beside it (rule 65), and a kvarh counter wired into easy-cost.
import should from 'should';
import { roundAmount } from '../../nodes/lib/engine/common/format';
import { demandLine, siteBillOf } from '../../nodes/lib/engine/peak/bill-message';
import easyCost = require('../../nodes/easy-cost');
import easyPeak = require('../../nodes/easy-peak');
import { demoTariffs } from '../../sim/demo-data';
import { accountNode, catchNodes, helper, inbox, loadFlow, quiet, simulatorHooks } from './flow-support';

/** A flat tariff with a negative VAT (the tariff checker takes it): a gross below the net. */
const REBATE = { id: 'REBATE', name: 'rebate', vat: -60, currency: 'GBP', rules: [{ priority: 1, price: 0.25 }] };

describe('easy-cost: the demand charge beside the energy cost', function () {
  this.timeout(20_000);
  const suite = simulatorHooks({ simulator: () => ({ tariffs: () => [...demoTariffs(), REBATE] }) });

  it("easy-peak's bill wired in: billed so far and projected, added to the month's energy cost (London, March 2026)", async () => {
    await loadFlow(
      [easyCost, easyPeak],
      [
        accountNode(suite.sim, 'Europe/London'),
        { id: 'p', type: 'easy-peak', account: 'acc', minutes: '15', pricePerKw: '10', maxGapMinutes: '20', wires: [['c'], [], []] },
        { id: 'c', type: 'easy-cost', account: 'acc', tariff: 'DEMO-FLAT', mode: 'stream', wires: [['out'], []] },
        { id: 'out', type: 'helper' },
        ...catchNodes(),
      ],
    );
    const out = inbox('out');
    const caught = inbox('caught');
    /** A reading to both nodes; easy-cost's message for it (easy-peak's bill reaches easy-cost after it). */
    const read = async (kwh: number, ts: string, to = ['p', 'c']) => {
      for (const id of to) helper.getNode(id).receive({ payload: kwh, ts });
      const [msg] = await out.next(1);
      await quiet(50);
      return msg.payload;
    };
    await read(0, '2026-03-01T00:00:00Z');
    await read(1, '2026-03-01T00:15:00Z'); // the window 00:00-00:15 at 4 kW: the month's peak, 40 at 10 a kW
    await read(1.5, '2026-03-01T00:30:00Z');
    const p = await read(24, '2026-03-02T00:00:00Z');
    // by hand: 24 kWh in 24 hours at 0.25 + 20 % VAT: 7.20 so far, 7.20 x 743 / 24 = 222.90 projected (rule 33);
    // the demand charge 4 kW x 10 = 40, 48 with the tariff's VAT, projected the same (the window under way at 2 kW)
    should(p.projection).match({
      soFar: { energy: 24, net: 6, gross: 7.2 },
      projected: { gross: roundAmount((7.2 * 743) / 24) },
      demand: {
        unit: 'kW',
        from: '2026-03-01T00:00:00.000Z',
        to: '2026-03-31T23:00:00.000Z', // London's summer time from 29 March
        samePeriod: true,
        billedKw: 4,
        soFar: { net: 40, gross: 48 },
        projected: { billedKw: 4, net: 40, gross: 48 },
      },
      withDemand: { soFar: { net: 46, gross: 55.2 }, projected: { gross: roundAmount((7.2 * 743) / 24 + 48) } },
    });
    // April's first reading: the bill easy-cost holds is March's, so no demand line (easy-peak's April bill comes next)
    const april = await read(30, '2026-03-31T23:30:00Z', ['c']);
    should(april.projection.from).equal('2026-03-31T23:00:00.000Z');
    should(april.projection).not.have.property('demand');
    should(april.projection).not.have.property('withDemand');
    // a bill edited on its way: at Catch, in words
    helper.getNode('c').receive({
      payload: {
        timezone: 'Europe/London',
        minutes: 15,
        site: { unit: 'kW', month: { fromMs: 0, toMs: 1 }, bill: { billedKw: 4, demandCharge: 'x' } },
      },
    });
    const [bad] = await caught.next(1);
    should(bad.error.message).match(/^Easy-peak's site\.bill\.demandCharge must be a number of at least 0, got "x"/);
  });

  it('a billing period of its own (a read day) is shown beside the month, never added to it', () => {
    const bill = siteBillOf({
      timezone: 'UTC',
      minutes: 15,
      site: { unit: 'kVA', month: { fromMs: 100, toMs: 200 }, bill: { billedKw: 5, demandCharge: 20, projected: null } },
    })!;
    const energy = { soFar: { net: 1, gross: 1.2 }, projected: { net: 3, gross: 3.6 } };
    const line = demandLine(bill, 150, { from: 50, to: 250 }, 20, energy)!;
    should(line).eql({
      demand: {
        unit: 'kVA',
        from: new Date(100).toISOString(),
        to: new Date(200).toISOString(),
        fromMs: 100,
        toMs: 200,
        samePeriod: false,
        billedKw: 5,
        soFar: { net: 20, gross: 24 },
        projected: null,
      },
    });
    should(demandLine(bill, 200, { from: 50, to: 250 }, 20, energy)).be.null(); // past the bill's period
    should(siteBillOf({ timezone: 'UTC', minutes: 15, site: null })).be.null(); // no site yet
    should(siteBillOf({ payload: 5 })).be.undefined(); // not easy-peak's
    should(siteBillOf(12.5)).be.undefined();
    should(() => siteBillOf({ timezone: 'UTC', minutes: 15, site: { bill: {} } })).throw(/must hold its month and bill/);
  });

  it("a bill period from outside is held against now: past a Date's range, or years from now, it is refused naming the field", () => {
    const now = Date.parse('2026-03-15T12:00:00Z');
    const withMonth = (fromMs: number, toMs: number) => ({
      timezone: 'UTC',
      minutes: 15,
      site: { unit: 'kW', month: { fromMs, toMs }, bill: { billedKw: 5, demandCharge: 20, projected: null } },
    });
    const march = withMonth(Date.parse('2026-03-01T00:00:00Z'), Date.parse('2026-04-01T00:00:00Z'));
    should(siteBillOf(march, now)).match({ billedKw: 5, demandCharge: 20 });
    // a period of all time would price every reading, and its text would fail each projection
    should(() => siteBillOf(withMonth(-1e300, 1e300))).throw(/site\.month must say fromMs and toMs/);
    should(() => siteBillOf(withMonth(-1e300, 1e300), now)).throw(/site\.month must say fromMs and toMs/);
    should(() => siteBillOf(withMonth(now - 1e15, now + 1e15), now)).throw(/site\.month must lie within \d+ years of now/);
  });

  it("the reactive energy charge beside the demand charge, added to the month's energy cost (rule 57's half hours)", async () => {
    await loadFlow(
      [easyCost, easyPeak],
      [
        accountNode(suite.sim, 'Europe/London'),
        { id: 'p', type: 'easy-peak', account: 'acc', minutes: '30', maxGapMinutes: '60', pricePerKvarh: '0.5', wires: [['c'], [], []] },
        { id: 'c', type: 'easy-cost', account: 'acc', tariff: 'DEMO-FLAT', mode: 'stream', wires: [['out'], []] },
        { id: 'out', type: 'helper' },
        ...catchNodes(),
      ],
    );
    const out = inbox('out');
    const caught = inbox('caught');
    /** The kWh and kvarh counters read at `ts` by easy-peak (its bills reach easy-cost), then the kWh one by easy-cost: its payload. */
    const read = async (ts: string, kwh: number, kvarh: number) => {
      helper.getNode('p').receive({ gateway: 'G', topic: 'e1.kwh', payload: kwh, ts });
      helper.getNode('p').receive({ gateway: 'G', topic: 'e1.kvarh', payload: kvarh, ts });
      await quiet(50);
      helper.getNode('c').receive({ gateway: 'G', topic: 'e1.kwh', payload: kwh, ts });
      const [msg] = await out.next(1);
      return msg.payload;
    };
    await read('2026-01-14T09:00:00Z', 1000, 500);
    await read('2026-01-14T09:30:00Z', 1100, 560); // 100 kWh and 60 kvarh
    const p = await read('2026-01-14T10:00:00Z', 1200, 560); // 100 kWh and none
    // by hand: 200 kWh at 0.25 + 20 %: 60 so far, 60 x 744 h of January projected (rule 33); 60 - 0.3287 x 100 = 27.13
    // chargeable kvarh at 0.5: 13.57, 16.28 gross, at the same pace 744 times that; no demand charge (no price per kW)
    const chargeable = 60 - Math.sqrt(1 / 0.95 ** 2 - 1) * 100;
    const reactive = p.projection.reactive;
    should(reactive).match({ activeEnergy: 200, reactiveEnergy: 60, soFar: { net: roundAmount(chargeable * 0.5) } });
    should(reactive.powerFactor).be.approximately(0.923, 1e-3);
    should(reactive.chargeableKvarh).be.approximately(chargeable, 1e-9);
    should(reactive.soFar.gross).be.approximately(chargeable * 0.6, 1e-6);
    should(reactive.projected.chargeableKvarh).be.approximately(chargeable * 744, 1e-6);
    should(reactive.projected.gross).be.approximately(chargeable * 0.6 * 744, 1e-6);
    should(p.projection).match({ soFar: { energy: 200, gross: 60 }, demand: { samePeriod: true, soFar: { net: 0 } } });
    should(p.projection.withDemand.soFar.gross).be.approximately(60 + chargeable * 0.6, 1e-6);
    should(p.projection.withDemand.projected.gross).be.approximately((60 + chargeable * 0.6) * 744, 1e-5);
    // a kvarh counter wired into easy-cost itself: never priced as kWh, said at Catch once naming it and where it belongs
    helper.getNode('c').receive({ gateway: 'G', topic: 'e1.kvarh', payload: 600, ts: '2026-01-14T10:30:00Z' });
    const [err] = await caught.next(1);
    should(err.error.message).match(
      /^Stream mode prices kWh only: meter "G\/e1\.kvarh" counts kvarh \(reactive energy\).*wire it to easy-peak/,
    );
    helper.getNode('c').receive({ gateway: 'G', topic: 'e1.kvarh', payload: 610, ts: '2026-01-14T11:00:00Z' });
    helper.getNode('c').receive({ payload: { id: 'e1.kvah', value: 900, ts: Date.parse('2026-01-14T11:00:00Z'), unit: 'kVAh' } });
    const [kvah] = await caught.next(1);
    should(kvah.error.message).match(/meter "e1\.kvah" counts kVAh \(apparent energy\)/);
    await quiet(50);
    should(caught.received).have.length(0); // the kvarh counter's second reading: said once already
    const again = await read('2026-01-14T10:30:00Z', 1300, 620);
    should(again.projection.soFar.energy).equal(300); // the kWh alone were priced
  });

  const reactive = { activeEnergy: 200, reactiveEnergy: 60, apparentEnergy: 216.6, powerFactor: 0.92, chargeableKvarh: 27, amount: 5 };

  /** easy-cost on `tariff` in March 2026 (London), its first reading counted: bills of March (`part` over a good one) and readings to it. */
  async function billedFlow(tariff: string) {
    await loadFlow(
      [easyCost],
      [
        accountNode(suite.sim, 'Europe/London'),
        { id: 'c', type: 'easy-cost', account: 'acc', tariff, mode: 'stream', wires: [['out'], []] },
        { id: 'out', type: 'helper' },
        ...catchNodes(),
      ],
    );
    const out = inbox('out');
    const caught = inbox('caught');
    const month = { fromMs: Date.parse('2026-03-01T00:00:00Z'), toMs: Date.parse('2026-03-31T23:00:00Z') };
    const bill = (part: Record<string, unknown>) => ({
      payload: {
        timezone: 'Europe/London',
        minutes: 15,
        site: {
          unit: 'kW',
          month,
          bill: { billedKw: 4, demandCharge: 40, projected: { billedKw: 4, demandCharge: 40 }, reactive: null, ...part },
        },
      },
    });
    const read = async (kwh: number, ts: string) => {
      helper.getNode('c').receive({ payload: kwh, ts });
      const [msg] = await out.next(1);
      return msg.payload;
    };
    await read(0, '2026-03-01T00:00:00Z');
    return { caught, bill, read };
  }

  it('a forged bill amount whose gross with VAT is no finite number is refused at Catch, naming it and its value; the bill held stays', async () => {
    const { caught, bill, read } = await billedFlow('DEMO-FLAT');
    helper.getNode('c').receive(bill({ reactive: { ...reactive, projected: null } })); // a good bill: 40 and 5, 48 and 6 with DEMO-FLAT's 20 %
    // 1.7e308 is a finite number, but its gross with 20 % is not (JSON would send null); 1e308 twice: each gross finite, their sum not
    const forged: Array<[Record<string, unknown>, string, string]> = [
      [{ demandCharge: 1.7e308 }, 'bill.demandCharge', '1.7e+308'],
      [{ projected: { billedKw: 4, demandCharge: 1.7e308 } }, 'bill.projected.demandCharge', '1.7e+308'],
      [{ reactive: { ...reactive, amount: 1.7e308, projected: null } }, 'bill.reactive.amount', '1.7e+308'],
      [{ reactive: { ...reactive, projected: { chargeableKvarh: 27, amount: 1.7e308 } } }, 'bill.reactive.projected.amount', '1.7e+308'],
      [{ demandCharge: 1e308, reactive: { ...reactive, amount: 1e308, projected: null } }, 'bill.reactive.amount', '1e+308'],
    ];
    for (const [part, field, value] of forged) {
      helper.getNode('c').receive(bill(part));
      const [bad] = await caught.next(1);
      should(bad.error.message).startWith(`Easy-peak's site.${field} must be`);
      should(bad.error.message).endWith(`, got ${value}.`);
      should(bad.error.message).match(/gross with VAT \(20 %\)/);
    }
    // nothing forged was kept: the good bill prices the month, every amount a number
    const p = await read(24, '2026-03-02T00:00:00Z');
    should(p.projection).match({
      demand: { soFar: { net: 40, gross: 48 }, projected: { net: 40, gross: 48 } },
      reactive: { soFar: { net: 5, gross: 6 } },
      withDemand: { soFar: { net: 51, gross: 61.2 } },
    });
    should(caught.received).have.length(0); // one error a forged bill, no more
  });

  it('with a negative VAT the net of the demand and reactive charges added together must be finite too: refused at Catch, naming it', async () => {
    const { caught, bill, read } = await billedFlow('REBATE');
    helper.getNode('c').receive(bill({ projected: null, reactive: { ...reactive, projected: null } })); // a good bill: 40 and 5, 16 and 2 with -60 %
    // 1e308 twice: each gross (4e307) and their gross added (8e307) finite, their net added (2e308) not: JSON would send null
    helper.getNode('c').receive(bill({ demandCharge: 1e308, projected: null, reactive: { ...reactive, amount: 1e308, projected: null } }));
    const [bad] = await caught.next(1);
    should(bad.error.message).equal(
      "Easy-peak's site.bill.reactive.amount must be an amount that, added to the demand charge, is a finite number, got 1e+308.",
    );
    // nothing forged was kept: the good bill prices the month, every amount a number (24 kWh at 0.25: 6, 2.4 with -60 %)
    const p = await read(24, '2026-03-02T00:00:00Z');
    should(p.projection).match({
      demand: { soFar: { net: 40, gross: 16 } },
      reactive: { soFar: { net: 5, gross: 2 } },
      withDemand: { soFar: { net: 51, gross: 20.4 } },
    });
    should(caught.received).have.length(0);
  });

  it("easy-peak's reactive part read as data: a figure that is no number of at least 0 is refused, naming it", () => {
    const bill = (reactive: unknown) => ({
      timezone: 'UTC',
      minutes: 30,
      site: { unit: 'kVA', month: { fromMs: 100, toMs: 200 }, bill: { billedKw: 5, demandCharge: 20, projected: null, reactive } },
    });
    const good = { activeEnergy: 200, reactiveEnergy: 60, apparentEnergy: 216.6, powerFactor: 0.92, chargeableKvarh: 27, amount: 13.5 };
    should(siteBillOf(bill({ ...good, projected: null }))!.reactive).eql({ ...good, projected: null });
    should(siteBillOf(bill(null))!.reactive).be.null();
    should(() => siteBillOf(bill({ ...good, amount: -1 }))).throw(/site\.bill\.reactive\.amount must be a number of at least 0, got -1/);
    should(() => siteBillOf(bill({ ...good, powerFactor: 1.5 }))).throw(
      /site\.bill\.reactive\.powerFactor must be null or a number from 0 to 1/,
    );
    should(() => siteBillOf(bill({ ...good, projected: { amount: 'x' } }))).throw(/site\.bill\.reactive\.projected\.amount/);
    should(() => siteBillOf(bill(7))).throw("easy-peak's site.bill.reactive must be null or an object of its figures, got 7");
    // the figure that is wrong is the one named
    should(() => siteBillOf(bill({ ...good, projected: { amount: 1, chargeableKvarh: -2 } }))).throw(
      /site\.bill\.reactive\.projected\.chargeableKvarh must be a number of at least 0, got -2/,
    );
    should(() => siteBillOf(bill({ ...good, projected: 3 }))).throw(
      /site\.bill\.reactive\.projected must be null or an object of its figures, got 3/,
    );
    const projectedBill = (projected: unknown) => ({
      ...bill(null),
      site: { ...bill(null).site, bill: { billedKw: 5, demandCharge: 20, projected } },
    });
    should(() => siteBillOf(projectedBill({ billedKw: 'x', demandCharge: 20 }))).throw(
      /site\.bill\.projected\.billedKw must be a number of at least 0, got "x"/,
    );
    should(() => siteBillOf(projectedBill({ billedKw: 5, demandCharge: NaN }))).throw(/site\.bill\.projected\.demandCharge must be/);
    should(() => siteBillOf({ ...bill(null), site: { ...bill(null).site, unit: 'MW' } })).throw(
      /site\.unit must be "kW" or "kVA", got "MW"/,
    );
    // a forged field's value is described, never written out whole: a million-item array makes no 2 MB error at Catch
    const huge = new Array(1_000_000).fill(1);
    for (const forged of [
      bill(huge),
      bill({ ...good, amount: huge }),
      { ...bill(null), site: { ...bill(null).site, bill: { billedKw: huge } } },
      { ...bill(null), site: { ...bill(null).site, unit: 'k'.repeat(1_000_000) } },
    ]) {
      const err = (() => {
        try {
          siteBillOf(forged);
        } catch (e) {
          return e as Error;
        }
        return null;
      })();
      should(err).be.instanceOf(TypeError);
      should(err!.message.length).be.below(200, err!.message.slice(0, 100));
      should(err!.message).match(/got (an object|"k{40}…")$/);
    }
    // beside a read-day period the reactive charge is shown, never added to the month
    const line = demandLine(siteBillOf(bill({ ...good, projected: null }))!, 150, { from: 50, to: 250 }, 0, {
      soFar: { net: 1, gross: 1 },
      projected: null,
    })!;
    should(line).have.property('reactive');
    should(line).not.have.property('withDemand');
  });
});
