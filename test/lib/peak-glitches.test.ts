// easy-peak's stream against generated meter histories with glitches, resets and swaps
// (test/lib/glitch-history.ts: the generator knows which reading is which): what the
// stream reports is the truth, its meter's closed windows are demandWindows' of the same
// readings (the judge is the engine's, shared), and its latest power, what the guard
// projects with, never comes from a suspect.
import should from 'should';
import { makeHistory } from './glitch-history';
import { PeakStream } from '../../nodes/lib/runtime/peak/peak-stream';
import { peakSettings } from '../../nodes/lib/runtime/peak/peak-settings';
import { demandWindows } from '../../nodes/lib/engine/peak/demand';

const ZONE = 'Europe/Brussels';
const FAR = Date.parse('2100-01-01T00:00:00Z');
const HOUR = 3_600_000;

describe('easy-peak glitches, resets and swaps (generated histories)', function () {
  this.timeout(60_000);
  it('reports the glitches and resets the history holds, closes the windows demandWindows makes, and never takes a power from a suspect', async () => {
    for (let seed = 1; seed <= 60; seed++) {
      const maxPowerKw = seed % 3 === 0 ? 10_000 : 50;
      const h = makeHistory({ seed, readings: 150, maxPowerKw, maxStepMs: seed % 2 ? 60_000 : 20 * 60_000 });
      const stream = new PeakStream({
        timezone: ZONE,
        settings: peakSettings({ minutes: '15', maxPowerKw: String(maxPowerKw) }),
        store: { load: async () => undefined, save: async () => undefined },
        warn: () => undefined,
        onGuard: () => undefined,
      });
      await stream.restore();
      try {
        const glitches: unknown[] = [];
        const resets: unknown[] = [];
        const closed: Array<Record<string, any>> = [];
        // the power of each interval the history counts, by the reading it ends at
        const counted = new Map(h.counted.map(([from, v0, to, v1]) => [to, (v1 - v0) / ((to - from) / HOUR)]));
        let baseWaiting = false; // a reset's or swap's new base came, and no reading has gone on from it yet
        for (const row of h.rows) {
          const out = (await stream.handle({ payload: row.value, ts: row.ts }, FAR))!;
          const p = out.payload as Record<string, any>;
          for (const g of p.glitches ?? []) glitches.push({ ts: g.ts, value: g.value, kind: g.kind });
          for (const r of p.resets ?? []) resets.push({ from: r.fromMs, to: r.toMs, kind: r.kind });
          for (const w of out.records?.closed ?? []) if (w.scope === 'meter') closed.push(w);
          if (p.resets) baseWaiting = false;
          if (row.newBase) baseWaiting = true;
          const at = `seed ${seed}: the reading at ${row.ts}`;
          // a glitch is always held; a true reading only while a new base waits for the meter to go on from it
          if (row.truth !== 'true') should(p.held).equal(row.truth, at);
          else if (!baseWaiting) should(p.held).be.undefined();
          if (p.held) continue;
          // decided: the power shown (the guard's) is the true interval's into this reading, never a suspect's
          const shown = p.meter.window.powerKw;
          const truth = counted.get(row.ts);
          if (truth === undefined) should(shown).equal(null, at);
          else should(shown).be.approximately(truth, Math.max(1e-6, Math.abs(truth) * 1e-9), at);
        }
        should(glitches).eql(h.glitches, `seed ${seed}: glitches`);
        should(resets).eql(
          h.resets.map((r) => ({ from: r.from, to: r.to, kind: r.kind })),
          `seed ${seed}: resets`,
        );
        const last = h.rows[h.rows.length - 1].ts;
        const want = demandWindows(
          h.rows.map((r): [number, number] => [r.ts, r.value]),
          { timezone: ZONE, minutes: 15, maxPowerKw, maxGapMinutes: 5 }, // the node's default gap: its stale after
        ).filter((w) => w.to <= last);
        should(closed.map((w) => w.fromMs)).eql(
          want.map((w) => w.from),
          `seed ${seed}: windows`,
        );
        for (const [i, w] of closed.entries()) {
          should(w.complete).equal(want[i].complete, `seed ${seed}: window ${i} complete`);
          should(w.energy).be.approximately(want[i].energy, Math.max(1e-6, want[i].energy * 1e-9), `seed ${seed}: window ${i}`);
        }
      } finally {
        await stream.close();
      }
    }
  });
});
