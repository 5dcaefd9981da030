// easy-plan's "switch off to save" strategy (power-saver's Best Save, exact): the load is
// on in the window and off in the periods savingOffWindows finds. A re-plan keeps the off
// periods that have run, lets a running one run to its planned end, keeps the load on for
// the recovery after it, and plans the rest of the window from then on.
import { onTimeAfter, savingOffWindows } from '../../engine/plan/plan-saving';
import type { SensorValues } from '../../engine/tariff/price';
import { Ledger, LedgerPiece, Replanned, runningBlock } from './plan-ledger';
import type { PlanSettings } from './plan-settings';

/** On-time after `off` ms off: the recovery (whole minutes, capped), at least the time on between. */
export function recoveryAfter(off: number, s: PlanSettings['saving']): number {
  return onTimeAfter(off, s.minOnBetween, s.recoveryPercent, s.recoveryMax ?? Infinity);
}

/** The off periods of the window from `now` on, after what has run and the running one. */
export function replanSaving(
  ledger: Ledger,
  now: number,
  tariff: unknown,
  options: { timezone: string; sensors?: SensorValues },
  settings: PlanSettings,
): Replanned {
  const { cycle } = ledger;
  const past = ledger.pieces.filter((p) => p.from < now).map((p) => ({ ...p, to: Math.min(p.to, now) }));
  const running = runningBlock(ledger.pieces, now);
  const committed = running
    ? ledger.pieces.filter((p) => p.to > now && p.from < running.to).map((p) => ({ ...p, from: Math.max(p.from, now) }))
    : [];
  const kept: LedgerPiece[] = [...past, ...committed];
  // the last off period (running, or the latest that has run) and the recovery after it
  let last: { from: number; to: number } | null = null;
  for (const p of kept) {
    if (last && last.to === p.from) last.to = p.to;
    else last = { from: p.from, to: p.to };
  }
  const from = Math.max(now, cycle.from, last ? last.to + recoveryAfter(last.to - last.from, settings.saving) : -Infinity);
  let pieces = kept;
  if (!ledger.cancelled && from < cycle.to) {
    const s = settings.saving;
    const result = savingOffWindows(tariff, {
      ...options,
      from,
      to: cycle.to,
      maxOffInRow: s.maxOffInRow,
      minOffInRow: s.minOffInRow,
      minOnBetween: s.minOnBetween,
      minSaving: s.minSaving,
      minSavingOf: s.minSavingOf,
      recoveryPercent: s.recoveryPercent,
      recoveryMax: s.recoveryMax,
    });
    pieces = [...kept, ...result.slots.map((x) => ({ from: x.from, to: x.to, price: x.price, owner: 'plan' as const }))];
  }
  return { ledger: { ...ledger, once: null, boost: null, pieces }, result: null, shortfall: null };
}
