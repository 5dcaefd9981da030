// Stored state from a later clock (docs/semantics.md, "Stored state"): a Pi without a
// real-time clock boots behind (50 minutes after a short power cut, days after a long one)
// and reads back what it stored before. Every store keeps what lies up to a year ahead,
// says so once, and goes on when the clock catches up, counting each reading once; what
// lies further ahead (2 years) is dropped as before. The clock is fake (Date), the stores
// are in memory, the readings as the nodes get them.
import should from 'should';
import { FakeClock, installClock } from '../fake-clock';
import { CostStream } from '../../nodes/lib/runtime/cost/cost-stream';
import { StreamGenerator } from '../../nodes/lib/runtime/generator/stream-generator';
import { PeakStream } from '../../nodes/lib/runtime/peak/peak-stream';
import { peakSettings } from '../../nodes/lib/runtime/peak/peak-settings';
import { decodePeaks, encodePeaks } from '../../nodes/lib/runtime/peak/peak-store';
import { advanceMeter, newMeter } from '../../nodes/lib/runtime/peak/peak-meter';
import { newSite } from '../../nodes/lib/runtime/peak/peak-site';
import { AccountHub, TariffSnapshot } from '../../nodes/lib/runtime/account/hub';
import { checkStoredPlan } from '../../nodes/lib/runtime/plan/plan-store';
import { planSettings } from '../../nodes/lib/runtime/plan/plan-settings';
import { EasyClient } from '../../nodes/lib/api/client';
import { StoredAhead } from '../../nodes/lib/engine/common/stored-checks';
import { localPeriod } from '../../nodes/lib/engine/time/time';
import { clockSteps } from '../../nodes/lib/engine/time/clock-steps';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { DEMO_TARIFFS } from '../../sim/demo-data';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** Just after midnight UTC on the 1st of a month, a Wednesday: a clock behind lies in the day, month (and for days, week) before. */
const T = Date.parse('2026-04-01T00:20:00Z');
const AHEAD: Array<[string, number]> = [
  ['50 minutes', 50 * MIN],
  ['3 days', 3 * DAY],
  ['364 days', 364 * DAY],
];
const FAR = 2 * 366 * DAY;
const FLAT = { id: 'F', name: 'Flat', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 0.25 }] } as Tariff;

function memoryStore(): { saved: unknown; load(): Promise<unknown>; save(v: unknown): Promise<void> } {
  const store = {
    saved: undefined as unknown,
    load: async () => (store.saved === undefined ? undefined : JSON.parse(JSON.stringify(store.saved))),
    save: async (value: unknown) => {
      store.saved = JSON.parse(JSON.stringify(value));
    },
  };
  return store;
}

/** What a warning about stored state `what` from `ahead` ms ahead of the clock at `now` says first. */
const aheadWords = (what: string, span: string, newest: number, now: number) =>
  `${what} lie ${span} ahead of this machine's clock (${new Date(newest).toISOString()}; the clock reads ${new Date(now).toISOString()}): ` +
  'kept, as this clock is probably behind (no real-time clock, a power cut; NTP sets it right); ';

describe('stored state from a later clock (this one behind): kept, said once, counted on once the clock catches up', () => {
  let clock: FakeClock | null = null;
  afterEach(() => {
    clock?.uninstall();
    clock = null;
  });
  /** A power cut, and a boot with the clock at `at`: a new process, which sees no step of the clock (clock-steps). */
  const bootAt = (at: number) => {
    clock!.setSystemTime(at);
    clockSteps.takeAfresh();
  };

  describe("easy-cost's running totals", () => {
    /** Two meters' readings every minute for 3 hours up to T, the power changing minute by minute. */
    const meters = ['a', 'b'];
    const valueAt = (m: string, ts: number) => {
      const minutes = (ts - (T - 3 * HOUR)) / MIN;
      return (m === 'a' ? 100 : 5000) + minutes * (m === 'a' ? 0.021 : 0.034) + Math.floor(minutes / 7) * 0.013;
    };
    const msg = (m: string, value: number, ts?: number) => ({ topic: m, payload: value, ...(ts === undefined ? {} : { ts }) });

    /** The slow reference: per period holding the newest reading, the sum of every interval between counted readings that starts in it. */
    function reference(counted: Map<string, number[]>) {
      let newest = -Infinity;
      for (const list of counted.values()) newest = Math.max(newest, list[list.length - 1]);
      const sums: Record<string, number> = { day: 0, week: 0, month: 0, total: 0 };
      for (const [m, list] of counted) {
        for (let i = 0; i + 1 < list.length; i++) {
          const energy = valueAt(m, list[i + 1]) - valueAt(m, list[i]);
          sums.total += energy;
          for (const name of ['day', 'week', 'month'] as const) {
            const { from, to } = localPeriod(name, newest, { timezone: 'UTC' });
            if (list[i] >= from && list[i] < to) sums[name] += energy;
          }
        }
      }
      return sums;
    }

    async function storedAtT() {
      clock = installClock(T);
      const store = memoryStore();
      const before = new CostStream({ timezone: 'UTC', tariffId: 'F', store, warn: () => undefined });
      await before.restore();
      const counted = new Map<string, number[]>(meters.map((m) => [m, []]));
      for (let ts = T - 3 * HOUR; ts <= T; ts += MIN) {
        for (const m of meters) {
          await before.handle(msg(m, valueAt(m, ts), ts), FLAT, T);
          counted.get(m)!.push(ts);
        }
      }
      await before.close();
      return { store, counted, site: before.site() };
    }

    for (const [name, ahead] of AHEAD) {
      it(`${name} ahead: kept whole with one warning; readings this clock stamps are too_late, the gateway's refused; after the clock steps each counts once`, async () => {
        const { store, counted, site } = await storedAtT();
        bootAt(T - ahead);
        const warned: string[] = [];
        const after = new CostStream({ timezone: 'UTC', tariffId: 'F', store, warn: (w) => warned.push(w) });
        await after.restore();
        should(warned).have.length(1);
        should(warned[0]).startWith(aheadWords('stored running totals', name, T, T - ahead));
        should(warned[0]).match(/too_late/);
        should(after.site()).eql(site);
        // meanwhile: node-stamped readings (this clock) are too_late, gateway-stamped ones from the future
        for (let k = 1; k <= 5; k++) {
          clock!.setSystemTime(T - ahead + k * MIN);
          for (const m of meters) {
            const out = await after.handle(msg(m, valueAt(m, T + k * MIN)), FLAT, Date.now());
            should(out!.payload.ignored).equal('too_late');
            await should(after.handle(msg(m, valueAt(m, T + k * MIN), T + k * MIN), FLAT, Date.now())).be.rejectedWith(
              /lies in the future/,
            );
          }
        }
        should(after.site()).eql(site);
        // NTP steps the clock: from then on every reading counts, the first one the whole gap since T
        clock!.setSystemTime(T + 20 * MIN);
        for (let ts = T + 6 * MIN; ts <= T + 80 * MIN; ts += MIN) {
          if (ts > Date.now()) clock!.setSystemTime(ts);
          for (const m of meters) {
            const out = await after.handle(msg(m, valueAt(m, ts), ts), FLAT, Date.now());
            should(out!.payload.ignored).be.undefined();
            counted.get(m)!.push(ts);
          }
        }
        const want = reference(counted);
        const got = after.site();
        for (const p of ['day', 'week', 'month', 'total'] as const) {
          should(got[p]!.energy).be.approximately(want[p], 1e-9, p);
          should(got[p]!.net).be.approximately(want[p] * 0.25, 1e-9, p);
        }
        should(got.total!.from).equal(T - 3 * HOUR);
        await after.close();
      });
    }

    it('a step back seen while it runs (the clock was ahead, not behind): counting goes on at once, as "Clock steps" says', async () => {
      const { store, site } = await storedAtT();
      bootAt(T - 50 * MIN);
      const after = new CostStream({ timezone: 'UTC', tariffId: 'F', store, warn: () => undefined });
      await after.restore();
      clock!.setSystemTime(T - 2 * HOUR);
      should(clockSteps.look()).match({ by: -70 * MIN });
      const out = await after.handle(msg('a', valueAt('a', T) + 0.5), FLAT, Date.now());
      should(out!.payload.ignored).be.undefined();
      should(after.site().total!.energy).be.approximately(site.total!.energy + 0.5, 1e-9);
      await after.close();
    });

    it('2 years ahead: dropped as before (every meter counts from zero), no word of a clock behind', async () => {
      const { store } = await storedAtT();
      bootAt(T - FAR);
      const warned: string[] = [];
      const after = new CostStream({ timezone: 'UTC', tariffId: 'F', store, warn: (w) => warned.push(w) });
      await after.restore();
      should(warned).have.length(1);
      should(warned[0]).match(
        /^stored running totals: dropped totals starting at 2026-03-31T21:20:00\.000Z, not an instant near now \(a\)/,
      );
      should(after.site().total).be.null();
      await after.handle(msg('a', 1), FLAT, Date.now());
      clock!.setSystemTime(T - FAR + MIN);
      const out = await after.handle(msg('a', 1.5), FLAT, Date.now());
      should(out!.payload.total).match({ energy: 0.5 });
      await after.close();
    });
  });

  describe("easy-cost's generator report", () => {
    const choice = { ref: { gatewayId: 'gw', sensorId: 'gen' }, on: 1 };
    /** A report that saw the generator off, on, off, on over 3 hours up to T, with energy in each state. */
    async function storedAtT() {
      const store = memoryStore();
      let now = T;
      const before = new StreamGenerator(choice, 'UTC', store, () => now);
      const values: Array<[number, number]> = [
        [T - 3 * HOUR, 0],
        [T - 2 * HOUR, 1],
        [T - 30 * MIN, 0],
        [T, 1],
      ];
      for (const [ts, v] of values) {
        before.record(ts, v);
        before.addChange(ts, { energy: 1, net: 0.25, gross: 0.3, unpricedEnergy: 0, resets: 0 });
      }
      await before.flush();
      return { store, before, setNow: (t: number) => (now = t) };
    }

    for (const [name, ahead] of AHEAD) {
      it(`${name} ahead: kept with one warning (shared with the totals), earlier values not taken; after the clock steps the time counts once`, async () => {
        const { store, before, setNow } = await storedAtT();
        const warned: string[] = [];
        let now = T - ahead;
        const after = new StreamGenerator(choice, 'UTC', store, () => now);
        const shared = new StoredAhead((w) => warned.push(w));
        await after.restore((w) => warned.push(w), shared);
        should(warned).have.length(1);
        should(warned[0]).startWith(aheadWords('stored generator report', name, T, T - ahead));
        shared.tell('stored running totals', T, now, ''); // the node's other store: said already
        should(warned).have.length(1);
        should(after.payload(T)).eql(before.payload(T));
        after.record(now + MIN, 0); // stamped by this clock: before the last stored value
        should(after.payload(T)).eql(before.payload(T));
        now = T + 10 * MIN;
        setNow(now);
        for (const g of [before, after]) {
          g.record(T + 10 * MIN, 0);
          g.addChange(T + 10 * MIN, { energy: 2, net: 0.5, gross: 0.6, unpricedEnergy: 0, resets: 0 });
          g.record(T + 30 * MIN, 1);
        }
        should(after.payload(T + 40 * MIN)).eql(before.payload(T + 40 * MIN));
        // this month (from T - 20 min): the run from T to T + 10 min counted once, and the one from T + 30 min
        should((after.payload(T + 40 * MIN) as any).month.runMs).equal(20 * MIN);
        should((after.payload(T + 40 * MIN) as any).closed.month.runMs).equal(90 * MIN);
      });
    }

    it('2 years ahead: dropped as before, the report starts afresh', async () => {
      const { store } = await storedAtT();
      const warned: string[] = [];
      const after = new StreamGenerator(choice, 'UTC', store, () => T - FAR);
      await after.restore((w) => warned.push(w));
      should(warned).have.length(1);
      should(warned[0]).match(/^stored generator report: dropped .*the last value \(2026-04-01T00:20:00\.000Z\)/);
      should((after.payload(T - FAR) as any).today).match({ runMs: 0, starts: 0 });
    });
  });

  describe("easy-peak's peaks and guard", () => {
    const settings = peakSettings({ minutes: '15', limit: 'fixed', limitKw: '10', marginPercent: '0', hysteresisPercent: '10' });
    /** 4.2 kW in the month's first quarter hour (T - 20 min to T - 5 min), 1.5 kW else, a reading a minute. */
    const kwAt = (ts: number) => (ts > T - 20 * MIN && ts <= T - 5 * MIN ? 4.2 : 1.5);
    const values = new Map<number, number>();
    let v = 100;
    for (let ts = T - 3 * HOUR; ts <= T + 3 * HOUR; ts += MIN) values.set(ts, (v += kwAt(ts) / 60));
    const reading = (ts: number, stamped = true) => ({ topic: 'a', payload: values.get(ts)!, ...(stamped ? { ts } : {}) });
    const stream = (store: ReturnType<typeof memoryStore>, warn: (w: string) => void) =>
      new PeakStream({ timezone: 'UTC', settings, store, warn, onGuard: () => undefined, saveEveryMs: 3600_000 });

    async function storedAtT() {
      clock = installClock(T);
      const store = memoryStore();
      const before = stream(store, () => undefined);
      await before.restore();
      for (let ts = T - 3 * HOUR; ts <= T; ts += MIN) await before.handle(reading(ts), T);
      await before.flush();
      return { store, before, month: before.siteMonth() };
    }

    for (const [name, ahead] of AHEAD) {
      it(`${name} ahead: the month's peak kept with one warning, readings of this clock too_late; after the clock steps each counts once`, async () => {
        const { store, before, month } = await storedAtT();
        should(month!.peaks[0]).match({ kw: 4.2 });
        bootAt(T - ahead);
        const warned: string[] = [];
        const after = stream(store, (w) => warned.push(w));
        await after.restore();
        should(warned).have.length(1);
        should(warned[0]).startWith(aheadWords('stored peaks', name, T, T - ahead));
        should(after.siteMonth()).eql(month);
        for (let k = 1; k <= 5; k++) {
          clock!.setSystemTime(T - ahead + k * MIN);
          const out = await after.handle(reading(T + k * MIN, false), Date.now());
          should(out!.payload.ignored).equal('too_late');
          // the power stored from the later clock has no age this clock can tell: stale, the guard never sheds on it
          should(out!.payload).match({ guard: 'restore', reason: 'stale data', stale: ['a'] });
        }
        should(after.siteMonth()).eql(month);
        clock!.setSystemTime(T + 20 * MIN);
        for (let ts = T + 6 * MIN; ts <= T + 2 * HOUR; ts += MIN) {
          if (ts > Date.now()) clock!.setSystemTime(ts);
          for (const s of [before, after]) should((await s.handle(reading(ts), Date.now()))!.payload.ignored).be.undefined();
        }
        // the same as the node that never restarted and never saw the readings of the clock behind
        should(after.siteMonth()).eql(before.siteMonth());
        should(after.meterOf({ gateway: null, topic: 'a' })).eql(before.meterOf({ gateway: null, topic: 'a' }));
        await Promise.all([before.close(), after.close()]);
      });
    }

    it('2 years ahead: dropped as before, the peaks start afresh', async () => {
      const { store, before } = await storedAtT();
      bootAt(T - FAR);
      const warned: string[] = [];
      const after = stream(store, (w) => warned.push(w));
      await after.restore();
      should(warned).eql(["stored peaks: dropped meter line 1 (failed its checks); the site's peaks (failed their checks)"]);
      should(after.siteMonth()).be.null();
      await Promise.all([before.close(), after.close()]);
    });

    it('a guard shed under the later clock stays shed, its last change counted from this start (it waits no year for its minute)', () => {
      const scope = {
        timezone: 'UTC',
        minutes: 15 as const,
        top: 1,
        distinctDays: false,
        when: null,
        maxPowerKw: 10_000,
        maxGapMs: Infinity,
      };
      const m = newMeter({ gateway: null, topic: 'a' }, 'kWh');
      for (let ts = T - 30 * MIN; ts <= T; ts += MIN) advanceMeter(m, { ts, value: values.get(ts)! }, scope);
      const stored = JSON.parse(
        JSON.stringify(encodePeaks([m], newSite(), { state: 'shed', changedAt: T - MIN }, scope, { now: T, mono: 0 })),
      );
      for (const [, ahead] of AHEAD) {
        const back = decodePeaks(stored, { ...scope, maxMeters: 128 }, T - ahead, 0);
        should(back).match({ problem: null, newest: T, guard: { state: 'shed', changedAt: T - ahead } });
        const { last, power, window, month } = m;
        should(back.meters[0]).match({ last, power, window, month });
        should(back.meters[0].clock).be.null(); // when its newest reading arrived is not known: its power is stale
      }
      should(decodePeaks(stored, { ...scope, maxMeters: 128 }, T, 0)).match({ guard: { state: 'shed', changedAt: T - MIN } });
    });
  });

  describe("easy-account's stored tariffs", () => {
    const offline = () => new EasyClient({ baseUrl: 'http://127.0.0.1:9', token: 'demo-token', retries: 0, timeoutMs: 2000 });
    const stored = () => ({ fetchedAt: T, tariffs: JSON.parse(JSON.stringify(DEMO_TARIFFS)), problems: [] });
    async function restartAt(now: number) {
      const value = stored();
      const warned: string[] = [];
      const hub = new AccountHub({
        client: offline(),
        timezone: 'UTC',
        now: () => now,
        warn: (w) => warned.push(w),
        store: { load: async () => value, save: async () => undefined },
      });
      const snapshot = await new Promise<TariffSnapshot>((resolve) => {
        const stop = hub.watchTariffs(60, (s) => {
          stop();
          resolve(s);
        });
      });
      await hub.close();
      return { snapshot, warned };
    }

    for (const [name, ahead] of AHEAD) {
      it(`${name} ahead: the fetch time kept with one warning; the tariffs price, stale`, async () => {
        const { snapshot, warned } = await restartAt(T - ahead);
        should(snapshot).match({ fetchedAt: T, stale: true, error: { code: 'network' } });
        should(snapshot.tariffs.length).equal(DEMO_TARIFFS.length);
        should(warned).eql([aheadWords('stored tariffs', name, T, T - ahead) + 'they price (stale) until a fetch answers']);
      });
    }

    it('2 years ahead: the fetch time dropped as before (the tariffs count as fetched at this start)', async () => {
      const { snapshot, warned } = await restartAt(T - FAR);
      should(snapshot).match({ fetchedAt: T - FAR, stale: true });
      should(warned).eql([
        'stored tariffs: dropped the fetch time (2026-04-01T00:20:00.000Z, not an instant near now): the tariffs count as fetched at this start',
      ]);
    });
  });

  describe("easy-plan's stored plan", () => {
    const settings = planSettings({ mode: 'rolling', hours: 6, durationHours: 1, durationMinutes: 0, contiguous: false, maxPrice: '' });
    /** A rolling window's plan stored at T: it ran 30 minutes before T and plans 30 more after. */
    const stored = (over: Record<string, unknown> = {}) => ({
      key: 'k',
      ledger: {
        cycle: { from: T - HOUR, to: T + 5 * HOUR, requested: HOUR },
        cancelled: false,
        once: null,
        boost: null,
        pieces: [
          { from: T - 50 * MIN, to: T - 20 * MIN, price: 0.1, owner: 'plan' },
          { from: T + 2 * HOUR, to: T + 2 * HOUR + 30 * MIN, price: 0.1, owner: 'plan' },
        ],
      },
      currency: 'GBP',
      vat: 20,
      savedAt: T,
      ...over,
    });

    it('50 minutes, 3 days and 364 days ahead: kept as stored, with the instant it was stored at', () => {
      for (const [name, ahead] of AHEAD) {
        const checked = checkStoredPlan(stored(), 'k', T - ahead, settings);
        should(checked.untrusted === null).be.true(name);
        should(checked.plan).eql(stored(), name);
      }
    });

    it('2 years ahead: dropped as before; one stored without its instant is judged by this clock, as before', () => {
      should(checkStoredPlan(stored(), 'k', T - FAR, settings)).eql({
        plan: null,
        untrusted: 'stored at 2026-04-01T00:20:00.000Z, not an instant near now',
      });
      const { savedAt: _none, ...older } = stored();
      should(checkStoredPlan(older, 'k', T - 3 * DAY, settings).plan).not.be.null();
      should(checkStoredPlan(older, 'k', T - 364 * DAY, settings).untrusted).match(/beyond what the settings reach/);
      // an instant of its own never widens what the settings reach from it
      const boost = { from: T, to: T + 300 * 366 * DAY };
      const forged = stored({ ledger: { ...stored().ledger, boost, pieces: [{ ...boost, price: 1, owner: 'boost' }] } });
      should(checkStoredPlan(forged, 'k', T - 50 * MIN, settings).untrusted).match(/^the boost ends at .*beyond what the settings reach$/);
    });
  });
});
