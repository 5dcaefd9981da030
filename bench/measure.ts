// Timing helpers of the benchmarks: medians of interleaved rounds on a shared machine,
// and the interface's 3-rule tariff the worst cases are compared with.
import type { Tariff } from '../nodes/lib/engine/tariff/tariff';

/** The interface's 3-rule workday tariff: the baseline of the worst-case figures. */
export const BASELINE_TARIFF: Tariff = {
  id: 'base',
  name: '3 rules',
  vat: 20,
  currency: 'GBP',
  rules: [
    { priority: 50, price: 0.5, time_start: '09:00', time_end: '17:00', weekdays: [1, 2, 3, 4, 5] },
    { priority: 60, price: 0.6, weekdays: [1, 2, 3, 4, 5] },
    { priority: 70, price: 0.7 },
  ],
};

export function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export function elapsedMs(fn: () => unknown): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/**
 * Median times of several variants measured in interleaved rounds, so that they all see
 * the same machine (it is shared and its speed changes from second to second).
 * `every` > 1 measures a slow variant only in every n-th round.
 */
export function interleaved(rounds: number, variants: Array<{ fn: () => unknown; every?: number }>): number[] {
  const times: number[][] = variants.map(() => []);
  for (let r = 0; r < rounds; r++) {
    variants.forEach((v, k) => {
      if (r % (v.every ?? 1) === 0) times[k].push(elapsedMs(v.fn));
    });
  }
  return times.map(median);
}
