// The site's two directions (and its production) settled as a stream goes (semantics rules
// 48 and 64): every interval a meter counts is told here (totals.ts's IntervalObserver), its
// energy shared by time among settlement intervals (rule 40's share) or put whole in the
// month it starts in (rule 11); each slot touched is netted again with net-cost.ts's
// netInterval / netPeriod, and what that changed is added to the site's day, week, month and
// total. Late readings take their old interval away and add the new ones, so the sums end up
// those of the readings whatever order they came in. Pure: pricing is the caller's.
import type { CostRow, IntervalObserver } from '../cost/totals';
import { windowShare } from '../peak/demand';
import { windowOfIn } from '../peak/demand-window';
import { localPeriodIn, zoneInfo, ZoneInfo } from '../time/time';
import { isStoredInstant } from '../common/stored-checks';
import { MINUTE_MS } from '../time/time-instant';
import { netInterval, Netting, netPeriod } from './net-cost';

export type LedgerSide = 'import' | 'export' | 'production';
const SIDES: readonly LedgerSide[] = ['import', 'export', 'production'];

/** What the ledger adds up per period (NetSums) and per slot, in this order. */
const FIELDS = [
  'importEnergy',
  'importNet',
  'importCost',
  'exportEnergy',
  'exportNet',
  'exportCredit',
  'oneSided',
  'production',
  'selfConsumption',
] as const;
type Field = (typeof FIELDS)[number];
const WIDTH = FIELDS.length;
const AT: Record<Field, number> = Object.fromEntries(FIELDS.map((f, k) => [f, k])) as Record<Field, number>;

/** One period's sums (rule 48 after netting; rule 64 production and self-consumption), `to` null for the total. */
export type NetSums = Record<Field, number> & { from: number; to: number | null };

/** How a netted remainder is priced: `kWh` bought (import) or sold (export) over [from, to). */
export type NetPricer = (
  side: 'import' | 'export',
  kWh: number,
  from: number,
  to: number,
) => { energy: number; net: number; gross: number; unpricedEnergy?: number };

/** A side's sums in a slot: kWh, net, gross, ms its intervals cover. */
const SIDE_WIDTH = 4;

interface Slot {
  from: number;
  to: number;
  /** import, export, production: SIDE_WIDTH each. */
  sides: Float64Array;
  /** What the slot adds to the period sums (FIELDS). */
  adds: Float64Array;
  /** What 1 kWh left after netting costs here (import net, gross) and earns (export net, gross); NaN until asked. */
  unit: Float64Array;
  dirty: boolean;
}

export interface LedgerSettings {
  netting: Netting;
  /** The settlement interval (interval netting, self-consumption). */
  minutes: 15 | 30 | 60;
  /**
   * Whether production meters are set (rule 64): settlement intervals are kept from the start
   * for the self-consumption, whatever the netting. Without, `period` netting keeps months
   * alone (rule 48), until a production meter comes (msg.direction) and turns them on.
   */
  production: boolean;
  /** Names what the stored state was counted at (netting, minutes, export price): another starts from zero. */
  key: string;
}

const PERIOD_NAMES = ['day', 'week', 'month'] as const;
type PeriodName = (typeof PERIOD_NAMES)[number];

/**
 * The most slots of each kind kept: 4 days of quarter hours, twice a late reading's reach
 * (WINDOW_MS); a meter silent for longer has its oldest slots let go (netted as they stand).
 */
export const MAX_SLOTS = 400;

/** A map of slots (settlement intervals or months) by their start. */
class Slots {
  readonly byFrom = new Map<number, Slot>();

  constructor(readonly slotOf: (ms: number) => { from: number; to: number }) {}

  at(ms: number): Slot {
    const { from, to } = this.slotOf(ms);
    let slot = this.byFrom.get(from);
    if (!slot) {
      slot = {
        from,
        to,
        sides: new Float64Array(3 * SIDE_WIDTH),
        adds: new Float64Array(WIDTH),
        unit: new Float64Array(4).fill(NaN),
        dirty: false,
      };
      this.byFrom.set(from, slot);
    }
    return slot;
  }
}

export class NetLedger {
  /** Settlement intervals: interval netting and self-consumption (made when the first production meter comes). */
  private intervals: Slots | null;
  /** Months: period netting. */
  private readonly months: Slots | null;
  private readonly zone: ZoneInfo;
  private readonly sums: Record<PeriodName | 'total', NetSums | null> = { day: null, week: null, month: null, total: null };
  private readonly dirty: Slot[] = [];
  private newest: number | null = null;

  constructor(
    readonly settings: LedgerSettings,
    readonly timezone: string,
  ) {
    this.zone = zoneInfo(timezone);
    this.intervals = settings.netting === 'interval' || settings.production ? this.newIntervals() : null;
    this.months = settings.netting === 'period' ? new Slots((ms) => localPeriodIn(this.zone, 'month', ms)) : null;
  }

  /** Whether the ledger counts anything (netting per interval or month, or production). */
  static wanted(settings: Pick<LedgerSettings, 'netting' | 'production'>): boolean {
    return settings.netting !== 'none' || settings.production;
  }

  private newIntervals(): Slots {
    const stepMs = this.settings.minutes * MINUTE_MS;
    return new Slots((ms) => windowOfIn(this.zone, stepMs, ms));
  }

  /** The observer of one meter's intervals counted in `side` (a production meter's turns the settlement intervals on). */
  observer(side: LedgerSide): IntervalObserver {
    const s = SIDES.indexOf(side) * SIDE_WIDTH;
    if (side === 'production' && !this.intervals) this.intervals = this.newIntervals();
    return (from, to, row, sign) => {
      if (this.intervals) this.share(this.intervals, s, from, to, row, sign);
      if (this.months && side !== 'production') {
        const slot = this.months.at(from);
        for (let k = 0; k < 3; k++) slot.sides[s + k] += sign * row[k];
        this.touch(slot);
      }
    };
  }

  /** An interval's energy shared by time among the settlement intervals it overlaps (rule 40), the time it covers in each. */
  private share(slots: Slots, s: number, from: number, to: number, row: CostRow, sign: 1 | -1): void {
    for (let at = from; at < to;) {
      const slot = slots.at(at);
      const part = windowShare(row[0], from, to, slot.from, slot.to);
      slot.sides[s] += sign * part;
      slot.sides[s + 3] += sign * (Math.min(to, slot.to) - Math.max(from, slot.from));
      this.touch(slot);
      at = slot.to;
    }
  }

  private touch(slot: Slot): void {
    if (!slot.dirty) this.dirty.push(slot);
    slot.dirty = true;
  }

  /**
   * Every slot touched since the last call netted again (interval netting priced by `price`),
   * what changed added to the periods it starts in that are still open and to the total;
   * then the periods moved on to the ones containing `newest` (the site's newest reading).
   */
  settle(price: NetPricer, newest: number): void {
    this.dirty.sort((a, b) => a.from - b.from);
    const next = new Float64Array(WIDTH);
    for (const slot of this.dirty) {
      slot.dirty = false;
      next.fill(0);
      this.slotAdds(slot, price, next);
      this.moveTo(slot.from);
      const monthOnly = this.months !== null && this.months.byFrom.get(slot.from) === slot;
      for (const name of ['day', 'week', 'month', 'total'] as const) {
        const b = this.sums[name];
        if (b && name === 'total')
          b.from = Math.min(b.from, slot.from); // a late reading before the first
        else if (!b || slot.from < b.from || slot.from >= b.to!) continue;
        if (monthOnly && (name === 'day' || name === 'week')) continue; // a month's netting is no day's
        for (let k = 0; k < WIDTH; k++) (b as Record<Field, number>)[FIELDS[k]] += next[k] - slot.adds[k];
      }
      slot.adds.set(next);
    }
    this.dirty.length = 0;
    this.moveTo(newest);
  }

  /** What one slot adds: its netting (interval or month), its production and self-consumption. */
  private slotAdds(slot: Slot, price: NetPricer, out: Float64Array): void {
    const [impE, impNet, impGross, impCovered, expE, expNet, expGross, expCovered, prodE] = slot.sides;
    if (this.months?.byFrom.get(slot.from) === slot) {
      const left = netPeriod({ energy: impE, net: impNet, gross: impGross }, { energy: expE, net: expNet, gross: expGross });
      for (const f of ['importEnergy', 'importNet', 'importCost', 'exportEnergy', 'exportNet', 'exportCredit'] as const)
        out[AT[f]] = left[f];
      return;
    }
    if (this.settings.netting === 'interval') {
      // the price of what is left is linear in its kWh (rule 48: a reading pair at the slot's ends): asked once a slot and side
      const left = netInterval(Math.max(0, impE), Math.max(0, expE));
      if (left.imported > 0) {
        const [net, gross] = unitPrice(slot, 0, () => price('import', 1, slot.from, slot.to));
        out[AT.importEnergy] = left.imported;
        out[AT.importNet] = left.imported * net;
        out[AT.importCost] = left.imported * gross;
      }
      if (left.exported > 0) {
        const [net, gross] = unitPrice(slot, 2, () => price('export', 1, slot.from, slot.to));
        out[AT.exportEnergy] = left.exported;
        out[AT.exportNet] = left.exported * net;
        out[AT.exportCredit] = left.exported * gross;
      }
      const length = slot.to - slot.from;
      out[AT.oneSided] = impCovered >= length !== expCovered >= length ? 1 : 0;
    }
    // no production meter: 0 and 0
    out[AT.production] = prodE;
    out[AT.selfConsumption] = Math.max(0, prodE - Math.max(0, expE));
  }

  /** Each period moves on to the one containing `ms` when it lies after it (a new one starts from zero). */
  private moveTo(ms: number): void {
    if (this.newest !== null && ms <= this.newest) return;
    this.newest = ms;
    for (const name of PERIOD_NAMES) {
      const b = this.sums[name];
      if (b && ms < b.to!) continue;
      const { from, to } = localPeriodIn(this.zone, name, ms);
      this.sums[name] = emptySums(from, to);
    }
    if (!this.sums.total) this.sums.total = emptySums(ms, null);
  }

  /** Lets go of slots that end at or before `ms` (no reading can reach them now) and keeps at most MAX_SLOTS of each kind. */
  forgetBefore(ms: number): void {
    for (const slots of [this.intervals, this.months]) {
      if (!slots) continue;
      for (const [from, slot] of slots.byFrom) if (slot.to <= ms && !slot.dirty) slots.byFrom.delete(from);
      if (slots.byFrom.size > MAX_SLOTS) {
        const froms = [...slots.byFrom.keys()].sort((a, b) => a - b);
        for (const from of froms.slice(0, froms.length - MAX_SLOTS)) if (!slots.byFrom.get(from)!.dirty) slots.byFrom.delete(from);
      }
    }
  }

  /** Every period's sums (copies): the ones containing the newest settled instant, and the total. */
  periods(): Record<PeriodName | 'total', NetSums | null> {
    const copy = (b: NetSums | null) => (b ? { ...b } : null);
    return { day: copy(this.sums.day), week: copy(this.sums.week), month: copy(this.sums.month), total: copy(this.sums.total) };
  }

  /** How many slots are kept (tests, budgets). */
  get slotCount(): number {
    return (this.intervals?.byFrom.size ?? 0) + (this.months?.byFrom.size ?? 0);
  }

  /**
   * One compact line for the store: the settings' key, the newest instant, the total's start,
   * the periods' sums, and the slots ending after `keepFrom` (what a reading after a restart
   * can still reach: the oldest reading stored of any meter).
   */
  encode(keepFrom: number): string {
    const sums = [this.sums.day, this.sums.week, this.sums.month, this.sums.total].map((b) => (b ? FIELDS.map((f) => b[f]) : null));
    const flat = (slots: Slots | null) => {
      if (!slots) return null;
      const out: number[] = [];
      for (const slot of slots.byFrom.values()) if (slot.to > keepFrom) out.push(slot.from, ...slot.sides, ...slot.adds);
      return out;
    };
    return JSON.stringify([this.settings.key, this.newest, this.sums.total?.from ?? null, sums, flat(this.intervals), flat(this.months)]);
  }

  /** A stored line read back into this (empty) ledger, checked as data from outside; a problem in words, or null. */
  restore(text: unknown, now: number): string | null {
    if (typeof text !== 'string') return 'not a stored line';
    let line: unknown;
    try {
      line = JSON.parse(text);
    } catch {
      return 'not JSON';
    }
    if (!Array.isArray(line) || line.length !== 6) return 'not a stored line';
    const [key, newest, totalFrom, sums, intervals, months] = line as unknown[];
    if (key !== this.settings.key) return 'counted with other netting, production or export settings';
    // finite, and far below what would overflow a sum (instants are ~1.8e12)
    const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && Math.abs(x) < 1e15;
    const numbers = (x: unknown, width: number): x is number[] => Array.isArray(x) && x.length % width === 0 && x.every(finite);
    if (newest === null) return null;
    // near now and at most a year ahead (stored under a later clock), as every store's instants
    if (!isStoredInstant(newest, now)) return 'its newest instant is no instant near now, or more than a year ahead';
    if (!finite(totalFrom) || totalFrom > newest) return 'not a stored line';
    if (!Array.isArray(sums) || sums.length !== 4 || !sums.every((b) => b === null || (numbers(b, WIDTH) && b.length === WIDTH)))
      return 'its sums are not numbers';
    const slotWidth = 1 + 3 * SIDE_WIDTH + WIDTH;
    // settlement intervals stored by a ledger a production meter turned them on in; none stored under month netting: none yet.
    // Ones that hold no production were kept for none (a line stored while the stream forced production on): let go, they add 0
    let stored = intervals;
    if (intervals !== null && !this.intervals && this.settings.netting !== 'interval') {
      if (!numbers(intervals, slotWidth)) return 'its slots are not what this node keeps';
      if (holdsProduction(intervals, slotWidth)) this.intervals = this.newIntervals();
      else stored = null;
    }
    const noIntervals = stored === null && this.settings.netting !== 'interval';
    for (const [flat, slots] of [
      [stored, this.intervals],
      [months, this.months],
    ] as const) {
      if (flat === null && (slots === null || (slots === this.intervals && noIntervals))) continue;
      if (!numbers(flat, slotWidth) || !slots || flat.length / slotWidth > MAX_SLOTS) return 'its slots are not what this node keeps';
      for (let i = 0; i < flat.length; i += slotWidth) {
        const slot = slots.at(flat[i]);
        if (slot.from !== flat[i] || slot.from > newest) return 'its slots are not what this node keeps';
        slot.sides.set(flat.slice(i + 1, i + 1 + 3 * SIDE_WIDTH));
        slot.adds.set(flat.slice(i + 1 + 3 * SIDE_WIDTH, i + slotWidth));
      }
    }
    this.newest = newest;
    PERIOD_NAMES.forEach((name, k) => {
      const b = sums[k] as number[] | null;
      this.sums[name] = b ? fromRow(localPeriodIn(this.zone, name, newest), b) : null;
    });
    this.sums.total = sums[3] ? fromRow({ from: totalFrom, to: null }, sums[3] as number[]) : null;
    return null;
  }
}

/** Whether flat stored slots hold a production meter's intervals: its kWh or the time they cover (a night's 0 kWh covers time). */
function holdsProduction(flat: readonly number[], slotWidth: number): boolean {
  const at = 1 + SIDES.indexOf('production') * SIDE_WIDTH;
  for (let i = 0; i < flat.length; i += slotWidth) if (flat[i + at] !== 0 || flat[i + at + 3] !== 0) return true;
  return false;
}

/** A slot's price of 1 kWh on one side (net, gross), asked once; not kept while (partly) unpriced: a price list may still come. */
function unitPrice(slot: Slot, at: 0 | 2, ask: () => ReturnType<NetPricer>): [number, number] {
  if (!Number.isNaN(slot.unit[at])) return [slot.unit[at], slot.unit[at + 1]];
  const p = ask();
  if (!(p.unpricedEnergy! > 0)) {
    slot.unit[at] = p.net;
    slot.unit[at + 1] = p.gross;
  }
  return [p.net, p.gross];
}

function emptySums(from: number, to: number | null): NetSums {
  const b = { from, to } as NetSums;
  for (const f of FIELDS) b[f] = 0;
  return b;
}

function fromRow(bounds: { from: number; to: number | null }, row: number[]): NetSums {
  const b = emptySums(bounds.from, bounds.to);
  FIELDS.forEach((f, k) => (b[f] = row[k]));
  return b;
}
