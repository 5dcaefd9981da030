// easy-peak's power factor (semantics rule 66) without Node-RED: the site's kWh windows
// billed as kVA with a fixed power factor (as apparentDemandWindows with `powerFactor`), or
// with a power-factor meter's readings (against a slow reference written here: each reading
// holds until the next, a window's power factor their time-weighted average over it), on
// generated histories across the clock changes of Europe/London; bad readings, the mixing
// rules, and what is stored read back and tampered with.
import should from 'should';
import type { PeakStream } from '../../nodes/lib/runtime/peak/peak-stream';
import { openPeakStream, refusal } from './peak-stream-support';
import { apparentDemandWindows } from '../../nodes/lib/engine/peak/apparent';
import { demandWindows } from '../../nodes/lib/engine/peak/demand';
import { isPowerFactorReading } from '../../nodes/lib/runtime/common/meter-reading';
import { demandWindowOf } from '../../nodes/lib/engine/peak/demand-window';
import { prng } from './engine-fixtures';

const ZONE = 'Europe/London';
const FAR = Date.parse('2100-01-01T00:00:00Z');
const MIN = 60_000;
/** The spring and autumn clock changes of 2026 in London (01:00 UTC), and a plain Wednesday. */
const DAYS = ['2026-03-29T00:00:00Z', '2026-10-25T00:00:00Z', '2026-03-04T09:00:00Z'].map(Date.parse);

const newStream = (config: Record<string, unknown> = {}, stored?: unknown, saved: unknown[] = []) =>
  openPeakStream(ZONE, { minutes: '30', staleMinutes: '60', maxGapMinutes: '10', ...config }, stored, saved);

/** A history from `start` over `hours`: readings every 20 s to 4 min, now and then a gap up to 40 min (longer than the 10 min *longest gap*). */
function stamps(rnd: () => number, start: number, hours: number): number[] {
  const out = [start];
  while (out[out.length - 1] < start + hours * 3_600_000) {
    const step = rnd() < 0.03 ? 11 * MIN + rnd() * 29 * MIN : 20_000 + rnd() * 220_000;
    out.push(out[out.length - 1] + Math.round(step));
  }
  return out;
}

type Row = [number, number];

/** Feeds kWh and power-factor readings in time order (kWh first at equal instants) and collects the site's closed windows. */
async function feed(stream: PeakStream, kwh: Row[], pf: Row[]) {
  const all = [...kwh.map((r) => ({ r, pf: false })), ...pf.map((r) => ({ r, pf: true }))].sort(
    (a, b) => a.r[0] - b.r[0] || Number(a.pf) - Number(b.pf),
  );
  const site: Array<Record<string, any>> = [];
  let reactive: Record<string, any> = {};
  for (const { r, pf: isPf } of all) {
    const msg = isPf
      ? { gateway: 'G', topic: 'e1.pf', payload: r[1], ts: r[0] }
      : { gateway: 'G', topic: 'e1.kwh', payload: r[1], ts: r[0] };
    const out = await stream.handle(msg, FAR);
    for (const w of out?.records?.closed ?? []) if (w.scope === 'site') site.push(w);
    reactive = (out?.payload.site as any)?.bill.reactive ?? reactive;
  }
  // the bill's reactive energy of the period so far (rule 57 in the node): its sums of the closed windows' kWh and kvarh
  return Object.assign(site, { reactive });
}

/**
 * The slow reference of a window's power factor: the step function of the readings (each
 * holds from its stamp until the next); kVA = kW ÷ pf at each instant, so the window's kVAh
 * per kWh is the time-weighted average of 1/pf over the part covered, integrated by every
 * reading. Known over the whole window only with a reading at or before its start and no
 * interval between readings longer than the gap setting overlapping it.
 */
function referencePf(pf: Row[], from: number, to: number, maxGapMs: number) {
  let weighted = 0;
  let covered = 0;
  let whole = pf[0][0] <= from;
  for (let i = 0; i + 1 < pf.length; i++) {
    const [a, b] = [pf[i][0], pf[i + 1][0]];
    const overlap = Math.min(b, to) - Math.max(a, from);
    if (overlap <= 0) continue;
    weighted += overlap / pf[i][1];
    covered += overlap;
    if (b - a > maxGapMs) whole = false;
  }
  return { pf: covered > 0 ? covered / weighted : null, whole };
}

describe('easy-peak power factor (rule 66)', () => {
  it('recognises a power-factor reading by its stated unit, an easy-sensors power-factor subsensor, or a name ending in pf', () => {
    for (const msg of [
      { payload: 0.9, unit: 'pf' },
      { payload: 0.9, unit: 'cos φ' },
      { payload: 0.9, unit: 'CosPhi' },
      { payload: 0.9, unit: 'Power_Factor' },
      { payload: 0.9, topic: 'e1.pf' },
      { payload: 0.9, topic: 'incomer/cosphi' },
      { payload: { id: 'e1.pf', value: 0.9, ts: 1, unit: null, decoded: { kind: 'modbus', quantity: 'power_factor' } }, topic: 'e1.pf' },
      { payload: { id: 'x', value: 0.9, ts: 1, unit: 'pf' } },
    ])
      should(isPowerFactorReading(msg)).equal(true, JSON.stringify(msg));
    for (const msg of [
      { payload: 0.9, topic: 'e1.kwh' },
      { payload: 0.9, topic: 'shelf' }, // ends in "f", not a separate "pf"
      { payload: 0.9, topic: 'e1.pf', unit: 'kWh' }, // what the message says wins
      { payload: { id: 'e1.v3p@1', value: 230, ts: 1, unit: 'V' }, topic: 'e1.v3p@1' },
      { payload: { id: 'e1.freq', value: 50, ts: 1, decoded: { kind: 'modbus', quantity: 'frequency' } }, topic: 'e1.freq' },
    ])
      should(isPowerFactorReading(msg)).equal(false, JSON.stringify(msg));
  });

  it('a fixed power factor: each site window kVAh = kWh ÷ pf, as apparentDemandWindows({ active, powerFactor }) on generated histories, clock changes included', async () => {
    for (let c = 0; c < 12; c++) {
      const rnd = prng(1000 + c);
      const pf = Math.round((0.5 + rnd() * 0.5) * 1000) / 1000 || 1;
      const start = DAYS[c % 3] - 30 * MIN + Math.round(rnd() * 20 * MIN);
      let value = 5000 * rnd();
      const active: Row[] = stamps(rnd, start, 5).map((ts, i) => [ts, i === 0 ? value : (value += rnd() * 0.5)]);
      const { stream } = await newStream({ powerFactor: String(pf) });
      try {
        const site = await feed(stream, active, []);
        const last = active[active.length - 1][0];
        const want = apparentDemandWindows({ active, powerFactor: pf }, { timezone: ZONE, minutes: 30, maxGapMinutes: 10 }).filter(
          (w) => w.to <= last,
        );
        should(site.map((w) => w.fromMs)).eql(
          want.map((w) => w.from),
          `case ${c}`,
        );
        site.forEach((w, i) => {
          const at = `case ${c} (pf ${pf}), window ${new Date(w.fromMs).toISOString()}`;
          should(w.unit).equal('kVA', at);
          should(w.kw).be.approximately(want[i].kw, 1e-6, at);
          should(w.complete).equal(want[i].complete, at);
        });
        // the reactive charge's sums take the kWh and the kvarh the power factor implies (all windows in one month)
        const sum = (f: (w: (typeof want)[number]) => number) => want.reduce((t, w) => t + f(w), 0);
        should(site.reactive.windows).equal(want.length);
        should(site.reactive.activeEnergy).be.approximately(
          sum((w) => w.activeEnergy),
          1e-6,
        );
        should(site.reactive.reactiveEnergy).be.approximately(
          sum((w) => w.reactiveEnergy),
          1e-6,
        );
        should(site.reactive.apparentEnergy).be.approximately(
          sum((w) => w.energy),
          1e-6,
        );
        if (sum((w) => w.activeEnergy) > 0) should(site.reactive.powerFactor).be.approximately(pf, 1e-9);
      } finally {
        await stream.close();
      }
    }
  });

  it('a power-factor meter: each window kVAh = kWh × the time-weighted average of 1/pf over it, as a slow reference, clock changes included', async () => {
    const maxGapMs = 10 * MIN;
    let compared = 0;
    for (let c = 0; c < 12; c++) {
      const rnd = prng(2000 + c);
      const start = DAYS[c % 3] - 30 * MIN + Math.round(rnd() * 20 * MIN);
      let value = 5000 * rnd();
      const active: Row[] = stamps(rnd, start + 1000, 5).map((ts, i) => [ts, i === 0 ? value : (value += rnd() * 0.5)]);
      const pf: Row[] = stamps(rnd, start, 5).map((ts) => [ts, Math.round((0.4 + rnd() * 0.6) * 1000) / 1000]);
      const { stream } = await newStream();
      try {
        const site = await feed(stream, active, pf);
        const until = Math.min(active[active.length - 1][0], pf[pf.length - 1][0]);
        const energy = demandWindows(active, { timezone: ZONE, minutes: 30, maxGapMinutes: 10 }).filter((w) => w.to <= until);
        should(site.map((w) => w.fromMs)).eql(
          energy.map((w) => w.from),
          `case ${c}`,
        );
        const sums = { active: 0, reactive: 0, apparent: 0 };
        site.forEach((w, i) => {
          const at = `case ${c}, window ${new Date(w.fromMs).toISOString()}`;
          const ref = referencePf(pf, energy[i].from, energy[i].to, maxGapMs);
          should(ref.pf).not.be.null();
          should(w.unit).equal('kVA', at);
          should(w.energy).be.approximately(energy[i].energy / ref.pf!, 1e-6, at);
          should(w.kw).be.approximately(energy[i].energy / ref.pf! / 0.5, 1e-6, at);
          should(w.complete).equal(energy[i].complete && ref.whole, at);
          sums.active += energy[i].energy;
          sums.reactive += energy[i].energy * Math.sqrt(1 / ref.pf! ** 2 - 1);
          sums.apparent += energy[i].energy / ref.pf!;
          compared++;
        });
        // the reactive charge's sums: the kWh, the kvarh each window's power factor implies, the kVAh
        should(site.reactive.activeEnergy).be.approximately(sums.active, 1e-6);
        should(site.reactive.reactiveEnergy).be.approximately(sums.reactive, 1e-6);
        should(site.reactive.apparentEnergy).be.approximately(sums.apparent, 1e-6);
      } finally {
        await stream.close();
      }
    }
    should(compared).be.above(100);
  });

  it('refuses a power factor of 0, 1.7, "abc", NaN, -0.9 or 95 naming the meter and the value; the window keeps the last good one', async () => {
    const T = DAYS[2];
    const { stream } = await newStream({ maxGapMinutes: '60' });
    try {
      await stream.handle({ gateway: 'G', topic: 'e1.pf', payload: 0.8, ts: T }, FAR);
      await stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 100, ts: T }, FAR);
      for (const [bad, said] of [
        [0, '0'],
        [1.7, '1.7'],
        ['abc', '"abc"'],
        [NaN, 'NaN'],
        [-0.9, '-0.9'],
        [95, '95'],
      ] as const) {
        const err = await stream.handle({ gateway: 'G', topic: 'e1.pf', payload: bad, ts: T + 10 * MIN }, FAR).then(
          () => null,
          (e: Error) => e,
        );
        should(err?.message).equal(
          `power factor meter "G/e1.pf" read ${said}: a power factor is a number from 0.01 to 1 (not a percentage, not ` +
            'signed), so the reading is not counted; the last good one holds until the next, and a window it does not cover is not complete',
        );
      }
      // an easy-sensors message of the gateway's pf subsensor that failed its read
      const err = await stream
        .handle(
          {
            gateway: 'G',
            topic: 'e1.pf',
            payload: { id: 'e1.pf', value: 0, ts: T + 10 * MIN, decoded: { kind: 'modbus', quantity: 'power_factor' } },
          },
          FAR,
        )
        .then(
          () => null,
          (e: Error) => e,
        );
      should(err?.message).startWith('power factor meter "G/e1.pf" read 0: ');
      // 8 kW for the half hour, pf 0.8 all along: 10 kVA
      await stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 104, ts: T + 30 * MIN }, FAR);
      const out = await stream.handle({ gateway: 'G', topic: 'e1.pf', payload: 0.8, ts: T + 30 * MIN }, FAR);
      const [w] = out!.records!.closed.filter((r) => r.scope === 'site');
      should(w).match({ fromMs: T, unit: 'kVA', energy: 5, kw: 10, complete: true });
      // 4 kWh at pf 0.8: 3 kvarh (4 × 0.75), 5 kVAh, as the reactive charge counts them
      should((out!.payload.site as any).bill.reactive).match({ activeEnergy: 4, reactiveEnergy: 3, apparentEnergy: 5, powerFactor: 0.8 });
    } finally {
      await stream.close();
    }
  });

  it('one source of kVA a site: kvarh counters, a second power-factor meter or one beside the setting are refused, naming them and the source', async () => {
    const T = DAYS[2];
    const kwh = { gateway: 'G', topic: 'e1.kwh', payload: 100, ts: T };
    const kvarh = { gateway: 'G', topic: 'e1.kvarh', payload: 1, ts: T };
    const pf = (topic: string) => ({ gateway: 'G', topic, payload: 0.7, ts: T });
    const setting = 'this easy-peak bills its kWh as kVA with the power factor of its setting (0.9): ';
    for (const [config, before, refused, words] of [
      [{ powerFactor: '0.9' }, [kwh], kvarh, `"G/e1.kvarh" counts kvarh, but ${setting}`],
      [{ powerFactor: '0.9' }, [kwh], pf('e1.pf'), `"G/e1.pf" reads a power factor, but ${setting}`],
      [
        {},
        [pf('e1.pf')],
        pf('e2.pf'),
        '"G/e2.pf" reads a power factor, but this easy-peak bills its kWh as kVA with the power factor of "G/e1.pf": ',
      ],
      [{}, [pf('e1.pf')], kvarh, '"G/e1.kvarh" counts kvarh, but this easy-peak bills its kWh as kVA with the power factor of "G/e1.pf": '],
      [
        {},
        [kvarh],
        pf('e1.pf'),
        '"G/e1.pf" reads a power factor, but this easy-peak pairs its kWh with kvarh counters ("G/e1.kvarh") into kVA: ',
      ],
    ] as const) {
      const { stream } = await newStream(config);
      for (const msg of before) await stream.handle({ ...msg }, FAR);
      const refusing = stream.handle({ ...refused }, FAR);
      await stream.close(); // ends the burst of refusals now: its error is the first refused reading's
      const message = (await refusal(refusing)).message;
      should(message).equal(
        `${words}one source of kVA a site, so the reading is not counted. ` +
          'Clear the power factor setting (or send the other meters to an easy-peak of their own) to count it',
      );
    }
  });

  it('keeps the power-factor meter across a restart mid-window, and drops it alone when its stored line is tampered with', async () => {
    // a half hour of this machine's recent past (what is stored is checked against the clock), in the month of the
    // half hour after it (the bill's reactive figures are of the month under way), whatever the hour the test runs at
    const month = (at: number) => new Date(at).toLocaleDateString('en-GB', { timeZone: ZONE, month: 'numeric' });
    let T = demandWindowOf(Date.now() - 3 * 3_600_000, ZONE, 30).from;
    if (month(T) !== month(T + 60 * MIN)) T -= 2 * 3_600_000;
    const NOW = T + 40 * MIN;
    const saved: any[] = [];
    const first = await newStream({ maxGapMinutes: '60' }, undefined, saved);
    // 8 kW all along; pf 0.8 for 10 minutes, then 0.5
    await first.stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 100, ts: T }, NOW);
    await first.stream.handle({ gateway: 'G', topic: 'e1.pf', payload: 0.8, ts: T }, NOW);
    await first.stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 100 + 8 / 6, ts: T + 10 * MIN }, NOW);
    await first.stream.handle({ gateway: 'G', topic: 'e1.pf', payload: 0.5, ts: T + 10 * MIN }, NOW);
    await first.stream.close();
    const stored = saved[saved.length - 1];
    should(stored.powerFactor).be.a.String();
    const again = await newStream({ maxGapMinutes: '60' }, stored);
    try {
      should(again.warnings).eql([]);
      await again.stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 104, ts: T + 30 * MIN }, NOW);
      const out = await again.stream.handle({ gateway: 'G', topic: 'e1.pf', payload: 0.5, ts: T + 30 * MIN }, NOW);
      // 1/pf over the half hour (10 ÷ 0.8 + 20 ÷ 0.5) / 30 = 1.75: 4 kWh × 1.75 = 7 kVAh, 14 kVA, pf 4/7
      const [w] = out!.records!.closed.filter((r) => r.scope === 'site');
      should(w).match({ fromMs: T, unit: 'kVA', complete: true });
      should((out!.payload.site as any).bill.reactive.powerFactor).be.approximately(4 / 7, 1e-9);
      should(w.kw).be.approximately(14, 1e-6);
    } finally {
      await again.stream.close();
    }
    for (const tamper of [
      (line: any[]) => [1.5, line[1]], // a power factor above 1
      (line: any[]) => [0, line[1]],
      (line: any[]) => ['0.5', line[1]],
      (line: any[]) => {
        const m = JSON.parse(line[1]);
        m[6] = 0.1; // 0.1 h ÷ pf in a window covered 10 minutes: a power factor above 1
        return [line[0], JSON.stringify(m)];
      },
      (line: any[]) => [line[0]],
    ]) {
      const bad = { ...stored, powerFactor: JSON.stringify(tamper(JSON.parse(stored.powerFactor))) };
      const t = await newStream({ maxGapMinutes: '60' }, bad);
      try {
        should(t.warnings).eql(['stored peaks: dropped the power factor meter (failed its checks)']);
        // the kWh meter stays; the site is kW again until the meter reads
        const out = await t.stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 104, ts: T + 30 * MIN }, NOW);
        should((out!.payload.site as Record<string, unknown>).unit).equal('kW');
      } finally {
        await t.stream.close();
      }
    }
    // the pending windows' power-factor shares are checked too: more pf·h than hours
    const site = JSON.parse(stored.site);
    for (const [shares, fails] of [
      [[0.3, 0.3], false],
      [[0.9, 0.3], false], // pf 1/3
      [[0.2, 0.3], true], // pf 1.5
      [[0.3, 0.9], true], // more hours than the half hour
      [[-0.1, 0.3], true],
    ] as const) {
      const line = [...site.slice(0, 2), [T, 1, 1, 1], 0, ...site.slice(4, 8), [0], shares];
      const t = await newStream({ maxGapMinutes: '60' }, { ...stored, site: JSON.stringify(line) });
      try {
        should(t.warnings.some((w) => w.includes("the site's peaks (failed their checks)"))).equal(fails, JSON.stringify(shares));
      } finally {
        await t.stream.close();
      }
    }
  });

  it('drops a stored power-factor meter beside stored kvarh counters with one warning naming it: the kvarh are the source', async () => {
    const T = demandWindowOf(Date.now() - 3 * 3_600_000, ZONE, 30).from;
    const NOW = T + 40 * MIN;
    const [withPf, withKvarh]: any[][] = [[], []];
    const a = await newStream({ maxGapMinutes: '60' }, undefined, withPf);
    await a.stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 100, ts: T }, NOW);
    await a.stream.handle({ gateway: 'G', topic: 'e1.pf', payload: 0.8, ts: T }, NOW);
    await a.stream.close();
    const b = await newStream({ maxGapMinutes: '60' }, undefined, withKvarh);
    await b.stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 100, ts: T }, NOW);
    await b.stream.handle({ gateway: 'G', topic: 'e1.kvarh', payload: 50, ts: T }, NOW);
    await b.stream.close();
    // no stream stores both (the second source is refused): a store edited, or written by another build
    const both = { ...withPf[withPf.length - 1], meters: withKvarh[withKvarh.length - 1].meters };
    const t = await newStream({ maxGapMinutes: '60' }, both);
    try {
      should(t.warnings).eql([
        'stored peaks: dropped the power factor meter "G/e1.pf": this easy-peak pairs its kWh with kvarh counters ("G/e1.kvarh") into kVA, one source of kVA a site',
      ]);
      // the kvarh counter is the site's source: 4 kWh and 3 kvarh in 10 minutes are 5 kVAh, 30 kVA
      await t.stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 104, ts: T + 10 * MIN }, NOW);
      const out = await t.stream.handle({ gateway: 'G', topic: 'e1.kvarh', payload: 53, ts: T + 10 * MIN }, NOW);
      should((out!.payload.site as any).unit).equal('kVA');
      should((out!.payload.site as any).window.energy).be.approximately(5, 1e-9);
    } finally {
      await t.stream.close();
    }
  });
});
