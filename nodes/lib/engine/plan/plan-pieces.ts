// A plan's usable pieces as parallel arrays (the one-block search reads them in a tight
// loop, no object per piece), with what that search reads off them: the cost of the pieces
// before each (a compensated running sum), the last piece of each run and of each stretch
// of pieces of one length (where a block of whole pieces lines up at every start). A window is a
// range of such arrays cut at its ends, so a stack's pieces over its whole list, kept with
// its walk, are searched in place: no copy, no sums per plan.
import type { Piece } from './plan-block-work';

/** The most pieces whose arrays are kept between plans (some 60 bytes each, with the sums). */
const KEPT_PIECES = 2048;
/** Pieces per entry of the table of largest prices. */
const BLOCK = 16;

/**
 * Pieces in time order, whole ms, each with one price (any number of runs: pieces that
 * touch). After sum(): costBefore(k) = sumHi[k] + sumLo[k] is Σ price × ms of the pieces
 * before k, as a sum and the rounding error it left (so a block's cost, a difference of
 * two such sums, is as exact wherever the block lies in a long list); runEnd[k] is the
 * last piece of k's run; evenEnd[k] the last piece of the stretch from k of pieces that
 * touch and are as long as k (a list's entries: a block of whole entries starting at
 * any of them ends on an entry's end); blockMax[i] the largest |price| of pieces i·16 to
 * i·16 + 15.
 * Plans run one at a time, so one set of arrays is reused from call to call while they
 * are small (up to KEPT_PIECES pieces, 120 kB); a larger plan gets its own.
 */
export class UsablePieces {
  readonly from: Float64Array;
  readonly to: Float64Array;
  readonly price: Float64Array;
  readonly sumHi: Float64Array;
  readonly sumLo: Float64Array;
  readonly runEnd: Int32Array;
  readonly evenEnd: Int32Array;
  readonly blockMax: Float64Array;
  length = 0;
  /** The length the sums were made for (-1: none since the pieces changed). */
  private summedLength = -1;

  private constructor(capacity: number) {
    this.from = new Float64Array(capacity);
    this.to = new Float64Array(capacity);
    this.price = new Float64Array(capacity);
    this.sumHi = new Float64Array(capacity + 1);
    this.sumLo = new Float64Array(capacity + 1);
    this.runEnd = new Int32Array(capacity);
    this.evenEnd = new Int32Array(capacity);
    this.blockMax = new Float64Array(Math.ceil(capacity / BLOCK));
  }

  private static kept: UsablePieces | null = null;

  /** Empty arrays for at most `count` pieces (the reused ones when they are large enough). */
  static forCount(count: number): UsablePieces {
    if (count > KEPT_PIECES) return new UsablePieces(count);
    const kept = (UsablePieces.kept ??= new UsablePieces(KEPT_PIECES));
    kept.length = 0;
    kept.summedLength = -1;
    return kept;
  }

  /** Empty arrays of their own for at most `count` pieces (to be kept: never reused by another plan). */
  static owned(count: number): UsablePieces {
    return new UsablePieces(count);
  }

  /** Pieces (in time order) as arrays. */
  static of(pieces: readonly Piece[]): UsablePieces {
    const out = UsablePieces.forCount(pieces.length);
    for (const p of pieces) out.push(p.from, p.to, p.price);
    return out;
  }

  push(from: number, to: number, price: number): void {
    const n = this.length++;
    this.from[n] = from;
    this.to[n] = to;
    this.price[n] = price;
    this.summedLength = -1;
  }

  /** Makes the sums, the runs, the stretches of one length and the table of largest prices for the pieces as they are (once). */
  sum(): void {
    const n = this.length;
    if (this.summedLength === n) return;
    const { from, to, price, sumHi, sumLo, runEnd, evenEnd, blockMax } = this;
    let hi = 0;
    let lo = 0;
    for (let k = 0; k < n; k++) {
      sumHi[k] = hi;
      sumLo[k] = lo;
      // TwoSum: s is hi + x rounded, the error it left goes to lo
      const x = price[k] * (to[k] - from[k]);
      const s = hi + x;
      const back = s - hi;
      lo += hi - (s - back) + (x - back);
      hi = s;
    }
    sumHi[n] = hi;
    sumLo[n] = lo;
    for (let k = n - 1; k >= 0; k--) {
      const touches = k + 1 < n && to[k] === from[k + 1];
      runEnd[k] = touches ? runEnd[k + 1] : k;
      evenEnd[k] = touches && to[k + 1] - from[k + 1] === to[k] - from[k] ? evenEnd[k + 1] : k;
    }
    for (let b = 0; b * BLOCK < n; b++) {
      let max = 0;
      for (let k = b * BLOCK; k < n && k < (b + 1) * BLOCK; k++) max = Math.max(max, Math.abs(price[k]));
      blockMax[b] = max;
    }
    this.summedLength = n;
  }

  /** All the pieces as a window. */
  window(): PieceWindow {
    const n = this.length;
    return { pieces: this, lo: 0, hi: n, from: n > 0 ? this.from[0] : 0, to: n > 0 ? this.to[n - 1] : 0 };
  }
}

/**
 * Pieces lo .. hi - 1 of `pieces`, the first cut to start at `from`, the last to end at
 * `to` (each still holds some time).
 */
export interface PieceWindow {
  pieces: UsablePieces;
  lo: number;
  hi: number;
  from: number;
  to: number;
}

/** Where piece k of the window starts and ends (its cut ends at the window's). */
export const startIn = (w: PieceWindow, k: number): number => (k === w.lo ? w.from : w.pieces.from[k]);
export const endIn = (w: PieceWindow, k: number): number => (k === w.hi - 1 ? w.to : w.pieces.to[k]);

/** The window's pieces as objects, for the searches that take them so. */
export function piecesOf(w: PieceWindow): Piece[] {
  const out: Piece[] = [];
  for (let k = w.lo; k < w.hi; k++) out.push({ from: startIn(w, k), to: endIn(w, k), price: w.pieces.price[k] });
  return out;
}

/** The largest |price| of the window's pieces (whole blocks of 16 read from the table; the pieces are summed). */
export function largestPrice(w: PieceWindow): number {
  const { price, blockMax } = w.pieces;
  let max = 0;
  for (let k = w.lo; k < w.hi;) {
    if (k % BLOCK === 0 && k + BLOCK <= w.hi) {
      max = Math.max(max, blockMax[k / BLOCK]);
      k += BLOCK;
    } else max = Math.max(max, Math.abs(price[k++]));
  }
  return max;
}
