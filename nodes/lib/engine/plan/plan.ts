// cheapestWindows / dearestWindows: when to run a constant load for `duration` inside
// [from, to) so that its energy costs least (or most: discharge a battery, shed load,
// sell), from the tariff's exact price segments (schedule), DST included. Semantics in
// docs/semantics.md ("Plans"): exact to the millisecond from any instant; a duration
// longer than the window plans the whole window and says so; 0 plans nothing. The algorithms: plan-split.ts (split, one block), plan-blocks.ts (split with
// a minimum block).
import { scheduleEntries, PriceOptions, ScheduleEntry } from '../tariff/price';
import { engineContext } from '../prices/price-source';
import { MAX_PLAN_SEGMENTS } from '../common/limits';
import {
  costFrom,
  keptCostFrom,
  keptUsablePieces,
  PLAN_RESOLUTION_MS,
  pushUsable,
  walkedSegments,
  windowSegments,
  WindowSegments,
} from './plan-segments';
import { describe, HOUR_MS, requireEpochMs } from '../time/time';
import { cheapestBlocks } from './plan-blocks';
import { blockedCapacity, Piece } from './plan-block-work';
import { piecesOf, UsablePieces } from './plan-pieces';
import { cheapestBlock, cheapestPieces } from './plan-split';
import { groupDigits } from '../common/format';
import { hours } from './plan-text';

export { hours };

type EngineContext = ReturnType<typeof engineContext>;

export interface PlanWindowOptions extends PriceOptions {
  from: number | Date | string;
  to: number | Date | string;
}

export interface PlanOptions extends PlanWindowOptions {
  /** How long the load runs, in ms (0: nothing to run). */
  duration: number;
  /** One block (true) or any number of blocks (false, the default). */
  contiguous?: boolean;
  /** Split mode: every block at least this long, in ms (absent or 0: no minimum; ignored when contiguous). */
  minBlock?: number;
  /**
   * With minBlock: the load runs just before `from` (a plan made while it runs), so a block
   * starting at `from` goes on with that run and is no new block in rule 31's count.
   */
  runningAtFrom?: boolean;
  /** cheapestWindows: never run where the net price is above this. */
  maxPrice?: number;
  /** dearestWindows: never run where the net price is below this. */
  minPrice?: number;
  /** Times already taken (another request's runs): never planned, as time with no price. */
  busy?: ReadonlyArray<{ from: number; to: number }>;
}

export interface PlanSlot {
  from: number;
  to: number;
  /** Average net price over the slot (per kWh). */
  price: number;
}

export interface PlanResult {
  slots: PlanSlot[];
  /** The slots cut where the price changes: each piece has one price. */
  pieces: PlanSlot[];
  /** Planned run time in ms: `requested` unless the window, a price limit or missing prices left less. */
  planned: number;
  /** The duration asked for, ms. */
  requested: number;
  /** Why less than requested is planned; null when all of it is. */
  shortfall: string | null;
  /** Net price per kWh averaged over the planned time; null when nothing is planned. */
  averagePrice: number | null;
  /** What 1 kW for the planned time costs: Σ price × hours. */
  costPerKw: { net: number; gross: number };
  /**
   * The same run time started at `from` in one block, and what the plan saves against it
   * per kW (cheapest: that cost − the plan's; dearest: the plan's − that cost).
   */
  comparedToNow: { from: number; to: number; net: number; gross: number; saving: number; savingGross: number } | null;
  currency: string;
  vat: number;
  /** The window as planned (epoch ms). */
  from: number;
  to: number;
}

/**
 * The window of a plan in whole ms (its resolution): from rounded up, to rounded down, so
 * the plan stays inside what was asked; to before from is an error.
 */
export function planWindow(options: PlanWindowOptions): { from: number; to: number } {
  const rawFrom = requireEpochMs(options.from, 'from');
  const rawTo = requireEpochMs(options.to, 'to');
  if (rawTo < rawFrom) throw new RangeError(`the window ends (to) before it starts (from)`);
  const from = Math.ceil(rawFrom / PLAN_RESOLUTION_MS) * PLAN_RESOLUTION_MS;
  return { from, to: Math.max(from, Math.floor(rawTo / PLAN_RESOLUTION_MS) * PLAN_RESOLUTION_MS) };
}

/**
 * The tariff's segments over a plan's window as schedule entries, walked one price change
 * at a time and refused past MAX_PLAN_SEGMENTS before the rest is built (plan-segments.ts).
 */
export function planSchedule(
  tariff: unknown,
  from: number,
  to: number,
  options: PriceOptions,
  // the caller's compiled tariff: checking a cached one again reads every rule
  context: EngineContext = engineContext(tariff, options),
): ScheduleEntry[] {
  return scheduleEntries(context.ct, walkedSegments(context.ct, context.zone, from, to, options), to);
}

/**
 * A length in ms as a plan takes it: whole ms (rounded to the nearest); 0 stays 0;
 * between 0 and 1 ms is below the resolution and an error.
 */
export function planLength(value: unknown, what: string, zeroAllowed: boolean): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    const got = typeof value === 'string' ? `the string ${JSON.stringify(value.slice(0, 40))}` : describe(value);
    throw new RangeError(`${what} must be ${zeroAllowed ? '0 or ' : ''}a positive number of milliseconds, got ${got}`);
  }
  if (value === 0) {
    if (zeroAllowed) return 0;
    throw new RangeError(`${what} must be a positive number of milliseconds, got 0`);
  }
  if (value < PLAN_RESOLUTION_MS) {
    throw new RangeError(`${what} (${value} ms) is below the plan's resolution of 1 ms`);
  }
  return Math.round(value / PLAN_RESOLUTION_MS) * PLAN_RESOLUTION_MS;
}

type Direction = 'cheapest' | 'dearest';

/** The cheapest times in [from, to) to run a constant load for `duration` ms. */
export function cheapestWindows(tariff: unknown, options: PlanOptions): PlanResult {
  return plan(tariff, options, 'cheapest');
}

/** The dearest times in [from, to) for `duration` ms: discharge a battery, shed load, sell. */
export function dearestWindows(tariff: unknown, options: PlanOptions): PlanResult {
  return plan(tariff, options, 'dearest');
}

function plan(tariff: unknown, options: PlanOptions, direction: Direction): PlanResult {
  const context = engineContext(tariff, options);
  const { ct } = context;
  const { from, to } = planWindow(options);
  const requested = planLength(options.duration, 'duration', true);
  const limitName = direction === 'cheapest' ? 'maxPrice' : 'minPrice';
  const limit = direction === 'cheapest' ? options.maxPrice : options.minPrice;
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isFinite(limit))) {
    throw new TypeError(`${limitName} must be a number, got ${String(limit)}`);
  }
  // 0 (or absent) is no minimum; a negative or infinite one is an error, not "no minimum"
  const rawMinBlock = planLength(options.minBlock ?? 0, 'minBlock', true);
  const minBlock = options.contiguous ? 0 : rawMinBlock;
  if (minBlock > 0 && requested > 0 && minBlock > requested) {
    throw new RangeError(`the minimum block (${hours(minBlock)}) is longer than the duration (${hours(requested)})`);
  }
  const busy = planBusy(options.busy);
  const window = to - from;
  const wanted = Math.min(requested, window);
  // dearest: the same search on negated prices, the real prices put back afterwards
  const sign = direction === 'cheapest' ? 1 : -1;
  const signedLimit = limit === undefined ? undefined : sign * limit;
  // a stack's kept walk gives the usable pieces as they are; else the window's segments are walked
  const kept = wanted > 0 ? keptUsablePieces(ct, context.zone, from, to, signedLimit, sign) : null;
  const segments = kept !== null || wanted === 0 ? WindowSegments.forCount(0) : windowSegments(ct, context.zone, from, to, options);
  const found = kept !== null ? kept.window : usablePieces(segments, to, signedLimit, sign).window();
  let chosen: Piece[] = [];
  if (wanted > 0 && options.contiguous) {
    // the one-block search reads the pieces as arrays; the others take objects
    chosen = cheapestBlock(busy.length === 0 ? found : UsablePieces.of(withoutBusy(piecesOf(found), busy)).window(), wanted);
  } else if (wanted > 0) {
    const usable = withoutBusy(piecesOf(found), busy);
    if (minBlock > 0)
      chosen = cheapestBlocks(
        usable,
        from,
        to,
        blockedCapacity(usable, wanted, minBlock),
        minBlock,
        undefined,
        options.runningAtFrom === true,
      );
    else chosen = cheapestPieces(usable, wanted);
  }
  // every search's pieces are new objects: a cheapest plan's are the result's as they are
  const pieces = sign === 1 ? chosen : chosen.map((p) => ({ from: p.from, to: p.to, price: sign * p.price }));
  const { slots, planned, net } = summed(pieces);
  const vat = ct.vat;
  return {
    slots,
    pieces,
    planned,
    requested,
    // (a plan that holds all it was asked builds no text, nor the facts of one)
    shortfall:
      planned >= requested
        ? null
        : shortfallText({
            planned,
            requested,
            window,
            limitName,
            limit,
            contiguous: options.contiguous === true,
            minBlock,
            busy: busy.some((b) => b.to > from && b.from < to),
            // a stack's unpriced time is where its list has no price (or no fee rule matches)
            unpriced: ct.stack ? 'no price is known' : 'no rule prices',
          }),
    averagePrice: planned > 0 ? net / (planned / HOUR_MS) : null,
    costPerKw: { net, gross: grossOf(net, vat) },
    comparedToNow: startingNow(
      planned === 0 ? null : kept !== null ? keptCostFrom(kept.kept, from, from + planned) : segmentsCostFrom(segments, from + planned),
      from,
      planned,
      net,
      vat,
      sign,
    ),
    currency: ct.currency,
    vat: ct.vat,
    from,
    to,
  };
}

function shortfallText(x: {
  unpriced: string;
  planned: number;
  requested: number;
  window: number;
  limitName: string;
  limit: number | undefined;
  contiguous: boolean;
  minBlock: number;
  busy: boolean;
}): string | null {
  if (x.planned >= x.requested) return null;
  const [planned, requested] = runTimeTexts(x.planned, x.requested);
  const head = x.planned === 0 ? `nothing of ${requested} could be planned` : `only ${planned} of ${requested} planned`;
  const window = runTimeText(x.window);
  if (x.planned === x.window) return `${head}: the window is ${window} long`;
  if (x.minBlock > x.window) return `${head}: the window (${window}) is shorter than the minimum block (${hours(x.minBlock)})`;
  const how = x.contiguous ? ' in one block' : x.minBlock > 0 ? ` in blocks of at least ${hours(x.minBlock)}` : '';
  const why =
    x.limit === undefined ? x.unpriced : `the price is ${x.limitName === 'maxPrice' ? 'above' : 'below'} ${x.limit} or ${x.unpriced}`;
  const taken = x.busy ? ' (or the time is taken by the configured plan)' : '';
  const short = x.requested > x.window ? ` (the window is ${window} long)` : '';
  return `${head}${how}: ${why}${taken} in the rest of the window${short}`;
}

/**
 * Running `planned` ms from `from` in one block, whatever the price (its cost `net`, null
 * when part of it has no price), against the plan's cost.
 */
function startingNow(
  net: number | null,
  from: number,
  planned: number,
  planNet: number,
  vat: number,
  sign: number,
): PlanResult['comparedToNow'] {
  if (planned === 0 || net === null) return null;
  const saving = sign * (net - planNet);
  return { from, to: from + planned, net, gross: grossOf(net, vat), saving, savingGross: grossOf(saving, vat) };
}

/** An amount with `vat` per cent added (a function of its own, not a closure made per plan). */
const grossOf = (x: number, vat: number): number => x * (1 + vat / 100);

/**
 * What running from `from` to `end` costs (price × hours), read from the window's
 * segments (the walk's own instants, not yet on whole ms, the first at `from`): end is at
 * most the window's end, so they hold [from, end). Null when part of it has no price.
 */
function segmentsCostFrom(segments: WindowSegments, end: number): number | null {
  const { starts, prices, length } = segments;
  return length === 0 ? 0 : costFrom(starts, prices, length, 0, starts[0], end);
}

/** The window's priced segments within the limit, prices multiplied by sign, as plan-segments' pushUsable makes them. */
function usablePieces(segments: WindowSegments, to: number, signedLimit: number | undefined, sign: number): UsablePieces {
  const out = UsablePieces.forCount(segments.length);
  pushUsable(out, segments.starts, segments.prices, segments.length, to, signedLimit, sign);
  return out;
}

/** No busy spans: one empty list for every plan without any (never changed). */
const NO_BUSY: ReadonlyArray<{ from: number; to: number }> = Object.freeze([]);

/**
 * The busy spans as given: an array (absent or null: none) of at most MAX_PLAN_SEGMENTS
 * { from, to } instants; anything else is an error naming the entry, before any work. A
 * span that is empty or ends before it starts takes no time.
 */
function planBusy(value: unknown): ReadonlyArray<{ from: number; to: number }> {
  if (value === undefined || value === null) return NO_BUSY;
  if (!Array.isArray(value)) throw new TypeError(`busy must be an array of { from, to } spans, got ${describe(value)}`);
  if (value.length > MAX_PLAN_SEGMENTS) {
    throw new RangeError(`busy holds ${groupDigits(value.length)} spans, more than ${groupDigits(MAX_PLAN_SEGMENTS)}`);
  }
  return value.map((span: unknown, i) => {
    if (typeof span !== 'object' || span === null) throw new TypeError(`busy[${i}] must be a { from, to } span, got ${describe(span)}`);
    const { from, to } = span as { from?: unknown; to?: unknown };
    return { from: requireEpochMs(from, `busy[${i}].from`), to: requireEpochMs(to, `busy[${i}].to`) };
  });
}

/** The pieces (in time order) less the busy times (sorted or not): what is left of each, in order. */
function withoutBusy(pieces: Piece[], busy: ReadonlyArray<{ from: number; to: number }>): Piece[] {
  if (busy.length === 0) return pieces;
  // the busy times merged into disjoint spans in time order, so each piece starts where the last left off
  const cuts: Array<{ from: number; to: number }> = [];
  // (each widened to the whole ms that cover it: plans are whole ms, semantics rule 27)
  for (const c of [...busy].filter((b) => b.to > b.from).sort((a, b) => a.from - b.from)) {
    const from = Math.floor(c.from / PLAN_RESOLUTION_MS) * PLAN_RESOLUTION_MS;
    const to = Math.ceil(c.to / PLAN_RESOLUTION_MS) * PLAN_RESOLUTION_MS;
    const last = cuts[cuts.length - 1];
    if (last && from <= last.to) last.to = Math.max(last.to, to);
    else cuts.push({ from, to });
  }
  const out: Piece[] = [];
  let first = 0;
  let lastFrom = -Infinity;
  for (const p of pieces) {
    if (p.from < lastFrom) first = 0; // out of order after all: look from the first span again
    lastFrom = p.from;
    while (first < cuts.length && cuts[first].to <= p.from) first++;
    let at = p.from;
    for (let i = first; i < cuts.length && cuts[i].from < p.to; i++) {
      if (cuts[i].from > at) out.push({ from: at, to: cuts[i].from, price: p.price });
      at = Math.max(at, cuts[i].to);
      if (at >= p.to) break;
    }
    if (at < p.to) out.push({ from: at, to: p.to, price: p.price });
  }
  return out;
}

/** Pieces that touch become one slot priced by their time-weighted average. */
export function mergeSlots(pieces: Piece[]): PlanSlot[] {
  return summed(pieces).slots;
}

/**
 * A plan's pieces in one pass: their slots (mergeSlots), the run time, and the net cost
 * of 1 kW (Σ price × hours, in the pieces' order).
 */
function summed(pieces: Piece[]): { slots: PlanSlot[]; planned: number; net: number } {
  const slots: PlanSlot[] = [];
  let planned = 0;
  let net = 0;
  const n = pieces.length;
  for (let k = 0; k < n;) {
    const first = pieces[k];
    const from = first.from;
    let to = first.to;
    let priceMs = first.price * (to - from);
    // (the hour a literal: an imported constant is read from its module at every step)
    net += first.price * ((to - from) / 3_600_000);
    for (k++; k < n && pieces[k].from === to; k++) {
      const p = pieces[k];
      priceMs += p.price * (p.to - p.from);
      net += p.price * ((p.to - p.from) / 3_600_000);
      to = p.to;
    }
    planned += to - from;
    slots.push({ from, to, price: priceMs / (to - from) });
  }
  return { slots, planned, net };
}

/**
 * A run time as a person reads it: to the nearest minute from a minute on (`1 h 47 min`,
 * not `1 h 46 min 44.769 s`: a re-plan at any instant leaves odd seconds that mean
 * nothing), exact below (`20 s`, `0.5 s`).
 */
export function runTimeText(ms: number): string {
  return ms >= 59_500 ? hours(Math.round(ms / 60_000) * 60_000) : hours(ms);
}

/** Two run times compared in one text (`only A of B`): to the minute, exact where rounding would make them read alike. */
export function runTimeTexts(less: number, more: number): [string, string] {
  const rounded: [string, string] = [runTimeText(less), runTimeText(more)];
  return rounded[0] === rounded[1] && less !== more ? [hours(less), hours(more)] : rounded;
}
