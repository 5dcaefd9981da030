// Shared by the engine tests (time, tariff, price, dst, cost).
import type { Tariff } from '../../nodes/lib/tariff';

/** fast-check settings: fixed seed so a failure reproduces. */
export const FC = { seed: 20261121, numRuns: 2000 };

/** Runs fn with the process's own TZ set to zone (Node re-reads TZ on assignment). */
export function withProcessTz<T>(zone: string, fn: () => T): T {
  const saved = process.env.TZ;
  process.env.TZ = zone;
  try {
    return fn();
  } finally {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  }
}

/** The interface's example: 50 working hours Mon-Fri, 60 rest of Mon-Fri, 70 otherwise. */
export function workdayTariff(id = 'T1'): Tariff {
  return {
    id,
    name: 'Workday',
    vat: 20,
    currency: 'GBP',
    rules: [
      { priority: 50, price: 0.5, time_start: '09:00', time_end: '17:00', weekdays: [1, 2, 3, 4, 5] },
      { priority: 60, price: 0.6, weekdays: [1, 2, 3, 4, 5] },
      { priority: 70, price: 0.7 },
    ],
  };
}
