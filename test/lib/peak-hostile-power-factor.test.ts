// easy-peak's stored power factor tampered with upward (docs/semantics.md rule 66, "Across
// restarts"): a power-factor meter's ∫(1/pf) dt, and a pending window's share of it, were
// checked to be at least the hours covered (pf ≤ 1) but never at most what the lowest power
// factor taken (0.01) allows; 1e300 was read back, the window's power factor underflowed to
// nothing and its kvarh overflowed, and the window failed inside the library at Catch.
import should from 'should';
import { openPeakStream } from './peak-stream-support';
import { demandWindowOf } from '../../nodes/lib/engine/peak/demand-window';

const ZONE = 'Europe/Brussels';
const MIN = 60_000;

const newStream = (stored?: unknown, saved: unknown[] = []) =>
  openPeakStream(ZONE, { minutes: '30', staleMinutes: '60', maxGapMinutes: '60' }, stored, saved);

describe('easy-peak stored power factor tampered upward', () => {
  it('a ∫(1/pf) dt beyond 100 times the hours covered (pf below 0.01) is dropped in words; the next window is billed, finite', async () => {
    // a half hour of this machine's recent past: what is stored is checked against the clock
    const T = demandWindowOf(Date.now() - 3 * 3_600_000, ZONE, 30).from;
    const NOW = T + 40 * MIN;
    const saved: any[] = [];
    const first = await newStream(undefined, saved);
    // 8 kW all along; pf 0.8 for 10 minutes, then 0.5
    await first.stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 100, ts: T }, NOW);
    await first.stream.handle({ gateway: 'G', topic: 'e1.pf', payload: 0.8, ts: T }, NOW);
    await first.stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 100 + 8 / 6, ts: T + 10 * MIN }, NOW);
    await first.stream.handle({ gateway: 'G', topic: 'e1.pf', payload: 0.5, ts: T + 10 * MIN }, NOW);
    await first.stream.close();
    const stored = saved[saved.length - 1];
    const [pf, meterLine] = JSON.parse(stored.powerFactor);
    const site = JSON.parse(stored.site);
    const forged: Array<[string, Record<string, unknown>, string]> = [];
    for (const huge of [1e300, (10 / 60) * 100 * 1.01]) {
      const m = JSON.parse(meterLine);
      m[6] = huge; // the open window's ∫(1/pf) dt over the 10 minutes covered
      forged.push([`meter ${huge}`, { powerFactor: JSON.stringify([pf, JSON.stringify(m)]) }, 'dropped the power factor meter']);
      // a window waiting for the meters, its share 0.3 h covered
      const line = [...site.slice(0, 2), [T, 1, 1, 1], 0, ...site.slice(4, 8), [0], [huge * 1.8, 0.3]];
      forged.push([`share ${huge}`, { site: JSON.stringify(line) }, "the site's peaks (failed their checks)"]);
    }
    for (const [what, edit, words] of forged) {
      const t = await newStream({ ...stored, ...edit });
      try {
        should(t.warnings.some((w) => w.includes(words))).be.true(`${what}: ${JSON.stringify(t.warnings)}`);
        await t.stream.handle({ gateway: 'G', topic: 'e1.kwh', payload: 104, ts: T + 30 * MIN }, NOW);
        const out = await t.stream.handle({ gateway: 'G', topic: 'e1.pf', payload: 0.5, ts: T + 30 * MIN }, NOW);
        const reactive = (out!.payload.site as any).bill.reactive;
        for (const x of [reactive.activeEnergy, reactive.reactiveEnergy, reactive.apparentEnergy]) should(Number.isFinite(x)).be.true(what);
      } finally {
        await t.stream.close();
      }
    }
    // at the bound itself (pf 0.01 all along) both are read back
    const m = JSON.parse(meterLine);
    m[6] = (10 / 60) * 100;
    const atBound = await newStream({ ...stored, powerFactor: JSON.stringify([pf, JSON.stringify(m)]) });
    should(atBound.warnings).eql([]);
    await atBound.stream.close();
  });
});
