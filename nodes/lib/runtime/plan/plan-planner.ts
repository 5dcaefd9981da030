// The engine behind easy-plan's ledger, and the edit dialog's preview made by the same
// ledger: what the dialog shows is what the node would plan now.
import { cheapestWindows, dearestWindows, mergeSlots } from '../../engine/plan/plan';
import { schedule, SensorValues } from '../../engine/prices/price-source';
import { Planner, replanLedger } from './plan-ledger';
import { configuredCycle, PlanSettings, planSettings } from './plan-settings';
import { replanSaving } from './plan-saving';
import { nothingLeft } from './plan-cycle';

/** A planner for these settings on this tariff: the cheapest plan (never above the price limit), or the dearest (never below it). */
export function enginePlanner(tariff: unknown, options: { timezone: string; sensors?: SensorValues }, settings: PlanSettings): Planner {
  return {
    plan(from, to, duration, block, busy) {
      const planned = { ...options, from, to, duration, ...block, busy };
      return settings.strategy === 'dearest'
        ? dearestWindows(tariff, { ...planned, minPrice: settings.priceLimit })
        : cheapestWindows(tariff, { ...planned, maxPrice: settings.priceLimit });
    },
    priced(from, to) {
      return schedule(tariff, from, to, options).map((s) => ({ from: s.from, to: s.to, price: s.price }));
    },
  };
}

/**
 * The slots a node with this configuration would plan from `now` until `to`, for the
 * edit dialog's chart: each daily window (or the one rolling window) planned as the node
 * would plan it now. An error in the configuration is returned as text, not thrown.
 */
export function planPreview(
  tariff: unknown,
  config: Record<string, unknown>,
  now: number,
  to: number,
  options: { timezone: string; sensors?: SensorValues },
): { slots: Array<{ from: number; to: number; price: number }>; shortfalls: string[]; error: string | null } {
  const slots: Array<{ from: number; to: number; price: number }> = [];
  const shortfalls: string[] = [];
  try {
    const settings = planSettings(config);
    const planner = enginePlanner(tariff, options, settings);
    let at = now;
    // a week holds at most 8 daily windows; the rolling one is planned once
    for (let n = 0; n < 9 && at < to; n++) {
      const cycle = configuredCycle(settings, at, options.timezone);
      if (Math.max(at, cycle.from) >= to) break;
      const ledger = { cycle, cancelled: false, once: null, boost: null, pieces: [] };
      const plan =
        settings.strategy === 'save' ? replanSaving(ledger, at, tariff, options, settings) : replanLedger(ledger, at, planner, settings);
      const priced = plan.ledger.pieces.map((p) => ({ from: p.from, to: p.to, price: p.price ?? 0 }));
      for (const slot of mergeSlots(priced)) slots.push(slot);
      if (plan.shortfall) shortfalls.push(plan.shortfall);
      // the window under way that plans nothing says why, as the node's status does, beside the later windows' slots
      else if (n === 0 && at > cycle.from && !plan.ledger.pieces.some((p) => p.to > at))
        shortfalls.push(`this window: ${nothingLeft(plan.ledger, settings)}`);
      if (settings.window.kind === 'rolling') break;
      at = cycle.to;
    }
    return { slots, shortfalls, error: null };
  } catch (err) {
    return { slots, shortfalls, error: (err as Error).message };
  }
}
