// Timing helpers of the benchmarks: medians of interleaved rounds on a shared machine.

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
