// One meter's cumulative readings judged in time order (semantics rule 10): glitches are
// not resets. A reading the meter could have reached from the last accepted one (not
// lower, average power at most maxPowerKw) is usage. Any other is a suspect, held until a
// later reading decides: the meter goes on from where it was (the suspects were glitches:
// dropped), or it goes on from the suspect (a counter reset or a meter swap: the interval
// to it counts nothing). One judge for computeCost, demandWindows, easy-cost's stream
// totals and easy-peak, so batch and live count the same energy.
//
// The state is plain data (two numbers and at most GLITCH_RUN_MAX held readings), so a
// stream stores it with its meter; a held reading replayed through judgeReading from the
// same last accepted reading is held again, so storing the held readings' instants and
// values is enough. Allocation-free while nothing is suspect (isPlausible inlines).

/**
 * Suspect readings held in a row at most: a run this long that nothing decided is a reset
 * (or a swap) at its first reading. Three covers a Modbus read stuck at 0 for three polls;
 * a reset to a meter that then stands still is decided after four readings.
 */
export const GLITCH_RUN_MAX = 3;

/** A suspect below the last accepted reading (0, negative, garbage) or above what the power allows (10×, garbage). */
export type SuspectKind = 'low' | 'high';
/** A drop run the meter went on from is a counter reset; a jump run, a swap to a meter with a higher register. */
export type ResetKind = 'reset' | 'swap';

export interface HeldReading {
  ts: number;
  value: number;
  kind: SuspectKind;
}

/** One meter's judge: the last accepted reading (NaN before the first) and the suspects held after it, oldest first. */
export interface GlitchState {
  lastTs: number;
  lastValue: number;
  held: HeldReading[];
}

/** What judgeReading decides, told in time order. */
export interface GlitchSink {
  /** (fromTs, fromValue) → (toTs, toValue) is usage: count toValue − fromValue. */
  counted(fromTs: number, fromValue: number, toTs: number, toValue: number): void;
  /** The interval counts 0 kWh: the meter goes on from (toTs, toValue), a new base. */
  reset(fromTs: number, fromValue: number, toTs: number, toValue: number, kind: ResetKind): void;
  /** A held reading was a glitch: dropped, counted nowhere. */
  glitch(ts: number, value: number, kind: SuspectKind): void;
}

export const newGlitchState = (): GlitchState => ({ lastTs: NaN, lastValue: NaN, held: [] });

/**
 * An hour in ms, this module's own: an imported constant is a property load per call (a
 * getter, for time.ts's re-exports) in CommonJS output, and isPlausible runs per row.
 */
const HOUR = 3_600_000;

/**
 * Whether a meter at (fromTs, fromValue) could read toValue at toTs: not lower, and the
 * average power between at most maxPowerKw (Infinity: any rise). toTs > fromTs.
 */
export function isPlausible(fromTs: number, fromValue: number, toTs: number, toValue: number, maxPowerKw: number): boolean {
  // multiplied out, no division: the cost walk runs this per row
  return toValue >= fromValue && (toValue - fromValue) * HOUR <= maxPowerKw * (toTs - fromTs);
}

/**
 * Judges reading (ts, value), later than every reading judged before in `state` (changed
 * in place), and tells `sink` what that decides (nothing, while it is held):
 * - nothing held and the reading plausible from the last accepted one: counted;
 * - plausible from the last accepted one while suspects are held: they were glitches,
 *   the reading is counted from the last accepted one (nothing counted twice);
 * - strictly above the newest held reading and plausible from it, or a run of more than
 *   GLITCH_RUN_MAX suspects: a reset (drop) or swap (jump) at the first held reading,
 *   whose interval counts nothing; the readings after it are judged again from there;
 * - else held.
 * The first reading a state sees is accepted as it is (nothing to count).
 */
export function judgeReading(state: GlitchState, ts: number, value: number, maxPowerKw: number, sink: GlitchSink): void {
  if (state.lastTs !== state.lastTs) {
    state.lastTs = ts;
    state.lastValue = value;
    return;
  }
  const held = state.held;
  if (isPlausible(state.lastTs, state.lastValue, ts, value, maxPowerKw)) {
    if (held.length > 0) {
      for (const h of held) sink.glitch(h.ts, h.value, h.kind);
      held.length = 0;
    }
    sink.counted(state.lastTs, state.lastValue, ts, value);
    state.lastTs = ts;
    state.lastValue = value;
    return;
  }
  if (held.length > 0) {
    const newest = held[held.length - 1];
    const goesOn = value > newest.value && isPlausible(newest.ts, newest.value, ts, value, maxPowerKw);
    if (goesOn || held.length >= GLITCH_RUN_MAX) {
      settleRun(state, maxPowerKw, sink);
      judgeReading(state, ts, value, maxPowerKw, sink);
      return;
    }
  }
  held.push({ ts, value, kind: value < state.lastValue ? 'low' : 'high' });
}

/** The held run is a new base: the interval to its first reading counts nothing, the others are judged again from it. */
function settleRun(state: GlitchState, maxPowerKw: number, sink: GlitchSink): void {
  const [first, ...rest] = state.held;
  state.held = [];
  sink.reset(state.lastTs, state.lastValue, first.ts, first.value, first.kind === 'low' ? 'reset' : 'swap');
  state.lastTs = first.ts;
  state.lastValue = first.value;
  for (const h of rest) judgeReading(state, h.ts, h.value, maxPowerKw, sink);
}

/**
 * Held readings as stored (`[ts, value]` rows), checked against what a judge can hold after
 * a last accepted reading at `lastTs`: at most GLITCH_RUN_MAX, finite, strictly ascending
 * and after it. null when they are not; the caller replays them through judgeReading
 * (which holds them again, or decides them if the settings changed since).
 */
export function storedHeld(x: unknown, lastTs: number): Array<[number, number]> | null {
  if (!Array.isArray(x) || x.length > GLITCH_RUN_MAX) return null;
  let before = lastTs;
  for (const row of x) {
    if (!Array.isArray(row) || row.length !== 2 || !row.every((n) => typeof n === 'number' && Number.isFinite(n))) return null;
    if (!(row[0] > before)) return null;
    before = row[0];
  }
  return x as Array<[number, number]>;
}

/**
 * How a reading that comes late, at x between two accepted readings a and b of a stream, fits
 * (rule 10 for readings out of order; a decision already taken is never undone):
 * - a → b counted: x fits when it is plausible from a and b from it ('both': the two halves
 *   are counted); anything else is a glitch (null);
 * - a → b a reset or swap (`reset`): x is of the old meter when it is plausible from a
 *   ('resetAfter': a → x counted, x → b the reset), of the new one when b is plausible from
 *   it ('resetBefore': a → x the reset, x → b counted), else a glitch (null).
 * Readings of a true meter always fit, so they give the same totals in any order.
 */
export function lateFit(
  a: { ts: number; value: number },
  x: { ts: number; value: number },
  b: { ts: number; value: number },
  reset: boolean,
  maxPowerKw: number,
): 'both' | 'resetAfter' | 'resetBefore' | null {
  const fromA = isPlausible(a.ts, a.value, x.ts, x.value, maxPowerKw);
  const toB = isPlausible(x.ts, x.value, b.ts, b.value, maxPowerKw);
  if (!reset) return fromA && toB ? 'both' : null;
  return fromA ? 'resetAfter' : toB ? 'resetBefore' : null;
}

/**
 * The readings rule 10 accepts from `rows` (clean: finite, strictly ascending), in runs joined
 * by counted intervals: a reset or swap starts a new run, glitches and readings still held at
 * the end are left out. For costing parts of a history apart (a range by day) so that the
 * parts add up to the whole: each run's consecutive readings are usage, whatever maxPowerKw.
 */
export function countedRuns(rows: ReadonlyArray<readonly [number, number]>, maxPowerKw: number): Array<Array<[number, number]>> {
  const runs: Array<Array<[number, number]>> = [];
  if (rows.length === 0) return runs;
  runs.push([[rows[0][0], rows[0][1]]]);
  const state = newGlitchState();
  const sink: GlitchSink = {
    counted: (_a, _av, b, bv) => runs[runs.length - 1].push([b, bv]),
    reset: (_a, _av, b, bv) => runs.push([[b, bv]]),
    glitch: () => undefined,
  };
  for (const [ts, value] of rows) judgeReading(state, ts, value, maxPowerKw, sink);
  return runs;
}
