// Generated meter histories for semantics rule 10 (glitches are not resets): a true meter
// that counts up at a power within maxPowerKw, with glitches injected between its readings
// (0, negative, ten times the register, garbage; runs of up to GLITCH_RUN_MAX), genuine
// counter resets (the meter goes on from a low base) and swaps (a meter with a higher
// register). The generator knows which reading is which, so the expected result is the
// truth itself, not a second copy of the rule: the energy is what the true meter counted
// between consecutive true readings, except the intervals into a reset's or swap's new base.
//
// Events are made so that the rule can tell them apart (what a real meter gives): glitches
// no meter could reach from the last true reading (run values never rise, so no run looks
// like a counter going on), a reset's new meter stays below the old register while the
// run is judged, a swap's new base lies beyond what the power allows, and events are at
// least GLITCH_RUN_MAX + 1 true readings apart, the history ending with as many.
import { prng } from './engine-fixtures';
import { GLITCH_RUN_MAX, isPlausible, ResetKind, SuspectKind } from '../../nodes/lib/engine/cost/meter-glitches';

export interface HistoryRow {
  ts: number;
  value: number;
  /** 'true': a reading of the meter; else the glitch's kind. */
  truth: 'true' | SuspectKind;
  /** A true reading that is the new base after a reset or swap. */
  newBase?: ResetKind;
}

export interface History {
  rows: HistoryRow[];
  maxPowerKw: number;
  /** What the rule must find. */
  energy: number;
  counted: Array<[number, number, number, number]>;
  resets: Array<{ from: number; to: number; fromValue: number; toValue: number; kind: ResetKind }>;
  glitches: Array<{ ts: number; value: number; kind: SuspectKind }>;
}

const HOUR = 3600_000;

export interface HistoryOptions {
  seed: number;
  readings: number;
  maxPowerKw: number;
  /** Probability that an event starts at a reading once events are allowed again. */
  eventRate?: number;
  /** The first instant (epoch ms). */
  start?: number;
  /** The longest step between two readings. */
  maxStepMs?: number;
}

export function makeHistory(o: HistoryOptions): History {
  const rnd = prng(o.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const maxPowerKw = o.maxPowerKw;
  // the true meter's power: at most half the limit (a finite stand-in when there is none)
  const meterKw = Number.isFinite(maxPowerKw) ? maxPowerKw / 2 : 50;
  const maxStepMs = o.maxStepMs ?? pick([10_000, 60_000, 15 * 60_000, 2 * HOUR]);
  const eventRate = o.eventRate ?? pick([0.05, 0.2, 0.5]);
  const rows: HistoryRow[] = [];
  const counted: History['counted'] = [];
  const resets: History['resets'] = [];
  const glitches: History['glitches'] = [];
  let ts = o.start ?? Date.UTC(2026, 2, 4, 10);
  let value = pick([1000, 12_345, 250_000, 3_000_000]) * (0.5 + rnd());
  let energy = 0;
  let last = { ts, value };
  rows.push({ ts, value, truth: 'true' });
  let calm = GLITCH_RUN_MAX + 1; // true readings still due before the next event
  const step = () => 1 + Math.floor(rnd() * maxStepMs);
  const grow = (ms: number) => (rnd() < 0.2 ? 0 : rnd() * meterKw * (ms / HOUR));
  const trueReading = (newBase?: ResetKind) => {
    rows.push({ ts, value, truth: 'true', ...(newBase ? { newBase } : {}) });
    if (newBase) resets.push({ from: last.ts, to: ts, fromValue: last.value, toValue: value, kind: newBase });
    else {
      counted.push([last.ts, last.value, ts, value]);
      energy += value - last.value;
    }
    last = { ts, value };
  };
  while (rows.length < o.readings || calm > 0) {
    if (calm > 0 || rows.length >= o.readings || rnd() > eventRate) {
      ts += step();
      value += grow(ts - last.ts);
      trueReading();
      calm = Math.max(0, calm - 1);
      continue;
    }
    const event = pick(['glitch', 'glitch', 'run', 'reset', 'swap'] as const);
    // the steps of the readings the rule judges before the event is decided, chosen now
    const steps = Array.from({ length: GLITCH_RUN_MAX + 1 }, step);
    if (event === 'glitch' || event === 'run') {
      const length = event === 'glitch' ? 1 : 2 + Math.floor(rnd() * (GLITCH_RUN_MAX - 1));
      const run: number[] = [];
      const times: number[] = [];
      let at = ts;
      for (let k = 0; k < length; k++) {
        at += steps[k];
        const candidates = [
          0,
          -1 - rnd() * 1e4,
          value * 10,
          value * 100,
          -value,
          (rnd() - 0.3) * 1e7,
          rnd() * value,
          value * (1.5 + rnd()),
        ];
        const bad = candidates.filter((g) => !isPlausible(last.ts, last.value, at, g, maxPowerKw));
        if (bad.length === 0) break;
        run.push(k > 0 && rnd() < 0.5 ? run[k - 1] : pick(bad)); // stuck reads repeat the value
        times.push(at);
      }
      if (run.length === 0) continue;
      run.sort((a, b) => b - a); // never rising: a rise would look like a counter going on
      // sorted, a value may stand later than it was drawn for, where the power allows it
      if (run.some((g, k) => isPlausible(last.ts, last.value, times[k], g, maxPowerKw))) continue;
      run.forEach((g, k) => {
        const kind: SuspectKind = g < last.value ? 'low' : 'high';
        rows.push({ ts: times[k], value: g, truth: kind });
        glitches.push({ ts: times[k], value: g, kind });
      });
      ts = times[times.length - 1] + step();
      value += grow(ts - last.ts);
      trueReading();
      calm = GLITCH_RUN_MAX + 1;
      continue;
    }
    const span = steps.reduce((a, b) => a + b, 0);
    const headroom = meterKw * (span / HOUR); // the most the new meter counts while its run is judged
    if (event === 'reset') {
      if (value - headroom < 1) continue;
      ts += steps[0];
      value = rnd() * (value - headroom) * pick([0, 0.001, 0.5, 1]);
      trueReading('reset');
    } else {
      if (!Number.isFinite(maxPowerKw)) continue;
      ts += steps[0];
      value += maxPowerKw * 2 * (span / HOUR) + 1 + rnd() * value * pick([0, 1]);
      trueReading('swap');
    }
    for (let k = 1; k <= GLITCH_RUN_MAX; k++) {
      ts += steps[k];
      value += grow(steps[k]);
      trueReading();
    }
    calm = GLITCH_RUN_MAX + 1;
  }
  return { rows, maxPowerKw, energy, counted, resets, glitches };
}

/** What rule 10 makes of a list of readings: the intervals counted, resets, glitches, and the readings left pending. */
export interface SlowJudgement {
  counted: Array<[number, number, number, number]>;
  resets: Array<{ from: number; to: number; fromValue: number; toValue: number; kind: ResetKind }>;
  glitches: Array<{ ts: number; value: number; kind: SuspectKind }>;
  pending: Array<{ ts: number; value: number; kind: SuspectKind }>;
}

/**
 * Rule 10 read literally on a whole list of clean readings (sorted, distinct instants), for
 * references that need it on arbitrary data: from the last accepted reading, a plausible
 * reading is counted; a suspect starts a run, read on until a reading decides it: one
 * plausible from the last accepted (the run was glitches), or one rising plausibly from the
 * run's newest, or a run grown past GLITCH_RUN_MAX (a reset or swap at the run's first
 * reading: judging starts again right after it). A run nothing decides is pending.
 */
export function slowJudge(rows: ReadonlyArray<readonly [number, number]>, maxPowerKw: number): SlowJudgement {
  const out: SlowJudgement = { counted: [], resets: [], glitches: [], pending: [] };
  const plausible = (a: readonly [number, number], b: readonly [number, number]) =>
    b[1] >= a[1] && (b[1] - a[1]) * HOUR <= maxPowerKw * (b[0] - a[0]);
  const kindFrom = (last: readonly [number, number], r: readonly [number, number]): SuspectKind => (r[1] < last[1] ? 'low' : 'high');
  if (rows.length === 0) return out;
  let last = rows[0];
  let i = 1;
  while (i < rows.length) {
    if (plausible(last, rows[i])) {
      out.counted.push([last[0], last[1], rows[i][0], rows[i][1]]);
      last = rows[i++];
      continue;
    }
    const run = [i];
    for (let j = i + 1; ; j++) {
      if (j === rows.length) {
        for (const k of run) out.pending.push({ ts: rows[k][0], value: rows[k][1], kind: kindFrom(last, rows[k]) });
        return out;
      }
      if (plausible(last, rows[j])) {
        for (const k of run) out.glitches.push({ ts: rows[k][0], value: rows[k][1], kind: kindFrom(last, rows[k]) });
        out.counted.push([last[0], last[1], rows[j][0], rows[j][1]]);
        last = rows[j];
        i = j + 1;
        break;
      }
      const newest = rows[run[run.length - 1]];
      if ((rows[j][1] > newest[1] && plausible(newest, rows[j])) || run.length === GLITCH_RUN_MAX) {
        const base = rows[i];
        out.resets.push({ from: last[0], to: base[0], fromValue: last[1], toValue: base[1], kind: base[1] < last[1] ? 'reset' : 'swap' });
        last = base;
        i = i + 1;
        break;
      }
      run.push(j);
    }
  }
  return out;
}
