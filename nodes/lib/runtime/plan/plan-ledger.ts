// easy-plan's promises, free of timers and Node-RED: what has run, what each request is
// still owed, and the next plan for what is owed. Three kinds of request share one
// schedule of pieces (each piece one price, tagged with the request it serves):
// - the configured plan: `requested` run time in its window (daily or rolling);
// - a one-off from a message (msg.duration/from/until): its run time in its own span,
//   counted from when it was asked (a past run never counts against it), *more* than
//   the configured plan: planned in the time the configured plan leaves free;
// - a boost: on from now for its run time, then back to the plans.
// The configured plan counts its own and the boosts' run time in its window (never a
// one-off's), so it never repeats its duration after a boost and a "more" never takes
// from it; a one-off counts its own run time.
// Re-planning keeps the past, lets a running block run at least its minimum (in one-block
// mode to its end), and plans only what is still owed, from then on.

import { PlanResult, runTimeText, runTimeTexts } from '../../engine/plan/plan';
import { BlockWorkError } from '../../engine/plan/plan-block-work';
import type { Cycle, OneOff } from './plan-settings';

export type Owner = 'plan' | 'once' | 'boost';

export interface LedgerPiece {
  from: number;
  to: number;
  /** Net price per kWh; null where no rule prices (a boost may run there). */
  price: number | null;
  owner: Owner;
}

export interface Ledger {
  /** The configured plan's current window. */
  cycle: Cycle;
  /** 'cancel' was asked: the configured plan owes nothing more in this window. */
  cancelled: boolean;
  once: OneOff | null;
  boost: { from: number; to: number } | null;
  /** Sorted, never overlapping. */
  pieces: LedgerPiece[];
}

export interface Planner {
  /**
   * The plan for `duration` (> 0, at most to − from) in [from, to) outside `busy`: in one
   * block, or in blocks of at least `minBlock` (`runningAtFrom`: the load runs just before
   * `from`, so a block from `from` is no new start).
   */
  plan(
    from: number,
    to: number,
    duration: number,
    block: { contiguous: boolean; minBlock: number; runningAtFrom?: boolean },
    busy?: ReadonlyArray<{ from: number; to: number }>,
  ): PlanResult;
  /** The priced pieces of [from, to), for a boost (which runs whatever the price). */
  priced(from: number, to: number): Array<{ from: number; to: number; price: number | null }>;
}

export interface ReplanOptions {
  contiguous: boolean;
  minBlockMs: number;
}

export interface Replanned {
  ledger: Ledger;
  /** The fresh plan of the request shown (the one-off while it lasts, else the configured plan); null when nothing was planned. */
  result: PlanResult | null;
  /** Why less than owed is planned, for each request short of it; null when none is. */
  shortfall: string | null;
}

/** Run time of `pieces` inside [a, b). */
export function timeIn(pieces: ReadonlyArray<{ from: number; to: number }>, a: number, b: number): number {
  let sum = 0;
  for (const p of pieces) sum += Math.max(0, Math.min(b, p.to) - Math.max(a, p.from));
  return sum;
}

const clipTo = (pieces: LedgerPiece[], a: number, b: number): LedgerPiece[] =>
  pieces.filter((p) => p.to > a && p.from < b).map((p) => ({ ...p, from: Math.max(a, p.from), to: Math.min(b, p.to) }));

/** The piece running at `now` and the block it belongs to (touching pieces of the same request). */
export function runningBlock(pieces: LedgerPiece[], now: number): { owner: Owner; from: number; to: number } | null {
  const i = pieces.findIndex((p) => p.from <= now && now < p.to);
  if (i < 0) return null;
  const owner = pieces[i].owner;
  let first = i;
  while (first > 0 && pieces[first - 1].to === pieces[first].from && pieces[first - 1].owner === owner) first--;
  let last = i;
  while (last + 1 < pieces.length && pieces[last + 1].from === pieces[last].to && pieces[last + 1].owner === owner) last++;
  return { owner, from: pieces[first].from, to: pieces[last].to };
}

/**
 * Plans again at `now`: keeps what has run, commits the running block for as long as it
 * must still run, and plans what each request is still owed from then on.
 */
export function replanLedger(ledger: Ledger, now: number, planner: Planner, opts: ReplanOptions): Replanned {
  const { cycle } = ledger;
  const once = ledger.once && ledger.once.to > now ? ledger.once : null;
  const boost = ledger.boost && ledger.boost.to > now ? ledger.boost : null;
  const past = clipTo(ledger.pieces, -Infinity, now);
  // a running block runs at least its minimum, and in one-block mode to its end
  let committedTo = now;
  const running = runningBlock(ledger.pieces, now);
  if (running && running.owner !== 'boost') {
    if (opts.contiguous) committedTo = running.to;
    else if (opts.minBlockMs > 0) committedTo = Math.min(running.to, Math.max(now, running.from + opts.minBlockMs));
  }
  const boostPieces: LedgerPiece[] = boost
    ? planner.priced(Math.max(now, boost.from), boost.to).map((p) => ({ ...p, owner: 'boost' as const }))
    : [];
  const freeFrom = Math.max(committedTo, boost ? boost.to : now);
  const committed = clipTo(ledger.pieces, Math.max(now, boost ? boost.to : now), committedTo);
  let scheduled = sortPieces([...past, ...boostPieces, ...committed]);
  const shortfalls: string[] = [];
  let shown: PlanResult | null = null;

  /** Plans `owed` for `owner` in [from, to) outside `busy`; keeps a begun one-block plan as it was. */
  const planFor = (
    owner: Owner,
    spanFrom: number,
    from: number,
    to: number,
    owed: number,
    what: string,
    busy: LedgerPiece[] = [],
  ): PlanResult | null => {
    const begun = timeIn(
      past.filter((p) => p.owner === owner),
      spanFrom,
      to,
    );
    if (opts.contiguous && begun > 0) {
      // one block already begun is not planned again: it runs to its end
      scheduled = sortPieces([...scheduled, ...clipTo(ledger.pieces, freeFrom, to).filter((p) => p.owner === owner)]);
      return null;
    }
    if (owed <= 0) return null;
    const room = Math.max(0, to - from - timeIn(busy, from, to));
    const fits = Math.min(owed, room);
    if (fits <= 0) {
      shortfalls.push(`${what}: nothing of ${runTimeText(owed)} could be planned: no free time is left in the window`);
      return null;
    }
    // what is left to run after a running block, shorter than the minimum, continues that block
    const continues = running !== null && running.owner === owner && committedTo === from && fits < opts.minBlockMs;
    // a rest no longer than the minimum block is one block of the rest
    const oneBlock = opts.contiguous || (opts.minBlockMs > 0 && fits <= opts.minBlockMs);
    // the load runs up to `from` (a block running or just committed): a block from there goes on
    // with it, no new switching (rule 31)
    const runningAtFrom = scheduled.some((p) => p.to === from);
    const result = continues
      ? planner.plan(from, from + fits, fits, { contiguous: false, minBlock: 0 }, busy)
      : planBlocks(planner, from, to, fits, { contiguous: oneBlock, minBlock: oneBlock ? 0 : opts.minBlockMs, runningAtFrom }, busy);
    if (fits < owed) {
      const [left, wanted] = runTimeTexts(room, owed);
      // "all of it is planned" only when the price limit or a minimum block left nothing out
      const all = result.planned === fits ? ': all of it is planned' : '';
      shortfalls.push(
        from <= spanFrom
          ? `${what}: the window (${left}) is shorter than the run time (${wanted})${all}`
          : `${what}: only ${left} of the window is left for ${wanted}`,
      );
    }
    if (result.shortfall) shortfalls.push(`${what}: ${result.shortfall}`);
    scheduled = sortPieces([...scheduled, ...result.pieces.map((p) => ({ from: p.from, to: p.to, price: p.price, owner }))]);
    return result;
  };

  const ownedBy = (owners: Owner[]) => scheduled.filter((p) => owners.includes(p.owner));
  // the configured plan first: its window owes its run time less its own and the boosts' run time there
  const planFrom = Math.max(freeFrom, cycle.from);
  if (!ledger.cancelled && planFrom < cycle.to) {
    const owed = cycle.requested - timeIn(ownedBy(['plan', 'boost']), cycle.from, cycle.to);
    shown = planFor('plan', cycle.from, planFrom, cycle.to, owed, 'the configured plan');
  }
  // a one-off is more: its own run time in its span, outside what the other requests hold
  if (once) {
    const owed = once.requested - timeIn(ownedBy(['once']), once.from, once.to);
    const from = Math.max(freeFrom, once.from);
    const busy = clipTo(ownedBy(['plan', 'boost']), from, once.to);
    shown = planFor('once', once.from, from, once.to, owed, 'this message', busy);
  }
  return {
    ledger: { ...ledger, once, boost, pieces: scheduled },
    result: shown,
    shortfall: shortfalls.length ? shortfalls.join('; ') : null,
  };
}

/**
 * The ledger after the wall clock stepped from `before` to `now` (docs/semantics.md, "Clock
 * steps"), so that what it counts as run is what the relay did:
 * - forward: the span the clock skipped, [before, now), was never lived: its slots did not
 *   run and are cut out (what ran before the step stays);
 * - back: the slots of [now, before) ran, but now lie ahead of the clock: they are taken
 *   out, and their run time is taken off what their request still owes (the window's run
 *   time, the one-off's), so that they neither run again nor count twice.
 * A boost is a run time from when it was asked: its span moves with the clock, keeping
 * what it has left. The slots after the step are planned again by the caller.
 */
export function steppedLedger(l: Ledger, before: number, now: number): Ledger {
  const by = now - before;
  const boost = l.boost ? { from: l.boost.from + by, to: l.boost.to + by } : null;
  const lived = (a: number, b: number) => [...clipTo(l.pieces, -Infinity, a), ...clipTo(l.pieces, b, Infinity)];
  if (by >= 0) return { ...l, boost, pieces: sortPieces(lived(before, now)) };
  const ranAhead = clipTo(l.pieces, now, before);
  const ran = (owners: Owner[], span: { from: number; to: number }) =>
    timeIn(
      ranAhead.filter((p) => owners.includes(p.owner)),
      span.from,
      span.to,
    );
  const cycle = { ...l.cycle, requested: Math.max(0, l.cycle.requested - ran(['plan', 'boost'], l.cycle)) };
  const once = l.once ? { ...l.once, requested: Math.max(0, l.once.requested - ran(['once'], l.once)) } : null;
  return { ...l, cycle, once, boost, pieces: sortPieces(lived(now, before)) };
}

/**
 * Blocks of at least the minimum around another request's slots: where those cut the span
 * off the price grid (re-plans at any ms) the exact search's lattice would be too fine, and
 * the one-off runs in one block instead (never shorter than the minimum where it fits).
 */
function planBlocks(
  planner: Planner,
  from: number,
  to: number,
  fits: number,
  block: { contiguous: boolean; minBlock: number; runningAtFrom?: boolean },
  busy: LedgerPiece[],
): PlanResult {
  try {
    return planner.plan(from, to, fits, block, busy);
  } catch (err) {
    if (busy.length === 0 || block.contiguous || !(err instanceof BlockWorkError)) throw err;
    return planner.plan(from, to, fits, { contiguous: true, minBlock: 0 }, busy);
  }
}

function sortPieces(pieces: LedgerPiece[]): LedgerPiece[] {
  return pieces.filter((p) => p.to > p.from).sort((a, b) => a.from - b.from);
}
