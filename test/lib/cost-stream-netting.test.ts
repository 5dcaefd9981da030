// Stream mode's netting (semantics rule 48) against a slow reference written here: the
// import and export registers walked minute by minute (the energy of each minute read off
// the straight line between readings: rule 40's share by time), each settlement interval of
// the local clock netted and its remainder priced at the rule of its start; per month, each
// reading interval priced at its start and the month's kWh netted at the larger side's
// average. Generated histories (DST days, month ends, gaps, one direction missing, late
// readings) sent in a shuffled order, and restarted mid-interval and mid-month.
import should from 'should';
import { CostStream, TotalsStore } from '../../nodes/lib/runtime/cost/cost-stream';
import { ExportMeters } from '../../nodes/lib/runtime/common/meter-direction';
import { parseTariffs, Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { computeNetCost, Netting } from '../../nodes/lib/engine/net/net-cost';
import type { NetSums } from '../../nodes/lib/engine/net/net-ledger';
import { prng } from './engine-fixtures';
import { intlLocalMs } from './local-period-reference';

const [IMPORT, EXPORT] = parseTariffs([
  {
    id: 'I',
    name: 'import',
    vat: 20,
    currency: 'EUR',
    rules: [
      { priority: 1, price: 0.3, time_start: '07:00', time_end: '21:30' },
      { priority: 2, price: 0.15 },
    ],
  },
  {
    id: 'X',
    name: 'feed-in',
    vat: 20,
    currency: 'EUR',
    rules: [
      { priority: 1, price: -0.02, time_start: '11:00', time_end: '14:00' },
      { priority: 2, price: 0.08 },
    ],
  },
]).tariffs as [Tariff, Tariff];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Local wall-clock fields of an instant, read with Intl (not the package's clock). */
function local(zone: string, ms: number): { y: number; mo: number; h: number; mi: number; offset: number } {
  const wall = intlLocalMs(zone, ms);
  const d = new Date(wall);
  return { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, h: d.getUTCHours(), mi: d.getUTCMinutes(), offset: wall - ms };
}

const importPrice = (zone: string, ms: number) => {
  const { h, mi } = local(zone, ms);
  const m = h * 60 + mi;
  return m >= 7 * 60 && m < 21 * 60 + 30 ? 0.3 : 0.15;
};
const exportPrice = (zone: string, ms: number) => {
  const { h } = local(zone, ms);
  return h >= 11 && h < 14 ? -0.02 : 0.08;
};

type Rows = Array<[number, number]>;

/** The settlement interval of `minutes` holding ms: local multiples (the zones here move by whole hours). */
function windowStart(zone: string, ms: number, minutes: number): number {
  const step = minutes * MINUTE;
  const offset = local(zone, ms).offset;
  return Math.floor((ms + offset) / step) * step - offset;
}

/** Energy per minute start of one register: the straight line between readings (whole minutes). */
function perMinute(rows: Rows): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 1; i < rows.length; i++) {
    const [a, av] = rows[i - 1];
    const [b, bv] = rows[i];
    const perMin = (bv - av) / ((b - a) / MINUTE);
    for (let t = a; t < b; t += MINUTE) out.set(t, (out.get(t) ?? 0) + perMin);
  }
  return out;
}

interface Figures {
  importEnergy: number;
  importCost: number;
  exportEnergy: number;
  exportCredit: number;
}

function slowInterval(zone: string, imp: Rows, exp: Rows, minutes: number): Figures {
  const windows = new Map<number, [number, number]>();
  for (const [k, rows] of [imp, exp].entries())
    for (const [t, e] of perMinute(rows)) {
      const w = windowStart(zone, t, minutes);
      const pair = windows.get(w) ?? [0, 0];
      pair[k] += e;
      windows.set(w, pair);
    }
  const out = { importEnergy: 0, importCost: 0, exportEnergy: 0, exportCredit: 0 };
  for (const [w, [i, e]] of windows) {
    if (i > e) {
      out.importEnergy += i - e;
      out.importCost += (i - e) * importPrice(zone, w) * 1.2;
    } else {
      out.exportEnergy += e - i;
      out.exportCredit += (e - i) * exportPrice(zone, w);
    }
  }
  return out;
}

function slowPeriod(zone: string, imp: Rows, exp: Rows): Figures {
  const months = new Map<string, number[]>(); // [import kWh, import gross, export kWh, export credit]
  const add = (rows: Rows, k: number, price: (ms: number) => number) => {
    for (let i = 1; i < rows.length; i++) {
      const { y, mo } = local(zone, rows[i - 1][0]);
      const m = months.get(`${y}-${mo}`) ?? [0, 0, 0, 0];
      const e = rows[i][1] - rows[i - 1][1];
      m[k] += e;
      m[k + 1] += e * price(rows[i - 1][0]);
      months.set(`${y}-${mo}`, m);
    }
  };
  add(imp, 0, (ms) => importPrice(zone, ms) * 1.2);
  add(exp, 2, (ms) => exportPrice(zone, ms));
  const out = { importEnergy: 0, importCost: 0, exportEnergy: 0, exportCredit: 0 };
  for (const [ie, ig, ee, eg] of months.values()) {
    if (ie > ee) {
      out.importEnergy += ie - ee;
      out.importCost += ig * ((ie - ee) / ie);
    } else if (ee > ie) {
      out.exportEnergy += ee - ie;
      out.exportCredit += eg * ((ee - ie) / ee);
    }
  }
  return out;
}

/** One register's readings at whole minutes: 1 to 9 minutes apart, now and then a gap of up to 3 h, power by time of day. */
function register(rand: () => number, from: number, to: number, solar: boolean, zone: string): Rows {
  const rows: Rows = [];
  let value = Math.round(rand() * 5000) / 10;
  for (let t = from; t <= to;) {
    rows.push([t, value]);
    const step = (rand() < 0.02 ? 30 + Math.floor(rand() * 150) : 1 + Math.floor(rand() * 9)) * MINUTE;
    const h = local(zone, t).h;
    const kw = solar ? (h >= 8 && h < 18 ? 1 + 4 * rand() : 0.05 * rand()) : 0.3 + 2 * rand();
    value = Math.round((value + (kw * step) / HOUR) * 1e6) / 1e6;
    t += step;
  }
  return rows;
}

function memoryStore(): TotalsStore & { saved: unknown } {
  const store = {
    saved: undefined as unknown,
    load: async () => store.saved,
    save: async (value: unknown) => void (store.saved = JSON.parse(JSON.stringify(value))),
  };
  return store;
}

async function streamOf(store: TotalsStore, zone: string, netting: Netting, minutes: 15 | 30 | 60, warnings: string[], production = false) {
  const key = 'tariff:X|vat:false|floor:false';
  const stream = new CostStream({
    timezone: zone,
    tariffId: 'I',
    store,
    warn: (w) => warnings.push(w),
    exportMeters: new ExportMeters('pv'),
    exportPricing: { exportVat: false, floorAtZero: false, key },
    ledger: { netting, minutes, production, key: `${netting}|${minutes}|${key}` },
    saveEveryMs: 60_000,
  });
  await stream.restore();
  return stream;
}

/** The readings of both registers in arrival order: mostly in time order, some late by up to 2 h, one direction's start missing sometimes. */
function arrival(rand: () => number, imp: Rows, exp: Rows): Array<{ topic: string; ts: number; payload: number }> {
  const all = [
    ...imp.map(([ts, payload]) => ({ topic: 'grid', ts, payload, at: ts })),
    ...exp.map(([ts, payload]) => ({ topic: 'pv', ts, payload, at: ts })),
  ];
  for (const r of all) if (rand() < 0.05) r.at += Math.floor(rand() * 2 * HOUR);
  return all.sort((a, b) => a.at - b.at).map(({ topic, ts, payload }) => ({ topic, ts, payload }));
}

const CASES: Array<[string, string]> = [
  ['Europe/Berlin', '2026-10-24T18:00:00Z'], // 25 October: 03:00 back to 02:00
  ['Europe/Berlin', '2026-03-28T20:00:00Z'], // 29 March: 02:00 on to 03:00
  ['Europe/Berlin', '2026-10-30T20:00:00Z'], // the end of October
  ['Australia/Adelaide', '2026-04-04T10:00:00Z'], // +10:30 to +9:30: hours start at :30 UTC
  ['UTC', '2026-09-30T12:00:00Z'],
];

async function run(seed: number, netting: 'interval' | 'period', restartAt: number | null) {
  const rand = prng(seed);
  const [zone, startIso] = CASES[seed % CASES.length];
  const minutes = ([15, 30, 60] as const)[seed % 3];
  const from = Date.parse(startIso) + Math.floor(rand() * 60) * MINUTE;
  const to = from + (8 + Math.floor(rand() * 20)) * HOUR;
  const imp = register(rand, from, to, false, zone);
  // one direction missing for the first hours now and then
  const exp = register(rand, rand() < 0.3 ? from + 3 * HOUR : from, to - (rand() < 0.3 ? 2 * HOUR : 0), true, zone);
  const store = memoryStore();
  const warnings: string[] = [];
  let stream = await streamOf(store, zone, netting, minutes, warnings);
  const now = to + HOUR;
  const msgs = arrival(rand, imp, exp);
  const cut = restartAt === null ? -1 : Math.floor(msgs.length * restartAt);
  let out = null;
  for (const [k, msg] of msgs.entries()) {
    if (k === cut) {
      await stream.close(); // the last save
      stream = await streamOf(store, zone, netting, minutes, warnings);
    }
    out = (await stream.handle(msg, IMPORT, now, EXPORT)) ?? out;
  }
  await stream.close();
  const reference = netting === 'interval' ? slowInterval(zone, imp, exp, minutes) : slowPeriod(zone, imp, exp);
  return { total: stream.site().ledger!.total!, reference, warnings, zone, minutes, imp, exp, out };
}

function shouldMatch(total: NetSums, reference: Figures, what: string) {
  for (const f of ['importEnergy', 'exportEnergy'] as const) should(total[f]).be.approximately(reference[f], 1e-6, `${what}: ${f}`);
  for (const f of ['importCost', 'exportCredit'] as const) should(total[f]).be.approximately(reference[f], 0.005, `${what}: ${f}`);
}

describe('CostStream: netting per interval and per month (rule 48) against a minute walk', function () {
  this.timeout(60_000);

  it('per interval: generated histories in any order (DST days, gaps, one side missing) match the walk and computeNetCost', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const r = await run(seed, 'interval', null);
      shouldMatch(r.total, r.reference, `seed ${seed} ${r.zone} ${r.minutes} min`);
      const batch = computeNetCost(
        { import: IMPORT, export: EXPORT },
        { import: r.imp, export: r.exp },
        {
          timezone: r.zone,
          netting: 'interval',
          intervalMinutes: r.minutes,
        },
      );
      should(r.total.importCost).be.approximately(batch.importCost, 1e-6);
      should(r.total.exportCredit).be.approximately(batch.exportCredit, 1e-6);
      should(r.total.oneSided).equal(batch.oneSided);
      should(r.warnings).eql([]);
    }
  });

  it('per month: generated histories across a month end match the walk', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const r = await run(seed, 'period', null);
      shouldMatch(r.total, r.reference, `seed ${seed} ${r.zone}`);
      should(r.warnings).eql([]);
    }
  });

  it('restarted mid-interval and mid-month: the stored ledger carries on to the same totals', async () => {
    for (let seed = 21; seed <= 25; seed++)
      for (const netting of ['interval', 'period'] as const) {
        const r = await run(seed, netting, 0.37 + (seed % 5) / 10);
        shouldMatch(r.total, r.reference, `seed ${seed} ${netting} restarted`);
        should(r.warnings).eql([]);
      }
  });
});

describe('CostStream: the stored netting as hostile data', () => {
  it('a tampered or foreign ledger line starts the netted sums from zero, said once; the meters count on', async () => {
    const zone = 'Europe/Berlin';
    const t0 = Date.parse('2026-10-24T10:00:00Z');
    const now = t0 + 10 * HOUR;
    const store = memoryStore();
    const first = await streamOf(store, zone, 'interval', 15, []);
    for (let k = 0; k <= 8; k++) {
      await first.handle({ topic: 'grid', payload: 100 + k, ts: t0 + k * 10 * MINUTE }, IMPORT, now, EXPORT);
      await first.handle({ topic: 'pv', payload: 50 + 2 * k, ts: t0 + k * 10 * MINUTE }, IMPORT, now, EXPORT);
    }
    await first.close();
    const saved = store.saved as { net: string };
    const line = JSON.parse(saved.net) as unknown[];
    should(line[4]).be.an.Array(); // the slots still reachable are stored
    const slotWidth = 1 + 12 + 9;
    const tampered: unknown[] = [
      'not json',
      JSON.stringify([...line.slice(0, 5), [1, 2]]), // months where none are kept
      JSON.stringify(['period|15|other', ...line.slice(1)]),
      JSON.stringify([line[0], 1e20, ...line.slice(2)]),
      // near now (100 years) but further ahead than stored state may be (a year): as every store, refused
      JSON.stringify([line[0], Date.now() + 2 * 366 * 24 * HOUR, ...line.slice(2)]),
      JSON.stringify([...line.slice(0, 4), [t0 + 7 * MINUTE, ...new Array(slotWidth - 1).fill(0)], null]), // not a boundary
      JSON.stringify([...line.slice(0, 4), new Array(401 * slotWidth).fill(0), null]),
      saved.net.replace(/\d+\.\d+/, '"x"'),
      42,
    ];
    for (const net of tampered) {
      const copy = memoryStore();
      copy.saved = { ...(store.saved as object), net };
      const warnings: string[] = [];
      const again = await streamOf(copy, zone, 'interval', 15, warnings);
      should(warnings).have.length(1);
      should(warnings[0]).match(/the site's netted and production sums \(.+\): they start from zero/);
      should(again.site().ledger!.total).equal(null);
      // the meters' totals are read back all the same
      should(again.site()).match({ meters: 1, day: { energy: 8 }, export: { day: { energy: 16 } } });
      await again.close();
    }
    // untouched, it reads back whole
    const warnings: string[] = [];
    const again = await streamOf(store, zone, 'interval', 15, warnings);
    should(warnings).eql([]);
    should(again.site().ledger!.total).match({ exportEnergy: 8 });
  });
});

describe('CostStream: the stored netting dated ahead of the clock', () => {
  it('a line whose newest instant lies more than a year ahead is dropped, its warning in words; eleven months ahead it reads back', async () => {
    const zone = 'UTC';
    const t0 = Date.parse('2026-10-24T10:00:00Z');
    const now = t0 + 10 * HOUR;
    const store = memoryStore();
    const first = await streamOf(store, zone, 'interval', 15, []);
    for (let k = 0; k <= 6; k++) {
      await first.handle({ topic: 'grid', payload: 100 + k, ts: t0 + k * 10 * MINUTE }, IMPORT, now, EXPORT);
      await first.handle({ topic: 'pv', payload: 50 + 2 * k, ts: t0 + k * 10 * MINUTE }, IMPORT, now, EXPORT);
    }
    // the restart's clock is the machine's: the line's newest instant is dated against it
    await first.close();
    const line = JSON.parse((store.saved as { net: string }).net) as unknown[];
    const dated = async (aheadMs: number) => {
      const copy = memoryStore();
      copy.saved = { ...(store.saved as object), net: JSON.stringify([line[0], Date.now() + aheadMs, ...line.slice(2)]) };
      const warnings: string[] = [];
      const again = await streamOf(copy, zone, 'interval', 15, warnings);
      const site = again.site();
      await again.close();
      return { warnings, site };
    };
    // stored under a clock two years later (or tampered): the netted sums start from zero, the meters count on
    const far = await dated(2 * 366 * 24 * HOUR);
    should(far.warnings).eql([
      "stored running totals: dropped the site's netted and production sums " +
        '(its newest instant is no instant near now, or more than a year ahead): they start from zero',
    ]);
    should(far.site.ledger!.total).equal(null);
    should(far.site).match({ meters: 1, day: { energy: 6 } });
    // eleven months ahead is within the year stored state may lie ahead: kept, nothing said
    const near = await dated(335 * 24 * HOUR);
    should(near.warnings).eql([]);
    should(near.site.ledger!.total).match({ exportEnergy: 6 });
  });
});

describe('CostStream: production meters (rule 64)', () => {
  it('msg.direction "production" counts an unpriced meter and the self-consumption; stored positions read back checked', async () => {
    const zone = 'UTC';
    const t0 = Date.parse('2026-06-10T08:00:00Z');
    const now = t0 + 10 * HOUR;
    const store = memoryStore();
    const warnings: string[] = [];
    const stream = await streamOf(store, zone, 'none', 60, warnings);
    for (let h = 0; h <= 4; h++) {
      const ts = t0 + h * HOUR;
      await stream.handle({ topic: 'grid', payload: 10 + h, ts }, IMPORT, now, EXPORT);
      await stream.handle({ topic: 'pv', payload: 20 + 2 * h, ts }, IMPORT, now, EXPORT);
      await stream.handle({ topic: 'inv', payload: 30 + (h === 4 ? 9 : 3 * h), direction: 'production', ts }, IMPORT, now, EXPORT);
    }
    // made 3, 3, 3, 0 (the last hour's counter: 39 - 39); sold 2 an hour: 1, 1, 1, 0; bought 4
    const site = stream.site();
    should(site).match({ meters: 1, day: { energy: 4 }, production: { meters: 1, day: { energy: 9, gross: 0 } } });
    should(site.ledger!.day).match({ production: 9, selfConsumption: 3 });
    await stream.close();
    should(warnings).eql([]);
    should(store.saved).match({ productions: [2], exports: [1] });
    for (const productions of [[1], [3], ['2'], [-1]]) {
      const copy = memoryStore();
      copy.saved = { ...(store.saved as object), productions };
      const w: string[] = [];
      const again = await streamOf(copy, zone, 'none', 60, w);
      should(w).eql(['running totals started from zero: stored totals are unreadable']);
      await again.close();
    }
    const again = await streamOf(store, zone, 'none', 60, []);
    should(again.site()).match({ production: { meters: 1, day: { energy: 9 } } });
    should(again.site().ledger!.day).match({ selfConsumption: 3 });
  });

  it('month netting without production meters keeps the months alone; a production meter (msg.direction) brings the settlement intervals, across a restart', async () => {
    const zone = 'UTC';
    const t0 = Date.parse('2026-06-10T08:00:00Z');
    const now = t0 + 10 * HOUR;
    const store = memoryStore();
    const warnings: string[] = [];
    const stream = await streamOf(store, zone, 'period', 15, warnings);
    const read = async (h: number, inverter: boolean) => {
      const ts = t0 + h * HOUR;
      await stream.handle({ topic: 'grid', payload: 10 + h, ts }, IMPORT, now, EXPORT);
      await stream.handle({ topic: 'pv', payload: 20 + 2 * h, ts }, IMPORT, now, EXPORT);
      if (inverter) await stream.handle({ topic: 'inv', payload: 3 * h, direction: 'production', ts }, IMPORT, now, EXPORT);
    };
    for (let h = 0; h <= 4; h++) await read(h, false);
    await stream.flush();
    const line = JSON.parse((store.saved as { net: string }).net) as unknown[];
    should(line[4]).equal(null); // rule 48's months: no quarter hour kept nor stored
    should(line[5])
      .be.an.Array()
      .and.have.length(1 + 12 + 9); // the month
    should(stream.site().ledger!.month).match({ importEnergy: 0, exportEnergy: 4, production: 0, selfConsumption: 0 });
    // the production setting added at a redeploy: the months read back, the intervals start now
    const setCopy = memoryStore();
    setCopy.saved = store.saved;
    const set: string[] = [];
    should((await streamOf(setCopy, zone, 'period', 15, set, true)).site().ledger!.month).match({ exportEnergy: 4 });
    should(set).eql([]);
    // an inverter from 12:00 by msg.direction: 3 kWh an hour made, 2 sold, 1 self-consumed
    for (let h = 4; h <= 7; h++) await read(h, h >= 4);
    should(stream.site().ledger!.month).match({ importEnergy: 0, exportEnergy: 7, production: 9, selfConsumption: 3 });
    await stream.close();
    should(JSON.parse((store.saved as { net: string }).net)[4]).be.an.Array();
    const again = await streamOf(store, zone, 'period', 15, warnings);
    should(again.site().ledger!.month).match({ exportEnergy: 7, production: 9, selfConsumption: 3 });
    await again.handle({ topic: 'inv', payload: 24, direction: 'production', ts: t0 + 8 * HOUR }, IMPORT, now, EXPORT);
    await again.handle({ topic: 'pv', payload: 36, ts: t0 + 8 * HOUR }, IMPORT, now, EXPORT);
    should(again.site().ledger!.month).match({ production: 12, selfConsumption: 4 });
    should(warnings).eql([]);
    await again.close();
  });

  it('a line stored while the stream forced production on (before the setting reached the ledger) lets go of intervals that hold no production, and keeps ones that do', async () => {
    const zone = 'UTC';
    const t0 = Date.parse('2026-06-10T08:00:00Z');
    const now = t0 + 10 * HOUR;
    const netLine = (store: { saved: unknown }) => JSON.parse((store.saved as { net: string }).net) as unknown[];
    // as every ledger stored before: production on, the same key (netting, minutes, export price)
    const upgraded = async (inverter: boolean) => {
      const store = memoryStore();
      const warnings: string[] = [];
      const before = await streamOf(store, zone, 'period', 15, warnings, true);
      for (let h = 0; h <= 2; h++) {
        const ts = t0 + h * HOUR;
        await before.handle({ topic: 'grid', payload: 10 + h, ts }, IMPORT, now, EXPORT);
        await before.handle({ topic: 'pv', payload: 20 + 2 * h, ts }, IMPORT, now, EXPORT);
        // an inverter at night: 0 kWh, the time covered
        if (inverter) await before.handle({ topic: 'inv', payload: 5, direction: 'production', ts }, IMPORT, now, EXPORT);
      }
      await before.close();
      should(netLine(store)[4]).be.an.Array().and.not.be.empty();
      const after = await streamOf(store, zone, 'period', 15, warnings);
      for (let h = 3; h <= 5; h++) {
        const ts = t0 + h * HOUR;
        await after.handle({ topic: 'grid', payload: 10 + h, ts }, IMPORT, now, EXPORT);
        await after.handle({ topic: 'pv', payload: 20 + 2 * h, ts }, IMPORT, now, EXPORT);
      }
      await after.close();
      should(warnings).eql([]);
      return { line: netLine(store), month: after.site().ledger!.month };
    };
    // no production in them: the months alone, as a fresh ledger keeps (the sums the same)
    const plain = await upgraded(false);
    should(plain.line[4]).equal(null);
    should(plain.month).match({ importEnergy: 0, exportEnergy: 5, production: 0, selfConsumption: 0 });
    // a production meter counted in them (0 kWh at night still covers time): kept, its self-consumption counted on
    const inverter = await upgraded(true);
    should(inverter.line[4]).be.an.Array().and.not.be.empty();
    should(inverter.month).match({ importEnergy: 0, exportEnergy: 5, production: 0, selfConsumption: 0 });
  });
});
