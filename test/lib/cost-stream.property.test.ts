// Differential test of stream mode: whatever the order, repetition and lateness of the
// readings of several meters, each meter's totals (and the site's) equal rule 10 read
// literally (slowJudge) on the readings the node counted, each interval priced by
// computeCost, split at localPeriod bounds. The reference is slow and plain: every counted
// reading in a Map, the verdicts (too late, duplicate) from the rules written out, the sums
// from the judged intervals of each period.
import should from 'should';
import fc from 'fast-check';
import { CostStream, TotalsStore } from '../../nodes/lib/runtime/cost/cost-stream';
import { computeCost } from '../../nodes/lib/engine/cost/cost';
import { Bucket, WINDOW_MS } from '../../nodes/lib/engine/cost/totals';
import { localPeriod } from '../../nodes/lib/engine/time/time';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';
import { prng } from './engine-fixtures';
import { slowJudge } from './glitch-history';
import { DEFAULT_MAX_POWER_KW } from '../../nodes/lib/engine/common/limits';

// the hour after midnight (missing on a day that starts at 01:00), Sundays, the rest
const TARIFF = {
  id: 'D',
  name: 'd',
  vat: 20,
  currency: 'EUR',
  rules: [
    { priority: 1, price: 0.1, time_start: '00:00', time_end: '01:00' },
    { priority: 2, price: 0.2, weekdays: [7] },
    { priority: 3, price: 0.3 },
  ],
} as Tariff;

/** Zones whose clock changes at local midnight, from noon before such a night to two days later. */
const CASES: Array<[string, string]> = [
  ['Atlantic/Azores', '2024-03-30T12:00:00Z'], // 31 March starts at 01:00; then (at 00:00Z) a new ISO week and month
  ['Atlantic/Azores', '2024-10-26T12:00:00Z'], // 01:00 on 27 October goes back to 00:00
  ['America/Havana', '2024-03-09T12:00:00Z'],
  ['Asia/Beirut', '2024-10-25T12:00:00Z'], // midnight of 27 October comes twice
  ['America/Santiago', '2024-09-06T12:00:00Z'],
  ['America/Santiago', '2024-04-05T12:00:00Z'],
];
const CADENCE_MS = 10_000;
const SPAN_MS = 36 * 3600_000;
const MAX_KEPT = 400; // small, so readings are let go within the span and "too late" happens
const PERIODS = ['day', 'week', 'month'] as const;
/** Runs per case (each 36 h of 10 s readings of up to three meters, ~13,000 readings a meter); COST_STREAM_RUNS for more. */
const RUNS = Number(process.env.COST_STREAM_RUNS) || 1;
const METER_NAMES = ['e1.kwh', 'e2.kwh', '__proto__', 'constructor'];

/** Where `ts` is or would go in the ascending list. */
function indexOf(list: number[], ts: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface Sent {
  meter: string;
  ts: number;
  value: number;
  at: number;
}

/** Readings every 10 s per meter (with an outage or two), sent late, twice, corrected, interleaved. */
function traffic(seed: number, start: number, meters: string[]): Sent[] {
  const rnd = prng(seed);
  const sent: Sent[] = [];
  meters.forEach((meter, m) => {
    let value = 1000 * rnd();
    const outage = start + rnd() * SPAN_MS;
    const outageMs = rnd() * 4 * 3600_000;
    for (let ts = start + m * 3000; ts < start + SPAN_MS; ts += CADENCE_MS) {
      if (ts >= outage && ts < outage + outageMs) continue;
      const before = value;
      value = rnd() < 1 / 8000 && value > 10 ? rnd() : value + rnd() * 0.01; // now and then a counter reset
      const r = rnd();
      // mostly on time; some minutes late, some hours (past what a meter keeps)
      const delay = r < 0.9 ? 0 : r < 0.97 ? rnd() * 10 * 60_000 : rnd() * 3 * 3600_000;
      sent.push({ meter, ts, value, at: ts + delay });
      if (rnd() < 0.01) sent.push({ meter, ts, value, at: ts + delay + rnd() * 2 * 3600_000 }); // sent again
      // a correction: another value the meter could have read (between the readings around it)
      if (rnd() < 0.002 && value > before) sent.push({ meter, ts, value: value - rnd() * (value - before), at: ts + rnd() * 3600_000 });
    }
  });
  // arrival order; equal instants in the order generated
  return sent
    .map((s, i) => ({ s, i }))
    .sort((a, b) => a.s.at - b.s.at || a.i - b.i)
    .map((x) => x.s);
}

/** The plain model of one meter: every counted reading, and what it still holds. */
class ReferenceMeter {
  readonly counted = new Map<number, number>();
  /** Instants of the counted readings, ascending. */
  private readonly instants: number[] = [];
  private newest = -Infinity;
  /** Once readings were let go: the oldest one kept. */
  private floor: number | null = null;

  verdict(ts: number, value: number): 'too_late' | 'duplicate' | 'counted' {
    if (this.counted.size && ts < this.newest - WINDOW_MS) return 'too_late';
    if (this.floor !== null && (ts < this.floor || (ts === this.floor && this.counted.get(ts) !== value))) return 'too_late';
    if (this.counted.get(ts) === value) return 'duplicate';
    if (!this.counted.has(ts)) this.instants.splice(indexOf(this.instants, ts), 0, ts);
    this.counted.set(ts, value);
    this.newest = Math.max(this.newest, ts);
    // what is kept: the readings of the window and the one before, at most MAX_KEPT
    const first = this.floor === null ? 0 : indexOf(this.instants, this.floor);
    const kept = this.instants.length - first;
    let drop = 0;
    while (drop + 1 < kept && this.instants[first + drop + 1] < this.newest - WINDOW_MS) drop++;
    drop = Math.max(drop, kept - MAX_KEPT);
    if (drop > 0) this.floor = this.instants[first + drop];
    return 'counted';
  }

  sorted(): Array<[number, number]> {
    return this.instants.map((ts) => [ts, this.counted.get(ts)!]);
  }

  /** The intervals rule 10 makes of every counted reading that start in [from, to): counted ones priced by computeCost, resets 0 kWh. */
  sums(from: number, to: number | null) {
    const judged = slowJudge(this.sorted(), DEFAULT_MAX_POWER_KW);
    const inside = (t: number) => t >= from && (to === null || t < to);
    const sums = { energy: 0, net: 0, gross: 0, intervals: 0, resets: 0 };
    for (const [a, av, b, bv] of judged.counted) {
      if (!inside(a)) continue;
      const r = computeCost(
        TARIFF,
        [
          [a, av],
          [b, bv],
        ],
        { timezone: this.timezone },
      );
      sums.energy += r.energy;
      sums.net += r.net;
      sums.gross += r.gross;
      sums.intervals += 1;
    }
    for (const x of judged.resets) {
      if (!inside(x.from)) continue;
      sums.resets += 1;
      sums.intervals += 1;
    }
    return sums;
  }

  /** The newest reading rule 10 accepted (the periods are the ones holding it): held ones come after it. */
  newestAccepted(): number {
    const judged = slowJudge(this.sorted(), DEFAULT_MAX_POWER_KW);
    const all = this.sorted();
    return judged.pending.length ? all[all.length - 1 - judged.pending.length][0] : all[all.length - 1][0];
  }

  constructor(private readonly timezone: string) {}
}

const near = (actual: number, expected: number, what: string) => {
  should(Math.abs(actual - expected)).be.belowOrEqual(1e-9 * Math.max(1, Math.abs(expected)), `${what}: ${actual} vs ${expected}`);
};

function sameSums(bucket: Bucket | null, expected: ReturnType<ReferenceMeter['sums']>, what: string) {
  if (bucket === null) {
    should(expected.intervals).equal(0, `${what}: no bucket but ${expected.intervals} intervals`);
    return;
  }
  should(bucket.intervals).equal(expected.intervals, `${what}: intervals`);
  should(bucket.resets).equal(expected.resets, `${what}: resets`);
  near(bucket.energy, expected.energy, `${what}: energy`);
  near(bucket.net, expected.net, `${what}: net`);
  near(bucket.gross, expected.gross, `${what}: gross`);
}

const memoryStore = (): TotalsStore => {
  let saved: unknown;
  return {
    load: async () => saved,
    save: async (v) => {
      saved = v;
    },
  };
};

describe('CostStream against computeCost (differential, property)', function () {
  this.timeout(600_000);
  const seen = { runs: 0, sent: 0, counted: 0, late: 0, tooLate: 0, duplicate: 0, replaced: 0, closed: 0 };

  after(() => {
    // the counts the closing note reports
    console.log(
      `      stream vs computeCost: ${seen.runs} runs, ${seen.sent} readings sent, ${seen.counted} counted (${seen.late} late, ${seen.replaced} corrected), ` +
        `${seen.tooLate} too late, ${seen.duplicate} duplicates, ${seen.closed} closed periods compared`,
    );
  });

  for (const [timezone, startIso] of CASES) {
    it(`${timezone} from ${startIso}: every meter's periods and the site's equal computeCost split at localPeriod bounds`, async () => {
      const start = Date.parse(startIso);
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 3 }), async (seed, meterCount) => {
          const names = Array.from({ length: meterCount }, (_, i) => METER_NAMES[(seed + i) % METER_NAMES.length]);
          const stream = new CostStream({ timezone, tariffId: 'D', store: memoryStore(), warn: () => undefined, maxKept: MAX_KEPT });
          await stream.restore();
          const ref = new Map(names.map((n) => [n, new ReferenceMeter(timezone)]));
          const last = new Map<string, Record<string, unknown>>();
          for (const s of traffic(seed, start, names)) {
            const out = (await stream.handle({ topic: s.meter, gateway: 'G', payload: s.value, ts: s.ts }, TARIFF, s.at))!;
            const p = out.payload as {
              ignored?: string;
              late?: boolean;
              replaced?: boolean;
              closed?: Record<string, { from: string; to: string }>;
            };
            const expected = ref.get(s.meter)!.verdict(s.ts, s.value);
            should(p.ignored ?? 'counted').equal(expected, `${s.meter} at ${new Date(s.ts).toISOString()}`);
            seen.sent += 1;
            if (expected === 'counted') seen.counted += 1;
            if (expected === 'too_late') seen.tooLate += 1;
            if (expected === 'duplicate') seen.duplicate += 1;
            if (p.late) seen.late += 1;
            if (p.replaced) seen.replaced += 1;
            // a period that closes is final: it equals computeCost of what was counted by then
            for (const [name, bucket] of Object.entries(p.closed ?? {})) {
              const bounds = localPeriod(name as 'day', Date.parse(bucket.from), { timezone });
              should([bounds.from, bounds.to]).eql([Date.parse(bucket.from), Date.parse(bucket.to)]);
              const closed = (out.payload.closed as Record<string, Bucket & { from: string }>)[name];
              sameSums(
                { ...closed, from: bounds.from, to: bounds.to },
                ref.get(s.meter)!.sums(bounds.from, bounds.to),
                `${s.meter} closed ${name}`,
              );
              seen.closed += 1;
            }
            last.set(s.meter, out.payload);
          }
          // the periods still open, the total, and the site
          const site = stream.site();
          let newest = -Infinity;
          for (const r of ref.values()) newest = Math.max(newest, r.newestAccepted());
          for (const name of PERIODS) {
            const bounds = localPeriod(name, newest, { timezone });
            should([site[name]!.from, site[name]!.to]).eql([bounds.from, bounds.to]);
            const sums = [...ref.values()].map((r) => r.sums(bounds.from, bounds.to));
            const total = sums.reduce((a, b) => ({
              energy: a.energy + b.energy,
              net: a.net + b.net,
              gross: a.gross + b.gross,
              intervals: a.intervals + b.intervals,
              resets: a.resets + b.resets,
            }));
            sameSums(site[name], total, `site ${name}`);
          }
          for (const [meter, r] of ref) {
            const counted = r.sorted();
            const meterNewest = r.newestAccepted();
            const state = stream.totalsOf({ gateway: 'G', topic: meter })!;
            for (const name of PERIODS) {
              const bounds = localPeriod(name, meterNewest, { timezone });
              sameSums(state[name], r.sums(bounds.from, bounds.to), `${meter} ${name}`);
            }
            sameSums(state.total, r.sums(-Infinity, null), `${meter} total`);
            should(state.total!.from).equal(counted[0][0]);
          }
          seen.runs += 1;
        }),
        { seed: 20261123, numRuns: RUNS },
      );
    });
  }
});
