import should from 'should';
import { CostStream, MAX_METERS, RefusedReading, TotalsStore } from '../../nodes/lib/runtime/cost/cost-stream';
import { addReading, newTotals, TotalsState } from '../../nodes/lib/engine/cost/totals';
import { plainTotals } from '../../nodes/lib/engine/cost/stored-totals';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { MAX_SENSORS_LISTED } from '../../nodes/lib/engine/common/limits';
import { NotMeterWarnings } from '../../nodes/lib/runtime/common/meter-reading';

const FLAT = { id: 'F', name: 'Flat', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 0.25 }] } as Tariff;
const T0 = Date.parse('2026-03-04T10:00:00Z');
/** The clock the readings are handled at: after every one of them (none is from the future). */
const LATER = T0 + 60 * 24 * 3600_000;
const MIN = 60_000;

/** A store in memory that keeps what it was given as JSON, as a context store on disk would. */
function memoryStore(initial?: unknown): TotalsStore & { saved: unknown; saves: number } {
  const store = {
    saved: initial === undefined ? undefined : JSON.parse(JSON.stringify(initial)),
    saves: 0,
    load: async () => store.saved,
    save: async (value: unknown) => {
      store.saved = JSON.parse(JSON.stringify(value));
      store.saves += 1;
    },
  };
  return store;
}

type MemoryStore = ReturnType<typeof memoryStore>;

async function started<S extends TotalsStore = MemoryStore>(
  opts: { store?: S; timezone?: string; maxMeters?: number; maxPowerKw?: number } = {},
) {
  const warnings: string[] = [];
  const store = (opts.store ?? memoryStore()) as S;
  const stream = new CostStream({
    timezone: opts.timezone ?? 'UTC',
    tariffId: 'F',
    store,
    warn: (w) => warnings.push(w),
    maxMeters: opts.maxMeters,
    maxPowerKw: opts.maxPowerKw,
  });
  const restored = await stream.restore();
  return { stream, warnings, store, restored };
}

const meter = (gateway: string, id: string, ts: number, value: number, unit = 'kWh') => ({
  topic: id,
  gateway,
  payload: { id, value, ts, unit, decoded: { kind: 'modbus', quantity: unit === 'kWh' ? 'energy' : 'voltage' } },
});

describe('CostStream: per-meter running totals', () => {
  it('keeps meters of one gateway apart at the same instant: 3 + 6 kWh is 9 kWh, not 6', async () => {
    const { stream } = await started();
    await stream.handle(meter('G', 'e1.kwh', T0, 100), FLAT, LATER);
    await stream.handle(meter('G', 'e2.kwh', T0, 5000), FLAT, LATER);
    const a = await stream.handle(meter('G', 'e1.kwh', T0 + 60 * MIN, 103), FLAT, LATER);
    const b = await stream.handle(meter('G', 'e2.kwh', T0 + 60 * MIN, 5006), FLAT, LATER);
    should(a!.payload).match({ today: { energy: 3 }, meter: { gateway: 'G', topic: 'e1.kwh', name: 'G/e1.kwh' } });
    should(b!.payload).match({
      today: { energy: 6, resets: 0 },
      site: { meters: 2, today: { energy: 9, resets: 0 }, total: { energy: 9 } },
    });
    should((b!.payload.site as { today: { net: number } }).today.net).be.approximately(9 * 0.25, 1e-12);
    should(b!.status).eql({ fill: 'green', shape: 'dot', text: 'today GBP 2.70 · 9.00 kWh · 2 meters' });
  });

  it('keeps meters sampled 30 s apart apart: 9 kWh and no resets, not 16,006 kWh', async () => {
    const { stream } = await started();
    let last = null;
    for (let i = 0; i <= 3; i++) {
      await stream.handle(meter('G', 'e1.kwh', T0 + i * 20 * MIN, 100 + i), FLAT, LATER);
      last = await stream.handle(meter('G', 'e2.kwh', T0 + i * 20 * MIN + 30_000, 8000 + 2 * i), FLAT, LATER);
    }
    should(last!.payload.site).match({ meters: 2, today: { energy: 9, resets: 0, intervals: 6 } });
  });

  it('a bare number with no topic is the default meter; one with a topic is a meter of its own', async () => {
    const { stream } = await started();
    await stream.handle({ payload: 1, ts: T0 }, FLAT, LATER);
    const bare = await stream.handle({ payload: 3, ts: T0 + MIN }, FLAT, LATER);
    await stream.handle({ payload: 10, ts: T0, topic: 'heat pump' }, FLAT, LATER);
    const named = await stream.handle({ payload: 11, ts: T0 + MIN, topic: 'heat pump' }, FLAT, LATER);
    should(bare!.payload).match({ today: { energy: 2 }, meter: { gateway: null, topic: null, name: 'default' }, site: { meters: 1 } });
    should(named!.payload).match({ today: { energy: 1 }, meter: { name: 'heat pump' }, site: { meters: 2, today: { energy: 3 } } });
  });

  it('ignores sensors that are no energy meter, warning once per sensor', async () => {
    const { stream, warnings, store } = await started();
    for (let i = 0; i < 3; i++) should(await stream.handle(meter('G', 'e1.v1', T0 + i * MIN, 230, 'V'), FLAT, LATER)).be.null();
    should(await stream.handle(meter('H', 'e1.v1', T0, 230, 'V'), FLAT, LATER)).be.null();
    should(warnings).eql([
      'stream mode ignores sensor G/e1.v1: it is not an energy meter in kWh (filter easy-sensors to e1.kwh or similar)',
      'stream mode ignores sensor H/e1.v1: it is not an energy meter in kWh (filter easy-sensors to e1.kwh or similar)',
    ]);
    should(store.saves).equal(0);
    should(stream.site().meters).equal(0);
    // a kVAh or kvarh counter is no kWh: pricing it would charge apparent or reactive energy as active; its
    // first reading is an error (Catch) naming it and where it belongs (easy-peak, semantics rule 65), later ones ignored
    warnings.length = 0;
    const words = (name: string, unit: string, energy: string) =>
      `stream mode prices kWh only: meter "${name}" counts ${unit} (${energy} energy), which is never priced as kWh ` +
      '(its readings are ignored); wire it to easy-peak beside the kWh meter, whose output 1 brings the power factor and ' +
      "the reactive energy charge into this node's month (semantics rule 65)";
    await should(stream.handle({ payload: 100, ts: T0, topic: 'e1.kvarh' }, FLAT, LATER)).be.rejectedWith(
      words('e1.kvarh', 'kvarh', 'reactive'),
    );
    should(await stream.handle({ payload: 101, ts: T0 + MIN, topic: 'e1.kvarh' }, FLAT, LATER)).be.null();
    await should(stream.handle(meter('G', 'e2.kvah', T0, 100, 'kVAh'), FLAT, LATER)).be.rejectedWith(
      words('G/e2.kvah', 'kVAh', 'apparent'),
    );
    await should(stream.handle({ payload: 100, ts: T0, topic: 'incomer', unit: 'kvarh' } as never, FLAT, LATER)).be.rejectedWith(
      words('incomer', 'kvarh', 'reactive'),
    );
    should(warnings).eql([]);
    should(stream.site().meters).equal(0);
  });

  it('a flood of distinct sensors that are no meter: one warning each for the first 1,000, one for the rest, and a bound on what is kept', async () => {
    const { stream, warnings } = await started();
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < 20_000; i++) {
        should(await stream.handle(meter('G', `e${i}.v1`, T0 + round * MIN, 230, 'V'), FLAT, LATER)).be.null();
      }
    should(warnings).have.length(MAX_SENSORS_LISTED + 1);
    should(new Set(warnings).size).equal(MAX_SENSORS_LISTED + 1);
    should(warnings[0]).equal(
      'stream mode ignores sensor G/e0.v1: it is not an energy meter in kWh (filter easy-sensors to e1.kwh or similar)',
    );
    should(warnings[MAX_SENSORS_LISTED - 1]).match(/^stream mode ignores sensor G\/e999\.v1:/);
    should(warnings[MAX_SENSORS_LISTED]).equal(
      'stream mode ignores more than 1,000 sensors that are not energy meters in kWh: the first 1,000 were named, ' +
        'the others are ignored without a warning each (filter easy-sensors to e1.kwh or similar)',
    );
    should(stream.site().meters).equal(0);
  });

  it('meter names are data: __proto__, constructor and toString are meters like any other', async () => {
    const { stream, store } = await started();
    for (const name of ['__proto__', 'constructor', 'toString']) {
      await stream.handle({ payload: 1, ts: T0, topic: name, gateway: '__proto__' }, FLAT, LATER);
      await stream.handle({ payload: 2, ts: T0 + MIN, topic: name, gateway: '__proto__' }, FLAT, LATER);
    }
    should(stream.site()).match({ meters: 3, total: { energy: 3 } });
    should(Object.keys(Object.prototype)).eql([]);
    should({}.constructor).equal(Object);
    await stream.flush();
    const again = await started({ store: memoryStore(store.saved) });
    should(again.stream.site()).match({ meters: 3, total: { energy: 3 } });
  });

  it('refuses one meter more than the cap with a message that says what to do', async () => {
    should(MAX_METERS).be.within(128, 1024);
    const { stream } = await started({ maxMeters: 2 });
    await stream.handle({ payload: 1, ts: T0, topic: 'a' }, FLAT, LATER);
    await stream.handle({ payload: 1, ts: T0, topic: 'b' }, FLAT, LATER);
    const refused = await stream.handle({ payload: 1, ts: T0, topic: 'c' }, FLAT, LATER).catch((err: RefusedReading) => err);
    should(refused).be.instanceOf(RefusedReading);
    should((await (refused as RefusedReading).burst)!.message).match(
      /^meter limit reached: 1 sensor ignored, "c" the first \(stream mode counts at most 2 meters per node; filter easy-sensors/,
    );
    should((await stream.handle({ payload: 2, ts: T0 + MIN, topic: 'a' }, FLAT, LATER))!.payload.site).match({ meters: 2 });
  });

  it('msg.reset zeroes one meter by topic (and gateway), or every meter; an unknown meter is an error', async () => {
    const { stream } = await started();
    for (const [gateway, topic] of [
      ['G', 'e1.kwh'],
      ['G', 'e2.kwh'],
      ['H', 'e1.kwh'],
    ]) {
      await stream.handle({ payload: 1, ts: T0, topic, gateway }, FLAT, LATER);
      await stream.handle({ payload: 3, ts: T0 + MIN, topic, gateway }, FLAT, LATER);
    }
    const one = await stream.handle({ reset: 'e1.kwh', gateway: 'H' }, FLAT, LATER);
    should(one!.payload).match({
      today: null,
      total: null,
      meter: { gateway: 'H', topic: 'e1.kwh' },
      site: { meters: 2, total: { energy: 4 } },
    });
    await should(stream.handle({ reset: 'e9.kwh' }, FLAT, LATER)).be.rejectedWith(
      'msg.reset names no meter of this node: "e9.kwh" (it counts G/e1.kwh, G/e2.kwh)',
    );
    await should(stream.handle({ reset: 42 }, FLAT, LATER)).be.rejectedWith(
      /msg.reset must be true \(every meter\) or the topic of one meter/,
    );
    const all = await stream.handle({ reset: true }, FLAT, LATER);
    should(all!.payload).match({ today: null, site: { meters: 0, today: null, total: null } });
    should(all!.status.text).equal('today GBP 0.00 · 0.00 kWh · 0 meters');
  });

  it('restores every meter after a restart, and says when stored totals cannot be used', async () => {
    const first = await started({ timezone: 'Europe/Lisbon' });
    await first.stream.handle(meter('G', 'e1.kwh', T0, 100), FLAT, LATER);
    await first.stream.handle(meter('G', 'e2.kwh', T0, 7), FLAT, LATER);
    await first.stream.handle(meter('G', 'e1.kwh', T0 + MIN, 101), FLAT, LATER);
    await first.stream.handle(meter('G', 'e2.kwh', T0 + MIN, 9), FLAT, LATER);
    await first.stream.close();
    const again = await started({ store: memoryStore(first.store.saved), timezone: 'Europe/Lisbon' });
    should(again.restored).eql({ fill: 'grey', shape: 'dot', text: 'today 3.00 kWh (restored) · 2 meters' });
    const next = await again.stream.handle(meter('G', 'e2.kwh', T0 + 2 * MIN, 10), FLAT, LATER);
    should(next!.payload).match({ today: { energy: 3, intervals: 2 }, site: { meters: 2, today: { energy: 4 } } });
    const other = await started({ store: memoryStore(first.store.saved), timezone: 'UTC' });
    should(other.warnings).eql(['running totals started from zero: stored totals were counted in Europe/Lisbon']);
    for (const garbage of [
      'x',
      { version: 2, timezone: 'UTC', tariffId: 'F', meters: [{ gateway: 1, topic: null, totals: {} }] },
      { version: 2, timezone: 'UTC', tariffId: 'F', meters: 'all' },
    ]) {
      should((await started({ store: memoryStore(garbage) })).warnings).eql([
        'running totals started from zero: stored totals are unreadable',
      ]);
    }
    const failing = { load: () => Promise.reject(new Error('disk on fire')), save: () => Promise.resolve() };
    should((await started({ store: failing })).warnings).eql([
      'running totals started from zero: stored totals could not be read (disk on fire)',
    ]);
  });

  it('takes over totals stored in the single-meter shape: the first meter to report continues them', async () => {
    let old: TotalsState = newTotals('UTC', 'F');
    const flat = (a: { value: number }, b: { value: number }) => ({
      energy: b.value - a.value,
      net: (b.value - a.value) * 0.25,
      gross: (b.value - a.value) * 0.3,
      unpricedEnergy: 0,
      resets: 0,
    });
    for (const [ts, value] of [
      [T0, 100],
      [T0 + MIN, 104],
    ])
      old = addReading(old, { ts, value }, flat).state;
    const { stream, warnings, restored } = await started({ store: memoryStore(plainTotals(old)) }); // as earlier versions stored it
    should(warnings).eql([]);
    should(restored.text).equal('today 4.00 kWh (restored) · 1 meter');
    const next = await stream.handle(meter('G', 'e1.kwh', T0 + 2 * MIN, 105), FLAT, LATER);
    should(next!.payload).match({ today: { energy: 5, intervals: 2 }, total: { from: new Date(T0).toISOString() }, site: { meters: 1 } });
    const other = await stream.handle(meter('G', 'e2.kwh', T0 + 2 * MIN, 1), FLAT, LATER);
    should(other!.payload).match({ total: { energy: 0 }, site: { meters: 2, total: { energy: 5 } } });
  });

  it('reports a late reading beyond what a meter keeps as too_late and a repeat as duplicate, changing nothing', async () => {
    const { stream, store } = await started();
    for (let i = 0; i < 5; i++) await stream.handle(meter('G', 'e1.kwh', T0 + i * MIN, i), FLAT, LATER);
    const dup = await stream.handle(meter('G', 'e1.kwh', T0 + 2 * MIN, 2), FLAT, LATER);
    const saves = store.saves;
    const old = await stream.handle(meter('G', 'e1.kwh', T0 - 49 * 3600_000, 0), FLAT, LATER);
    should(dup!.payload).match({ ignored: 'duplicate', change: { energy: 0 }, today: { energy: 4 } });
    should(old!.payload).match({ ignored: 'too_late', change: { energy: 0 }, today: { energy: 4 } });
    should(old!.status).match({ fill: 'yellow', text: 'today GBP 1.20 · 4.00 kWh · 1 meter · too late reading ignored' });
    should(store.saves).equal(saves);
  });

  it('rejects and reports an interval whose energy would not be finite, never counting Infinity', async () => {
    const { stream } = await started({ maxPowerKw: Infinity }); // jumps off: by default the rise is a jump (rule 10), held
    await stream.handle({ payload: -1e308, ts: T0 }, FLAT, LATER);
    const out = await stream.handle({ payload: 1e308, ts: T0 + 60 * MIN }, FLAT, LATER);
    should(out!.payload).match({
      today: { energy: 0, net: 0, intervals: 1 },
      rejected: [{ reason: 'overflow', fromMs: T0, toMs: T0 + 60 * MIN }],
    });
    should(out!.status).match({ fill: 'yellow', text: 'today GBP 0.00 · 0.00 kWh · 1 meter · interval rejected' });
    const next = await stream.handle({ payload: 1e308, ts: T0 + 120 * MIN }, FLAT, LATER);
    should(next!.payload).not.have.property('rejected');
    should(Number.isFinite((next!.payload.site as { total: { gross: number } }).total.gross)).be.true();
  });

  it("sends closed periods as bars; a named meter's bars are a series of their own", async () => {
    const { stream } = await started();
    await stream.handle({ payload: 1, ts: Date.parse('2026-03-31T23:00:00Z') }, FLAT, LATER);
    const bare = await stream.handle({ payload: 3, ts: Date.parse('2026-04-01T01:00:00Z') }, FLAT, LATER);
    await stream.handle({ payload: 1, ts: Date.parse('2026-03-31T23:00:00Z'), topic: 'e2.kwh', gateway: 'G' }, FLAT, LATER);
    const named = await stream.handle({ payload: 2, ts: Date.parse('2026-04-01T01:00:00Z'), topic: 'e2.kwh', gateway: 'G' }, FLAT, LATER);
    should(bare!.bars.map((b) => b.topic)).eql(['cost per day (GBP)', 'cost per month (GBP)']);
    should(named!.bars.map((b) => b.topic)).eql(['cost per day (GBP) · G/e2.kwh', 'cost per month (GBP) · G/e2.kwh']);
    should(named!.bars[0].payload).eql([{ x: '2026-03-31', y: 0.3 }]);
  });
});

describe('NotMeterWarnings: sensors that are no meter, warned once each', () => {
  it('keeps at most its cap of sensors, each cut to a bounded key; repeats, before and after the cap, say nothing', () => {
    const said: string[] = [];
    const warnings = new NotMeterWarnings('easy-peak', (w) => said.push(w), 3);
    const long = 'x'.repeat(1_000_000);
    for (let pass = 0; pass < 3; pass++) {
      warnings.ignored({ gateway: 'G', topic: 'a' });
      warnings.ignored({ gateway: null, topic: '__proto__' });
      warnings.ignored({ gateway: 'G', topic: long });
      warnings.ignored({ gateway: 'G', topic: 'd' });
      warnings.ignored({ gateway: 'G', topic: 'e' });
    }
    should(warnings.named).equal(3);
    should(said).eql([
      'easy-peak ignores sensor G/a: it is not an energy meter in kWh (filter easy-sensors to e1.kwh or similar)',
      'easy-peak ignores sensor __proto__: it is not an energy meter in kWh (filter easy-sensors to e1.kwh or similar)',
      `easy-peak ignores sensor G/${'x'.repeat(57)}…: it is not an energy meter in kWh (filter easy-sensors to e1.kwh or similar)`,
      'easy-peak ignores more than 3 sensors that are not energy meters in kWh: the first 3 were named, ' +
        'the others are ignored without a warning each (filter easy-sensors to e1.kwh or similar)',
    ]);
  });
});
