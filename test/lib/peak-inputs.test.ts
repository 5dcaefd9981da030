// easy-peak's input checks (docs/semantics.md, the peak node): what a reading counts (kWh or
// kVAh, said by the message or the meter's topic) and one unit a site: a kVAh counter beside
// kWh meters is refused with an error naming them, never summed into a "site kW".
import should from 'should';
import { openPeakStream, refusal } from './peak-stream-support';
import { readingUnit } from '../../nodes/lib/runtime/common/meter-reading';
import { apparentDemandWindows } from '../../nodes/lib/engine/peak/apparent';
import { demandWindowOf } from '../../nodes/lib/engine/peak/demand-window';

const ZONE = 'Europe/Brussels';
const FAR = Date.parse('2100-01-01T00:00:00Z');
const T0 = Date.parse('2026-03-04T09:00:00Z');
const MIN = 60_000;

const newStream = (config: Record<string, unknown> = {}, stored?: unknown, saved: unknown[] = []) =>
  openPeakStream(ZONE, { minutes: '15', ...config }, stored, saved);

describe('easy-peak input checks', () => {
  it("reads a reading's unit from the message, else from its meter's topic; another stated unit is no meter, a bad msg.unit an error", () => {
    should(readingUnit({ payload: 5 }, 'e1.kwh', 'easy-peak')).equal('kWh');
    should(readingUnit({ payload: 5 }, null, 'easy-peak')).equal('kWh');
    should(readingUnit({ payload: 5 }, 'DEMO/e3.KVAH', 'easy-peak')).equal('kVAh');
    should(readingUnit({ payload: 5 }, 'e1.kvarh', 'easy-peak')).equal('kvarh');
    should(readingUnit({ payload: 5, unit: 'kvarh' }, 'incomer-q', 'easy-peak')).equal('kvarh');
    should(readingUnit({ payload: 5, unit: 'kVAh' }, 'incomer', 'easy-peak')).equal('kVAh');
    should(readingUnit({ payload: 5, unit: ' kwh ' }, 'e1.kvah', 'easy-peak')).equal('kWh'); // what the message says wins
    should(readingUnit({ payload: { id: 'e1.kvah', value: 1, ts: T0, unit: 'kVAh' } }, 'e1.kvah', 'easy-peak')).equal('kVAh');
    should(readingUnit({ payload: { id: 'x', value: 1, ts: T0, unit: 'kVAh' } }, 'x', 'easy-peak')).equal('kVAh');
    should(readingUnit({ payload: { id: 'e1.kvah', value: 1, ts: T0 } }, 'e1.kvah', 'easy-peak')).equal('kVAh');
    should(readingUnit({ payload: { id: 'e1.v3p@1', value: 230, ts: T0, unit: 'V' } }, 'e1.v3p@1', 'easy-peak')).equal(null);
    should(
      readingUnit(
        { payload: { id: 'e1.pf', value: 0.9, ts: T0, decoded: { kind: 'modbus', quantity: 'power_factor' } } },
        'e1.pf',
        'easy-peak',
      ),
    ).equal(null);
    for (const bad of ['MWh', 7, {}, 'kW'])
      should(() => readingUnit({ payload: 5, unit: bad }, 'e1', 'easy-peak')).throw(
        /^easy-peak counts kWh, kVAh or kvarh: msg\.unit must be "kWh", "kVAh" or "kvarh", got /,
      );
  });

  it('sums one unit a site: a kVAh counter beside kWh meters is refused with an error naming them, and counts nothing', async () => {
    const { stream } = await newStream();
    try {
      for (const [i, v] of [100, 100.5].entries()) {
        await stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: v, ts: T0 + i * MIN }, FAR);
        await stream.handle({ gateway: 'G', topic: 'e2.kwh', payload: v * 2, ts: T0 + i * MIN }, FAR);
      }
      const err = await refusal(stream.handle({ gateway: 'G', topic: 'e9.kvah', payload: 40, ts: T0 + MIN }, FAR));
      should(err.message).equal(
        '"G/e9.kvah" counts kVAh, but this easy-peak sums kWh ("G/e1.kwh", "G/e2.kwh"): kW and kVA do not add up (a site sums ' +
          'kWh, kVAh, or kWh with kvarh into kVA), so the reading is not counted. Send each unit to an easy-peak of its own (a switch on msg.topic)',
      );
      // the same with msg.unit on a topic that says nothing
      const err2 = await refusal(stream.handle({ topic: 'incomer', unit: 'kVAh', payload: 40, ts: T0 + MIN }, FAR));
      should(err2.message).match(/^"incomer" counts kVAh, but this easy-peak sums kWh/);
      should(stream.meterOf({ gateway: 'G', topic: 'e9.kvah' })).be.undefined();
      const out = (await stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 101, ts: T0 + 2 * MIN }, FAR))!;
      const site = out.payload.site as Record<string, any>;
      should(site).match({ meters: 2, unit: 'kW' });
      // 0.5 + 1.0 kWh in the first minute, 0.5 in the second of e1: nothing of the kVAh counter
      should(site.window.energy).be.approximately(2, 1e-9);
      // a meter that changes its unit is refused too
      await should(stream.handle({ gateway: 'G', topic: 'e1.kwh', unit: 'kVAh', payload: 102, ts: T0 + 3 * MIN }, FAR)).be.rejectedWith(
        'meter "G/e1.kwh" counts kWh, this reading kVAh: not counted (msg.reset starts from zero)',
      );
    } finally {
      await stream.close();
    }
  });

  it('a site of kVAh counters is a kVA site; the first meter sets the unit, and more than three are named by count', async () => {
    const { stream } = await newStream();
    try {
      for (let m = 0; m < 5; m++) await stream.handle({ topic: `e${m}.kvah`, payload: 10, ts: T0 }, FAR);
      const out = (await stream.handle({ topic: 'e0.kvah', payload: 10.1, ts: T0 + MIN }, FAR))!;
      should(out.payload.site).match({ meters: 5, unit: 'kVA' });
      should((out.payload.meter as Record<string, unknown>).unit).equal('kVA');
      const err = await refusal(stream.handle({ topic: 'e9.kwh', payload: 1, ts: T0 + MIN }, FAR));
      should(err.message).match(/^"e9\.kwh" counts kWh, but this easy-peak sums kVAh \("e0\.kvah", "e1\.kvah", "e2\.kvah" and 2 more\)/);
    } finally {
      await stream.close();
    }
  });

  it("keeps a meter's unit across a restart; a line without one takes its topic's, a tampered one is dropped", async () => {
    const saved: unknown[] = [];
    const { stream } = await newStream({}, undefined, saved);
    const now = Date.now(); // stored instants are checked against the clock: a reading of now, stamped on time
    await stream.handle({ topic: 'incomer', unit: 'kVAh', payload: 10, ts: now }, now);
    await stream.flush();
    await stream.close();
    const stored = JSON.parse(JSON.stringify(saved[saved.length - 1])) as { meters: string[] };
    should(JSON.parse(stored.meters[0])[12]).equal('kVAh');
    const again = await newStream({}, stored);
    should(again.warnings).eql([]);
    should(again.stream.meterOf({ gateway: null, topic: 'incomer' })!.unit).equal('kVAh');
    await again.stream.close();
    // a line written before units were stored (12 fields): its topic says
    const old = JSON.parse(stored.meters[0]).slice(0, 12);
    for (const [topic, unit] of [
      ['incomer', 'kWh'],
      ['e1.kvah', 'kVAh'],
    ]) {
      const line = JSON.stringify([old[0], topic, ...old.slice(2)]);
      const read = await newStream({}, { ...stored, meters: [line] });
      should(read.warnings).eql([]);
      should(read.stream.meterOf({ gateway: null, topic })!.unit).equal(unit);
      await read.stream.close();
    }
    const tampered = await newStream({}, { ...stored, meters: [JSON.stringify([...old, 'MWh'])] });
    should(tampered.stream.meterOf({ gateway: null, topic: 'incomer' })).be.undefined();
    should(tampered.warnings).eql(['stored peaks: dropped meter line 1 (failed its checks)']);
    await tampered.stream.close();
  });

  it("keeps the open window's gap across a restart (not complete after it either); a tampered gap drops the line", async () => {
    const saved: unknown[] = [];
    const { stream } = await newStream({ maxGapMinutes: '5' }, undefined, saved);
    const now = Date.now();
    await stream.handle({ topic: 'e1', payload: 10, ts: now - 11 * MIN }, now);
    const out = (await stream.handle({ topic: 'e1', payload: 11, ts: now }, now))!;
    should(out.payload.gap).match({ fromMs: now - 11 * MIN, toMs: now, minutes: 11 });
    await stream.flush();
    await stream.close();
    const stored = JSON.parse(JSON.stringify(saved[saved.length - 1])) as { meters: string[] };
    const line = JSON.parse(stored.meters[0]);
    should(line[13]).eql([now - 11 * MIN, now]);
    const again = await newStream({ maxGapMinutes: '5' }, stored);
    should(again.stream.meterOf({ gateway: null, topic: 'e1' })!.window!.gap).eql({ from: now - 11 * MIN, to: now });
    const next = (await again.stream.handle({ topic: 'e1', payload: 11.01, ts: now + 1000 }, now + 1000))!;
    should((next.payload.meter as any).window.complete).be.false();
    await again.stream.close();
    for (const bad of [[now, now - MIN], [now - 11 * MIN, now + MIN], 'gap', [1, 2, 3]]) {
      const tampered = await newStream({ maxGapMinutes: '5' }, { ...stored, meters: [JSON.stringify([...line.slice(0, 13), bad])] });
      should(tampered.stream.meterOf({ gateway: null, topic: 'e1' })).be.undefined();
      await tampered.stream.close();
    }
  });

  it('a kWh and a kvarh counter make a kVA site: each window √(kWh² + kvarh²), as apparentDemandWindows of the same readings', async () => {
    const { stream } = await newStream();
    try {
      const active: Array<[number, number]> = [];
      const reactive: Array<[number, number]> = [];
      const site: Array<Record<string, any>> = [];
      let out: Awaited<ReturnType<typeof stream.handle>> = null;
      // 40 minutes a reading a minute: 60 kW and 0-45 kvar, changing every 10 minutes
      for (let k = 0; k <= 40; k++) {
        const ts = T0 + k * MIN;
        active.push([ts, 1000 + k]);
        reactive.push([ts, 200 + (0.75 * Math.min(k, 10) + 0.25 * Math.max(0, Math.min(k, 30) - 10) + 0.5 * Math.max(0, k - 30))]);
        await stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: active[k][1], ts }, FAR);
        out = await stream.handle({ gateway: 'G', topic: 'e1.kvarh', payload: reactive[k][1], ts }, FAR);
        for (const w of out!.records?.closed ?? []) if (w.scope === 'site') site.push(w);
      }
      should(out!.payload.site).match({ meters: 2, unit: 'kVA' });
      should((out!.payload.meter as Record<string, unknown>).unit).equal('kvar');
      const want = apparentDemandWindows({ active, reactive }, { timezone: ZONE, minutes: 15 }).filter((w) => w.to <= T0 + 40 * MIN);
      should(site.map((w) => w.fromMs)).eql(want.map((w) => w.from));
      site.forEach((w, i) => {
        should(w.kw).be.approximately(want[i].kw, 1e-6);
        should(w.unit).equal('kVA');
      });
      // the first quarter hour: 15 kWh and 0.75·10 + 0.25·5 = 8.75 kvarh: 17.37 kVAh, 69.46 kVA
      should(site[0].kw).be.approximately(4 * Math.hypot(15, 8.75), 1e-6);
      // the projection of the window under way is the kVA of the kW and kvar projections
      const p = out!.payload as Record<string, any>;
      should(p.site.window.projectedKw).be.approximately(Math.hypot(60, 30), 1e-6);
      // a kVAh counter cannot join a kWh + kvarh site, nor the other way round
      const err = await refusal(stream.handle({ gateway: 'G', topic: 'e2.kvah', payload: 1, ts: T0 + 40 * MIN }, FAR));
      should(err.message).match(/^"G\/e2\.kvah" counts kVAh, but this easy-peak sums kWh and kvarh \("G\/e1\.kwh", "G\/e1\.kvarh"\)/);
    } finally {
      await stream.close();
    }
  });

  it("keeps a pending window's kvarh across a restart: the kVA window closes as without the restart", async () => {
    const saved: unknown[] = [];
    const first = await newStream({}, undefined, saved);
    const t0 = demandWindowOf(Date.now() - 40 * MIN, ZONE, 15).from;
    const at = t0 + 16 * MIN;
    await first.stream.handle({ topic: 'e1.kwh', payload: 100, ts: t0 }, at);
    await first.stream.handle({ topic: 'e1.kvarh', payload: 10, ts: t0 }, at);
    await first.stream.handle({ topic: 'e1.kvarh', payload: 14, ts: at }, at); // the kvarh meter closed the first window
    await first.stream.flush();
    await first.stream.close();
    const stored = JSON.parse(JSON.stringify(saved[saved.length - 1])) as { site: string };
    should(JSON.parse(stored.site)[8]).have.length(1);
    const again = await newStream({}, stored);
    should(again.warnings).eql([]);
    const out = (await again.stream.handle({ topic: 'e1.kwh', payload: 108, ts: at }, at))!;
    const site = out.records!.closed.filter((w) => w.scope === 'site');
    // 7.5 kWh and 3.75 kvarh of the 16 minutes' in its 15: 8.385 kVAh, 33.54 kVA
    should(site.map((w) => w.fromMs)).eql([t0]);
    should(site[0].kw).be.approximately(4 * Math.hypot(7.5, 3.75), 1e-9);
    should(site[0].unit).equal('kVA');
    await again.stream.close();
  });
});
