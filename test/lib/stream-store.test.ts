// Stream totals made for flash: what is stored per meter, how often, and that a restart
// (graceful or killed between saves) keeps the totals exact. The reference for a kill is
// computeCost of the readings that survived it: the last save's and those after the
// restart, the gap priced as one interval (semantics rule 11, "start").
import should from 'should';
import fc from 'fast-check';
import { CostStream, RefusedReading, TotalsStore } from '../../nodes/lib/runtime/cost/cost-stream';
import { decodeStored, encodeStored, SAVE_EVERY_MS, STORED_READINGS } from '../../nodes/lib/runtime/cost/stream-store';
import { QUIET_MS } from '../../nodes/lib/runtime/common/refusal-burst';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { addReading, MAX_KEPT, newTotals, TotalsState } from '../../nodes/lib/engine/cost/totals';
import { plainTotals } from '../../nodes/lib/engine/cost/stored-totals';
import { localPeriod } from '../../nodes/lib/engine/time/time';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { FakeClock, installClock } from '../fake-clock';

// cheaper from 22:00 to 06:00 and on Sundays: where a gap starts decides its price
const TARIFF = {
  id: 'T',
  name: 't',
  vat: 20,
  currency: 'EUR',
  rules: [
    { priority: 1, price: 0.1, time_start: '22:00', time_end: '06:00' },
    { priority: 2, price: 0.2, weekdays: [7] },
    { priority: 3, price: 0.3 },
  ],
} as Tariff;
const ZONE = 'Atlantic/Azores'; // 31 March 2024 starts at 01:00
const T0 = Date.parse('2024-03-30T12:00:00Z');
/** The clock the readings from T0 on are handled at: after every one of them (none is from the future). */
const LATER = T0 + 30 * 24 * 3600_000;
const MIN = 60_000;

/** A context store as Node-RED's: keeps a copy of what it was handed, counts saves and their size on disk. */
function store(initial?: unknown) {
  const s = {
    saved: initial === undefined ? undefined : JSON.parse(JSON.stringify(initial)),
    saves: 0,
    /** Bytes of every save as localfilesystem writes it (pretty-printed, under the key "totals"). */
    bytes: 0,
    largest: 0,
    fail: null as Error | null,
    load: async () => s.saved,
    save: async (value: unknown) => {
      if (s.fail) throw s.fail;
      const text = JSON.stringify({ totals: value }, null, 4);
      s.saved = JSON.parse(text).totals;
      s.saves += 1;
      s.bytes += text.length;
      s.largest = Math.max(s.largest, text.length);
    },
  };
  return s;
}

async function started(st: TotalsStore, opts: { maxMeters?: number; warn?: (w: string) => void } = {}) {
  const stream = new CostStream({
    timezone: ZONE,
    tariffId: 'T',
    store: st,
    warn: opts.warn ?? (() => undefined),
    maxMeters: opts.maxMeters,
  });
  await stream.restore();
  return stream;
}

const reading = (meter: number, ts: number, value: number) => ({ topic: `m${meter}`, gateway: 'G', payload: value, ts });

describe('stream totals on flash', function () {
  this.timeout(120_000);
  let clock: FakeClock | null = null;
  afterEach(() => {
    clock?.uninstall();
    clock = null;
  });

  it('hands the store at most one save a minute however many readings come, and the last on close', async () => {
    clock = installClock(T0);
    const st = store();
    const stream = await started(st);
    // 16 meters, a reading each every 10 s, for 30 minutes: 2,880 readings
    for (let k = 0; k < 180; k++) {
      for (let m = 0; m < 16; m++) await stream.handle(reading(m, Date.now(), 100 + m + k * 0.01), TARIFF, Date.now());
      await clock.tickAsync(10_000);
    }
    should(st.saves).be.within(29, 31); // 0.1.x saved 2,880 times
    const before = st.saves;
    await stream.handle(reading(0, Date.now(), 101.9), TARIFF, Date.now());
    await stream.close();
    should(st.saves).equal(before + 1);
    const kept = (await started(store(st.saved))).totalsOf({ gateway: 'G', topic: 'm0' })!.kept;
    should(kept.readings().pop()).eql([Date.now(), 101.9]);
    // nothing after close, even a reading still in the node's queue
    await stream.handle(reading(0, Date.now() + 10_000, 102), TARIFF, Date.now());
    await clock.tickAsync(10 * MIN);
    should(st.saves).equal(before + 1);
  });

  for (const meters of [1, 16, 128]) {
    it(`stores ${meters} meter${meters > 1 ? 's' : ''} at steady state in under 100 kB, whatever the readings kept in memory`, async () => {
      const st = store();
      const stream = await started(st);
      // each meter past the readings it keeps (1 meter: MAX_KEPT), the node past the readings it stores
      const perMeter = meters === 1 ? MAX_KEPT + 100 : Math.ceil(STORED_READINGS / meters) + 5;
      for (let k = 0; k < perMeter; k++)
        for (let m = 0; m < meters; m++) await stream.handle(reading(m, T0 + k * 10_000, 1000.123456789 + k / 7), TARIFF, LATER);
      await stream.flush();
      should(st.largest).be.below(100_000); // 0.1.x: 1.2 MB per meter
      if (meters === 1) should(stream.totalsOf({ gateway: 'G', topic: 'm0' })!.kept).have.length(MAX_KEPT); // memory keeps the window
    });
  }

  it('a restart changes no total: every period, total and kept reading back as it was (up to the stored readings)', async () => {
    const st = store();
    const stream = await started(st);
    for (let k = 0; k < 900; k++) await stream.handle(reading(k % 3, T0 + k * 20_000, 50 + k * 0.37 + (k % 3)), TARIFF, LATER);
    await stream.flush();
    const again = await started(store(st.saved));
    for (let m = 0; m < 3; m++) {
      const id = { gateway: 'G', topic: `m${m}` };
      const [was, is] = [stream.totalsOf(id)!, again.totalsOf(id)!];
      should({ ...is, kept: [] }).eql({ ...was, kept: [] });
      const n = Math.floor(STORED_READINGS / 3);
      should(is.kept.readings()).eql(was.kept.readings().slice(-n));
      should(is.kept.costRows()).eql(was.kept.costRows().slice(-(n - 1)));
    }
  });

  it('a late reading after a restart is placed among the stored readings, and one before them is too late', async () => {
    const st = store();
    const stream = await started(st);
    for (let k = 0; k <= 600; k++) await stream.handle(reading(0, T0 + k * MIN, k), TARIFF, LATER);
    await stream.close();
    const again = await started(store(st.saved));
    const kept = again.totalsOf({ gateway: 'G', topic: 'm0' })!.kept;
    should(kept).have.length(STORED_READINGS);
    const late = (await again.handle(reading(0, kept.ts(1) - 30_000, kept.value(1) - 0.5), TARIFF, LATER))!.payload;
    should(late).match({ late: true, change: { energy: 0 } });
    const old = (await again.handle(reading(0, kept.ts(0) - 30_000, kept.value(0) - 0.5), TARIFF, LATER))!.payload;
    should(old).match({ ignored: 'too_late' });
  });

  it('killed between saves: no energy lost, and the totals are exact for the readings that survived (property)', async () => {
    clock = installClock(T0);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 1099 }), { minLength: 0, maxLength: 2 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        async (kills, seed) => {
          // 21:30 local to past 01:00 of 31 March (the clock goes from 00:00 to 01:00): the 22:00
          // price change and a new day, a new week and a new month; always a kill 30 s after 22:00
          const start = Date.parse('2024-03-30T22:30:00Z');
          kills = [...kills, 183];
          clock!.setSystemTime(start);
          let rnd = seed;
          const next = () => (rnd = (rnd * 48271) % 2147483647) / 2147483647;
          let st = store();
          let stream = await started(st);
          let handled = 0;
          /** How many readings the store's copy knows, as of the last save. */
          let savedUpTo = 0;
          /** Notes what the live store's save holds; a killed node's store is left behind. */
          const track = (s: ReturnType<typeof store>) => {
            const own = s.save;
            s.save = async (v) => {
              await own(v);
              if (s === st) savedUpTo = handled;
            };
          };
          track(st);
          const all: Array<[number, number]> = [];
          const survivors: Array<[number, number]> = [];
          let value = 100;
          // a reading every 10 s: up to 6 of them are lost when killed before the next save
          for (let k = 0; k < 1100; k++) {
            if (kills.includes(k)) {
              // SIGKILL: what was not saved is gone; the readings after the last save are lost
              survivors.splice(savedUpTo);
              handled = savedUpTo;
              st = store(st.saved);
              stream = await started(st);
              track(st);
            }
            value += next() * 0.05;
            const ts = Date.now();
            all.push([ts, value]);
            await stream.handle(reading(0, ts, value), TARIFF, ts);
            handled = survivors.push([ts, value]);
            await clock!.tickAsync(10_000);
          }
          should(survivors.length).be.below(all.length); // something was lost
          const totals = stream.totalsOf({ gateway: 'G', topic: 'm0' })!;
          const whole = computeCost(TARIFF, all, { timezone: ZONE });
          const exact = computeCost(TARIFF, survivors, { timezone: ZONE });
          should(totals.total!.energy).be.approximately(whole.energy, 1e-9); // every kWh counted
          should(totals.total!.net).be.approximately(exact.net, 1e-9);
          should(totals.total!.gross).be.approximately(exact.gross, 1e-9);
          should(totals.total!.intervals).equal(survivors.length - 1);
          const newest = survivors[survivors.length - 1][0];
          const day = localPeriod('day', newest, { timezone: ZONE });
          const first = survivors.findIndex(([ts]) => ts >= day.from);
          const today = computeCost(TARIFF, survivors.slice(Math.max(0, first)), { timezone: ZONE });
          should(totals.day!.net).be.approximately(today.net, 1e-9);
        },
      ),
      { numRuns: 6, seed: 20261125 },
    );
  });

  it('takes over what 0.1.x stored (every meter with up to 3,000 readings) and stores it compactly from then on', async () => {
    const flat = (a: { value: number }, b: { value: number }) => ({
      energy: b.value - a.value,
      net: (b.value - a.value) * 0.3,
      gross: (b.value - a.value) * 0.36,
      unpricedEnergy: 0,
      resets: 0,
    });
    const meters: Array<{ gateway: string | null; topic: string | null; totals: TotalsState }> = [];
    for (const [gateway, topic] of [
      ['G', 'e1.kwh'],
      [null, null],
    ] as const) {
      let t = newTotals(ZONE, 'T');
      for (let k = 0; k < 400; k++) t = addReading(t, { ts: T0 + k * MIN, value: k * 1.5 }, flat).state;
      meters.push({ gateway, topic, totals: t });
    }
    // as 0.1.x stored them: the window as lists of readings and costs
    const v2 = { version: 2, timezone: ZONE, tariffId: 'T', meters: meters.map((m) => ({ ...m, totals: plainTotals(m.totals) })) };
    const st = store(v2);
    const stream = await started(st);
    should(plainTotals(stream.totalsOf({ gateway: 'G', topic: 'e1.kwh' }))).eql(plainTotals(meters[0].totals)); // whole, window included
    await stream.handle({ topic: 'e1.kwh', gateway: 'G', payload: 601.5, ts: T0 + 401 * MIN }, TARIFF, LATER);
    await stream.flush();
    should(st.saved).match({ version: 3, timezone: ZONE, tariffId: 'T' });
    should(st.largest).be.below(JSON.stringify({ totals: v2 }, null, 4).length / 10);
    const again = await started(store(st.saved));
    should(again.site()).eql(stream.site());
    should(again.totalsOf({ gateway: null, topic: null })!.total).eql(meters[1].totals.total);
  });

  it('says stored lines it cannot read are unreadable, and counts from zero', async () => {
    const good = encodeStored([{ gateway: 'G', topic: 'a', totals: newTotals(ZONE, 'T') }], { timezone: ZONE, tariffId: 'T' }) as {
      meters: string[];
    };
    const line = JSON.parse(good.meters[0]);
    const scope = { timezone: ZONE, tariffId: 'T', maxMeters: 128 };
    for (const meters of [
      ['not json'],
      [JSON.stringify([1, 'a', null, [null, null, null, null], [], []])],
      [JSON.stringify(['G', 'a', T0, [null, null, null, [1, 2, 3, 4, 0, 1]], [T0, 1, 10, 'x'], [1, 2, 3, 4, 0]])],
      [JSON.stringify(['G', 'a', T0, [null, null, null, [1, 2, 3, 4, 0, 1]], [T0, 1, -10, 2], [1, 2, 3, 4, 0]])], // not ascending
      [JSON.stringify(['G', 'a', T0, [null, null, null, [1, 2, 3, 4, 0, 1]], [T0, 1, 10, 2], [1, 2, 3]])],
      [`["G","a",${T0},[null,null,null,[1e400,2,3,4,0,1]],[${T0},1],[]]`], // JSON.parse gives Infinity
      [good.meters[0], good.meters[0]],
      Array.from({ length: 129 }, (_, i) => JSON.stringify(['G', `m${i}`, ...line.slice(2)])),
    ])
      should(decodeStored({ ...good, version: 3, meters }, scope).problem).equal('stored totals are unreadable', meters[0]);
    should(decodeStored({ ...good, tariffId: 'X' }, scope).problem).equal('stored totals belong to tariff "X"');
    should(decodeStored(good, scope)).match({ problem: null, meters: [{ gateway: 'G', topic: 'a' }] });
  });

  it('keeps what a meter adds per period (extras) beside its totals, as it was', () => {
    const totals = newTotals(ZONE, 'T');
    const extras = { generator: { day: [1.5, 0.25], month: [10, 2] } };
    const stored = encodeStored([{ gateway: null, topic: 'x', totals, extras }], { timezone: ZONE, tariffId: 'T' });
    const meters = decodeStored(JSON.parse(JSON.stringify(stored)), { timezone: ZONE, tariffId: 'T', maxMeters: 1 }).meters;
    should(meters.map((m) => ({ ...m, totals: plainTotals(m.totals) }))).eql([
      { gateway: null, topic: 'x', totals: plainTotals(totals), extras },
    ]);
  });

  it('says once that saving fails, keeps counting, and saves again once the store works', async () => {
    clock = installClock(T0);
    const st = store();
    const warnings: string[] = [];
    const stream = await started(st, { warn: (w) => warnings.push(w) });
    st.fail = new Error('disk full');
    for (let k = 0; k < 30; k++) {
      await stream.handle(reading(0, Date.now(), k), TARIFF, Date.now());
      await clock.tickAsync(30_000);
    }
    should(warnings).eql(['running totals could not be saved: disk full']);
    st.fail = null;
    await stream.handle(reading(0, Date.now(), 30), TARIFF, Date.now());
    await clock.tickAsync(SAVE_EVERY_MS);
    should(st.saves).equal(1);
    should((await started(store(st.saved))).site().total!.energy).equal(30);
  });

  it('one error per burst of readings beyond the meter limit, saying how many sensors it ignored', async () => {
    clock = installClock(T0);
    const stream = await started(store(), { maxMeters: 128 });
    const errors: Array<Error | null> = [];
    const poll = async (count: number) => {
      for (let m = 0; m < count; m++) {
        const out = await stream.handle(reading(m, Date.now(), m), TARIFF, Date.now()).catch((err: RefusedReading) => err);
        if (out instanceof RefusedReading) void out.burst.then((e) => errors.push(e));
      }
    };
    await poll(19_423);
    await clock.tickAsync(QUIET_MS);
    should(errors).have.length(19_423 - 128);
    const said = errors.filter((e): e is Error => e !== null);
    should(said.map((e) => e.message)).eql([
      'meter limit reached: 19,295 sensors ignored, "G/m128" the first (stream mode counts at most 128 meters per node; ' +
        'filter easy-sensors to the energy meters, or reset the totals with msg.reset)',
    ]);
    await clock.tickAsync(10_000);
    await poll(200); // the next poll: said again
    await clock.tickAsync(QUIET_MS);
    should(errors.filter((e): e is Error => e !== null).map((e) => e.message)[1]).match(
      /^meter limit reached: 72 sensors ignored, "G\/m128"/,
    );
  });
});
