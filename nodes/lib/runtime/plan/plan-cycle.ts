// easy-plan's clock arithmetic over a ledger, free of timers: when its window is over,
// the ledger of the window at an instant, the next instant output 1 may change, and
// what output 1 says at an instant.

import { configuredCycle, Cycle, PlanSettings } from './plan-settings';
import { Ledger, steppedLedger } from './plan-ledger';
import type { OutputState } from './plan-output';
import { roundAmount } from '../../engine/common/format';
import { runTimeText } from '../../engine/plan/plan';

export function cycleOver(l: Ledger, now: number): boolean {
  return now >= l.cycle.to;
}

/**
 * The ledger at `now`: a new window once the current one is over (its history pruned).
 * Rolling windows run back to back, a duty cycle: the next begins where the last one
 * ended (whole windows later after a long stop), never where its run ended.
 */
export function ledgerAt(l: Ledger | null, settings: PlanSettings, now: number, timezone: string): Ledger {
  if (l && !cycleOver(l, now)) return l;
  const cycle =
    l && settings.window.kind === 'rolling' ? nextRollingCycle(l.cycle, settings, now) : configuredCycle(settings, now, timezone);
  const keepFrom = Math.min(cycle.from, l?.once && l.once.to > now ? l.once.from : Infinity, now);
  return {
    cycle,
    cancelled: false,
    once: l?.once && l.once.to > now ? l.once : null,
    boost: l?.boost && l.boost.to > now ? l.boost : null,
    pieces: (l?.pieces ?? []).filter((p) => p.to > keepFrom),
  };
}

/**
 * The ledger after the wall clock stepped from `before` to `now` (steppedLedger: what ran is
 * what the relay did). A step back to before the window began keeps the window when it is
 * still the next one (a daily window stepped back over its start); a window further ahead
 * (a clock that was a year fast) is from a future the clock left: the window of the new
 * clock starts afresh, the one-off kept (its span is the one asked for).
 */
export function ledgerAfterStep(l: Ledger, settings: PlanSettings, before: number, now: number, timezone: string): Ledger {
  const stepped = steppedLedger(l, before, now);
  if (now >= stepped.cycle.from) return stepped;
  const cycle = configuredCycle(settings, now, timezone);
  if (cycle.from >= stepped.cycle.from) return stepped;
  return { cycle, cancelled: false, once: stepped.once, boost: stepped.boost, pieces: stepped.pieces.filter((p) => p.to <= now) };
}

/** The rolling window holding `now` on the grid of whole windows after `last`. */
function nextRollingCycle(last: Cycle, settings: PlanSettings, now: number): Cycle {
  const length = (settings.window as { lengthMs: number }).lengthMs;
  const from = last.to + Math.floor((now - last.to) / length) * length;
  return { from, to: from + length, requested: settings.durationMs };
}

/**
 * Why a ledger with nothing ahead plans nothing, when no shortfall says why, in the words
 * of its mode (save mode has no duration: it switches off where that saves) and short
 * enough for the status line after "no plan: ".
 */
export function nothingLeft(ledger: Ledger, settings: PlanSettings): string {
  if (ledger.cancelled) return 'cancelled';
  if (settings.strategy === 'save') {
    // an off period counts with its recovery inside the window, at least Off at least long, saving Save at least at every instant
    const { minOffInRow, minSaving, minSavingOf } = settings.saving;
    const length = minOffInRow > 0 ? ` of ${runTimeText(minOffInRow)}` : '';
    const least = minSaving > 0 ? ` ${roundAmount(minSaving)}/kWh` : '';
    // the status line holds 60 characters: the average's words take the place of "before … ends"
    if (minSavingOf === 'average' && minSaving > 0) return `no off time${length} saves${least} on average in the window`;
    return `no off time${length} saves${least} before the window ends`;
  }
  return ledger.cycle.requested === 0 && !ledger.once ? 'the duration is 0' : 'nothing left to run in this window';
}

/** Why a plan made at `now` has no slot ahead (its shortfall, else nothingLeft); null when a slot lies ahead. */
export function planReason(planned: { ledger: Ledger; shortfall: string | null }, settings: PlanSettings, now: number): string | null {
  if (planned.ledger.pieces.some((p) => p.to > now)) return null;
  return planned.shortfall ?? nothingLeft(planned.ledger, settings);
}

/** The first instant after `now` where a slot, the window or a one-off starts or ends; null: none. */
export function nextEvent(l: Ledger | null, now: number): number | null {
  if (!l) return null;
  let next = Infinity;
  const consider = (t: number) => {
    if (t > now && t < next) next = t;
  };
  for (const p of l.pieces) {
    consider(p.from);
    consider(p.to);
  }
  consider(l.cycle.from);
  consider(l.cycle.to);
  if (l.once) {
    consider(l.once.from);
    consider(l.once.to);
  }
  return next === Infinity ? null : next;
}

/**
 * on in a slot; off in the configured window or a one-off's span; outside otherwise (and
 * before the first plan). Saving: the slots are the off periods, on in the rest of the window.
 */
export function stateAt(l: Ledger | null, settings: PlanSettings, now: number): OutputState {
  if (!l) return 'outside';
  const inSlot = l.pieces.some((p) => p.from <= now && now < p.to);
  const inside = (s: { from: number; to: number } | null) => s !== null && s.from <= now && now < s.to;
  if (settings.strategy === 'save') return inSlot ? 'off' : inside(l.cycle) ? 'on' : 'outside';
  if (inSlot) return 'on';
  return inside(l.cycle) || inside(l.once) ? 'off' : 'outside';
}
