// The meter's judge (semantics rule 10, glitches are not resets): the field cases
// worked by hand, the rule's steps one by one, then thousands of generated histories whose
// generator knows which reading is a glitch, a reset or a swap (glitch-history.ts).
import should from 'should';
import fc from 'fast-check';
import {
  GLITCH_RUN_MAX,
  GlitchSink,
  GlitchState,
  isPlausible,
  judgeReading,
  newGlitchState,
  storedHeld,
} from '../../nodes/lib/engine/cost/meter-glitches';
import { DEFAULT_MAX_POWER_KW } from '../../nodes/lib/engine/common/limits';
import { makeHistory } from './glitch-history';
import { FC } from './engine-fixtures';

type Told = Array<
  ['counted', number, number, number, number] | ['reset', number, number, number, number, string] | ['glitch', number, number, string]
>;

function recorder(told: Told): GlitchSink {
  return {
    counted: (a, av, b, bv) => told.push(['counted', a, av, b, bv]),
    reset: (a, av, b, bv, kind) => told.push(['reset', a, av, b, bv, kind]),
    glitch: (t, v, kind) => told.push(['glitch', t, v, kind]),
  };
}

/** Judges [seconds, kWh] readings; what was told, the energy counted and the state left. */
function judge(rows: Array<[number, number]>, maxPowerKw = DEFAULT_MAX_POWER_KW, state: GlitchState = newGlitchState()) {
  const told: Told = [];
  const sink = recorder(told);
  for (const [s, v] of rows) judgeReading(state, s * 1000, v, maxPowerKw, sink);
  let energy = 0;
  for (const t of told) if (t[0] === 'counted') energy += t[4] - t[2];
  return { told, energy, state };
}

/** Readings every 10 s of a meter at 12,345 kWh using 1.5 kW, with `odd` in place of the fourth. */
const fieldMeter = (odd: number) =>
  Array.from({ length: 12 }, (_, i): [number, number] => [i * 10, i === 3 ? odd : 12_345 + (1.5 * i * 10) / 3600]);

describe('meter glitches (semantics rule 10)', () => {
  describe('the field cases', () => {
    it('one reading of 0 among readings every 10 s is a glitch: ~0.046 kWh, not 12,345', () => {
      const { told, energy } = judge(fieldMeter(0));
      should(energy).be.approximately((1.5 * 110) / 3600, 1e-9);
      should(told.filter((t) => t[0] === 'glitch')).eql([['glitch', 30_000, 0, 'low']]);
      should(told.filter((t) => t[0] === 'reset')).eql([]);
    });

    it('ten times the register is a glitch (not 111,117 kWh); so are a negative and garbage', () => {
      for (const odd of [123_450, -5, -12_345, 4.2e9, 7]) {
        const { told, energy } = judge(fieldMeter(odd));
        should(energy).be.approximately((1.5 * 110) / 3600, 1e-9);
        should(told.filter((t) => t[0] === 'glitch')).eql([['glitch', 30_000, odd, odd < 12_345 ? 'low' : 'high']]);
      }
    });

    it('a swapped meter goes on from a low base: the drop is a reset, what the new meter counts counts', () => {
      const rows: Array<[number, number]> = [
        [0, 12_345],
        [10, 12_345.01],
        [20, 3], // the new meter
        [30, 3.02],
        [40, 3.05],
      ];
      const { told, energy } = judge(rows);
      should(told).eql([
        ['counted', 0, 12_345, 10_000, 12_345.01],
        ['reset', 10_000, 12_345.01, 20_000, 3, 'reset'],
        ['counted', 20_000, 3, 30_000, 3.02],
        ['counted', 30_000, 3.02, 40_000, 3.05],
      ]);
      should(energy).be.approximately(0.01 + 0.05, 1e-9);
    });

    it('a swap to a meter with a higher register counts what the new meter counts', () => {
      const { told } = judge([
        [0, 100],
        [10, 900_000],
        [20, 900_000.1],
      ]);
      should(told).eql([
        ['reset', 0, 100, 10_000, 900_000, 'swap'],
        ['counted', 10_000, 900_000, 20_000, 900_000.1],
      ]);
    });
  });

  describe('the steps', () => {
    it('normal readings are counted at once (nothing held), flat ones too', () => {
      const { told, state } = judge([
        [0, 5],
        [10, 5],
        [20, 6],
      ]);
      should(told).eql([
        ['counted', 0, 5, 10_000, 5],
        ['counted', 10_000, 5, 20_000, 6],
      ]);
      should(state.held).eql([]);
    });

    it('a suspect is held until a reading decides; a run of glitches is dropped, nothing counted twice', () => {
      const { told, state } = judge([
        [0, 100],
        [10, 0],
        [20, 0],
      ]);
      should(told).eql([]);
      should(state).eql({
        lastTs: 0,
        lastValue: 100,
        held: [
          { ts: 10_000, value: 0, kind: 'low' },
          { ts: 20_000, value: 0, kind: 'low' },
        ],
      });
      const after = judge([[30, 100.01]], DEFAULT_MAX_POWER_KW, state);
      should(after.told).eql([
        ['glitch', 10_000, 0, 'low'],
        ['glitch', 20_000, 0, 'low'],
        ['counted', 0, 100, 30_000, 100.01],
      ]);
    });

    it(`a run longer than ${GLITCH_RUN_MAX} is a reset at its first reading, the rest judged from there`, () => {
      const { told } = judge([
        [0, 100],
        [10, 0],
        [20, 0],
        [30, 0],
        [40, 0],
      ]);
      should(told).eql([
        ['reset', 0, 100, 10_000, 0, 'reset'],
        ['counted', 10_000, 0, 20_000, 0],
        ['counted', 20_000, 0, 30_000, 0],
        ['counted', 30_000, 0, 40_000, 0],
      ]);
    });

    it('a run that goes on from its newest reading is a reset at its first; a glitch inside is judged from there', () => {
      // the new meter at 50, a 0 read, then the new meter goes on: 50.01 rises from no held
      // reading the power allows (18 MW from the 0), so it is held too; 50.02 goes on from it
      const held = judge([
        [0, 12_345],
        [10, 50],
        [20, 0],
        [30, 50.01],
      ]);
      should(held.told).eql([]);
      should(held.state.held.map((h) => h.value)).eql([50, 0, 50.01]);
      should(judge([[40, 50.02]], DEFAULT_MAX_POWER_KW, held.state).told).eql([
        ['reset', 0, 12_345, 10_000, 50, 'reset'],
        ['glitch', 20_000, 0, 'low'],
        ['counted', 10_000, 50, 30_000, 50.01],
        ['counted', 30_000, 50.01, 40_000, 50.02],
      ]);
    });

    it('a rise above maxPowerKw is a jump; Infinity counts any rise', () => {
      should(
        judge(
          [
            [0, 0],
            [3600, 10],
          ],
          5,
        ).told,
      ).eql([]); // 10 kW > 5: held
      should(
        judge(
          [
            [0, 0],
            [3600, 10],
          ],
          Infinity,
        ).told,
      ).eql([['counted', 0, 0, 3_600_000, 10]]);
      should(
        judge(
          [
            [0, 0],
            [3600, 5],
          ],
          5,
        ).told,
      ).eql([['counted', 0, 0, 3_600_000, 5]]); // at the limit: usage
      should(isPlausible(0, 10, 1000, 9.999, Infinity)).be.false();
    });

    it('the first reading is taken as it is, whatever its value', () => {
      const { told, state } = judge([[0, -7]]);
      should(told).eql([]);
      should(state).eql({ lastTs: 0, lastValue: -7, held: [] });
    });
  });

  describe('held readings as stored', () => {
    it('replayed from the same last reading, they are held again', () => {
      const { state } = judge([
        [0, 100],
        [10, 0],
        [20, -3],
      ]);
      const rows = storedHeld(
        state.held.map((h) => [h.ts, h.value]),
        state.lastTs,
      );
      should(rows).eql([
        [10_000, 0],
        [20_000, -3],
      ]);
      const again = judge(
        rows!.map(([t, v]) => [t / 1000, v]),
        DEFAULT_MAX_POWER_KW,
        { lastTs: 0, lastValue: 100, held: [] },
      );
      should(again.told).eql([]);
      should(again.state).eql(state);
    });

    it('anything a judge cannot hold is refused', () => {
      for (const bad of [
        null,
        {},
        [[1, 2, 3]],
        [['1', 2]],
        [[1, NaN]],
        [[5, 1]], // not after the last accepted reading
        [
          [20, 1],
          [20, 1],
        ],
        Array.from({ length: GLITCH_RUN_MAX + 1 }, (_, i) => [100 + i, 0]),
      ])
        should(storedHeld(bad, 10)).equal(null, JSON.stringify(bad));
      should(storedHeld([], 10)).eql([]);
    });
  });

  describe('generated histories against the truth', function () {
    // 3,000 generated histories, CPU-bound: 1-2 s idle, more than 10 s on a loaded machine
    this.timeout(60_000);
    it('counted intervals, resets and glitches are exactly the generator’s', () => {
      fc.assert(
        fc.property(
          fc.integer(),
          fc.integer({ min: 2, max: 200 }),
          fc.constantFrom(DEFAULT_MAX_POWER_KW, 50, 3, Infinity),
          (seed, readings, maxPowerKw) => {
            const h = makeHistory({ seed, readings, maxPowerKw });
            const told: Told = [];
            const state = newGlitchState();
            const sink = recorder(told);
            for (const r of h.rows) judgeReading(state, r.ts, r.value, maxPowerKw, sink);
            should(state.held).eql([]);
            should(told.filter((t) => t[0] === 'counted').map((t) => t.slice(1))).eql(h.counted);
            should(
              told
                .filter((t) => t[0] === 'reset')
                .map(([, from, fromValue, to, toValue, kind]) => ({ from, to, fromValue, toValue, kind })),
            ).eql(h.resets);
            should(told.filter((t) => t[0] === 'glitch').map(([, ts, value, kind]) => ({ ts, value, kind }))).eql(h.glitches);
          },
        ),
        { ...FC, numRuns: 3000 },
      );
    });

    it('the generator makes every kind of event (so the property above tests them)', () => {
      const seen = new Set<string>();
      for (let seed = 0; seed < 200; seed++) {
        const h = makeHistory({ seed, readings: 100, maxPowerKw: DEFAULT_MAX_POWER_KW, eventRate: 0.5 });
        for (const r of h.resets) seen.add(r.kind);
        for (const g of h.glitches) seen.add(`${g.kind} ${g.value === 0 ? 'zero' : g.value < 0 ? 'negative' : 'other'}`);
        for (let i = 1; i < h.rows.length; i++) if (h.rows[i].truth !== 'true' && h.rows[i - 1].truth !== 'true') seen.add('run');
      }
      should([...seen].sort()).eql(['high other', 'low negative', 'low other', 'low zero', 'reset', 'run', 'swap']);
    });
  });
});
