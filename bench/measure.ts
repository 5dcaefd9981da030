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

/** Per-call times of variants measured in batches: medians, and each round's times for paired ratios. */
export interface Batched {
  /** Median µs a call of each variant. */
  medians: number[];
  /** µs a call of each variant in each round (rounds[r][k]). */
  rounds: number[][];
  /** The calls in each variant's batch. */
  calls: number[];
}

let sink: unknown;
/** The last result of a timed call, kept so that no call is optimised away. */
export const lastResult = (): unknown => sink;

const WARM_MS = 100;
const WARM_CALLS = 1000;

function timeBatch(fn: () => unknown, calls: number): number {
  const t0 = process.hrtime.bigint();
  for (let c = 0; c < calls; c++) sink = fn();
  return Number(process.hrtime.bigint() - t0) / 1e3 / calls;
}

/**
 * Variants timed in interleaved rounds, each a batch of calls lasting about `batchUs` (one
 * call of a few µs is below what a clock read resolves; batches of the same length for every
 * variant, so that the machine's other work interrupts each as often), after `warmup`
 * untimed rounds; the order of the variants turns every round, so none always runs first.
 * No collection is forced: each side's garbage is collected as it comes, in its own batches.
 */
export function batched(
  rounds: number,
  variants: Array<() => unknown>,
  options: { warmup: number; batchUs: number; warmCalls?: number },
): Batched {
  const n = variants.length;
  // a first measure of each variant sets its batch (the warm-up then runs at that size)
  // each variant first runs for WARM_MS and at least WARM_CALLS calls (the JIT optimises it), then its time a call sets its batch
  const calls = variants.map((fn) => {
    const t0 = process.hrtime.bigint();
    let made = 0;
    while (made < (options.warmCalls ?? WARM_CALLS) || Number(process.hrtime.bigint() - t0) < WARM_MS * 1e6) {
      sink = fn();
      made++;
    }
    const part = Math.max(1, Math.round(made / 20));
    const once = Math.min(timeBatch(fn, part), timeBatch(fn, part), timeBatch(fn, part));
    return Math.max(1, Math.round(options.batchUs / Math.max(once, 1e-3)));
  });
  const out: number[][] = [];
  for (let r = -options.warmup; r < rounds; r++) {
    const times = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const k = (i + (r < 0 ? 0 : r)) % n;
      times[k] = timeBatch(variants[k], calls[k]);
    }
    if (r >= 0) out.push(times);
  }
  return { medians: variants.map((_, k) => median(out.map((t) => t[k]))), rounds: out, calls };
}

/** The median over rounds of `a`'s time over `b`'s in the same round: a ratio that survives the machine's speed changing between rounds. */
export function pairedRatio(result: Batched, a: number, b: number): number {
  return median(result.rounds.map((t) => t[a] / t[b]));
}
