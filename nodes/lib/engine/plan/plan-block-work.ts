// What the minimum-block search works with and may cost: the usable pieces of a window,
// the most run time blocks of at least a minimum can fill, and the upper bound of the
// search's steps that is counted before it starts (MAX_PLAN_WORK) and refused above it.
import { MAX_PLAN_WORK } from '../common/limits';
import { groupDigits } from '../common/format';

/** The greatest common divisor of two whole numbers of ms: the lattice the searches run on. */
export const gcd = (a: number, b: number): number => {
  while (b) [a, b] = [b, a % b];
  return a;
};

export interface Piece {
  from: number;
  to: number;
  price: number;
}

/** The usable time as maximal stretches (any prices), in ms. */
function stretches(usable: Piece[]): Array<{ from: number; to: number }> {
  const out: Array<{ from: number; to: number }> = [];
  for (const p of usable) {
    const last = out[out.length - 1];
    if (last && last.to === p.from) last.to = p.to;
    else out.push({ from: p.from, to: p.to });
  }
  return out;
}

/**
 * The most run time, at most `duration`, that blocks of at least minBlock can fill: a
 * stretch of usable time of length l holds any total in {0} ∪ [m, l], so the best is the
 * k longest stretches of at least m with k = ⌊duration / m⌋, capped at duration.
 */
export function blockedCapacity(usable: Piece[], duration: number, minBlock: number): number {
  const lengths = stretches(usable)
    .map((s) => s.to - s.from)
    .filter((l) => l >= minBlock)
    .sort((a, b) => b - a);
  const k = Math.min(lengths.length, Math.floor(duration / minBlock));
  let sum = 0;
  for (let i = 0; i < k; i++) sum += lengths[i];
  return Math.min(duration, sum);
}

/**
 * What one move of one residue class costs besides its inner loop (finding the target
 * slot, the move's own cost), in inner-loop steps: measured, the inner loop's steps being
 * the cheapest thing the search does.
 */
export const MOVE_SETUP_STEPS = 8;

/**
 * An upper bound of the steps the search takes: for every cell, mode (off, in a block)
 * and flex state (free end used or not), every residue class tries every move, and each
 * move runs its inner loop over at most all planned units. The test counts the steps the
 * search really takes against this.
 */
export function blockWork(cells: number, units: number, residues0: number, residues1: number, flexAmounts: number): number {
  const movesFlex0 = 2 + flexAmounts;
  const perCell = 2 * (residues0 * movesFlex0 + (flexAmounts > 0 ? residues1 * 2 : 0)) * (units + MOVE_SETUP_STEPS);
  return cells * perCell;
}

/** What cheapestBlocks did: the work counted before it started, the steps it took and the blocks it counted (tests). */
export interface BlockStats {
  work: number;
  steps: number;
  /** The blocks the search counted for the plan it found (rule 31: the fewest of the cheapest). */
  blocks?: number;
}

/** A lattice step for people: `1 s`, `250 ms`. */
export const gridText = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

export class BlockWorkError extends RangeError {
  constructor(work: number, h: number) {
    super(
      `this plan needs ${groupDigits(work)} search steps, more than ${groupDigits(MAX_PLAN_WORK)}: ` +
        `prices and the minimum block line up only every ${gridText(h)}; use a minimum block that is a multiple of the price steps ` +
        `(such as 15 min or 1 h), a shorter duration or a shorter window`,
    );
  }
}
