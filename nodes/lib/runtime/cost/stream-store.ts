// What easy-cost's stream mode keeps across restarts, how often it hands it to the store,
// and how it reads what earlier versions stored. Node-RED-free: the store itself (the
// node's context) is injected.
//
// Made for flash (docs/semantics.md, "Stream totals on flash"): per meter only what a
// restart needs, as one compact line of text (Node-RED's localfilesystem store writes
// pretty-printed JSON, which would put every number of a list on a line of its own), and
// at most one save every SAVE_EVERY_MS plus one on close, never one per reading.
import { Bucket, CostRow, MAX_KEPT, PERIODS, periodBounds, TotalsState } from '../../engine/cost/totals';
import { checkStoredTotals, restoreTotals } from '../../engine/cost/stored-totals';
import { storedInstantText } from '../../engine/common/stored-checks';
import { isNearNow } from '../../engine/time/time';
import { runAtOnce, Steps } from '../../engine/common/slices';
import { MeterId, meterKey, meterName, storedMeterName } from '../common/meter-reading';
import { MAX_STORED_LINE_CHARS } from '../../engine/common/limits';

export { SAVE_EVERY_MS, ThrottledSave } from '../common/throttled-save';
export { meterKey, meterName } from '../common/meter-reading';
export type { MeterId } from '../common/meter-reading';

/**
 * Readings stored per node, shared by its meters (at least the last one each): what a late
 * reading after a restart can still be placed among. 1 meter: 128; 16: 8 each; 128: 1 each.
 */
export const STORED_READINGS = 128;

/** Where the totals live across restarts (the node's context). */
export interface TotalsStore {
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

export interface StoredMeter extends MeterId {
  totals: TotalsState;
  /**
   * Anything else a meter keeps per period (e.g. a report's sums of the open periods):
   * a JSON value stored beside the totals and handed back as it was. Keep it compact,
   * and bounded by what is real (periods, rules), never by readings.
   */
  extras?: unknown;
  /** Export meters (rule 47) and production meters (rule 64) only; absent: import. */
  direction?: 'export' | 'production';
}

/** What is stored: every meter as one line of text, in arrival order (meter names are data, never keys). */
interface StoredV3 {
  version: 3;
  timezone: string;
  tariffId: string;
  meters: string[];
  /** The positions in `meters` of export meters, and the export price they were counted at (only when there are any). */
  exports?: number[];
  exportPrice?: string;
  /** The site's netting and production (NetLedger's line), when the node nets or counts production. */
  net?: string;
  /** The positions in `meters` of production meters (rule 64), only when there are any. */
  productions?: number[];
}

/** What versions 0.1.x stored: every meter's whole state, a reading window of up to 3,000 readings each. */
interface StoredMeters {
  version: 2;
  timezone: string;
  tariffId: string;
  meters: Array<{ gateway: string | null; topic: string | null; totals: unknown }>;
}

export interface StoreScope {
  timezone: string;
  tariffId: string;
  maxMeters: number;
  /** The export price export meters count at (exportPriceKey): stored ones of another price start from zero. */
  exportPrice?: string;
  /** The instant the stored totals are checked at (instants near it, none in the future); Date.now() if not given. */
  now?: number;
}

/** What a stored value gives back: the meters, totals of the single-meter shape, or why neither. */
export interface Restored {
  meters: StoredMeter[];
  /** Totals stored in the single-meter shape of earlier versions, for the first meter to report. */
  legacy: TotalsState | null;
  problem: string | null;
  /** What was dropped from totals otherwise kept, in words (checkStoredTotals), said in one warning. */
  dropped: string[];
  /** The site's netting and production as stored (NetLedger.restore reads it), if any. */
  net?: unknown;
}

/** Text parsed between two turns of the event loop while stored lines are read. */
const PARSE_SLICE_CHARS = 128 * 1024;

/** Reads a stored value of any version at once (decodeSteps); anything unusable gives nothing and says why. */
export function decodeStored(stored: unknown, scope: StoreScope): Restored {
  return runAtOnce(decodeSteps(stored, scope));
}

/**
 * Reads a stored value of any version, yielding between slices of the work (runInSlices).
 * Each meter's totals are checked (checkStoredTotals): one that cannot be trusted is
 * dropped, the others carry on; what was dropped is listed in `dropped`.
 */
export function* decodeSteps(stored: unknown, scope: StoreScope): Steps<Restored> {
  const { timezone, tariffId } = scope;
  const now = scope.now ?? Date.now();
  const none = (problem: string | null): Restored => ({ meters: [], legacy: null, problem, dropped: [] });
  if (stored === undefined || stored === null) return none(null);
  if (typeof stored === 'object' && (stored as { version?: unknown }).version === 1) {
    // the single-meter shape of earlier versions: kept whole, for the first meter to report
    const restored = restoreTotals(withNewestRows(stored, MAX_KEPT), timezone, tariffId);
    if (restored.problem) return none(restored.problem);
    const checked = checkStoredTotals(restored.state, now, MAX_KEPT);
    const dropped = [...cutNote(stored, restored.state), ...checked.dropped].map(
      (d) => `${d} (${meterName({ gateway: null, topic: null })})`,
    );
    return { meters: [], legacy: checked.state?.total ? checked.state : null, problem: null, dropped };
  }
  if (typeof stored === 'object' && (stored as { version?: unknown }).version === 3)
    return yield* decodeV3(stored as Partial<StoredV3>, scope, now);
  const s = stored as Partial<StoredMeters>;
  if (typeof stored !== 'object' || s.version !== 2 || !Array.isArray(s.meters) || s.meters.length > scope.maxMeters)
    return none('stored totals are unreadable');
  if (s.tariffId !== tariffId) return none(`stored totals belong to tariff "${String(s.tariffId)}"`);
  if (s.timezone !== timezone) return none(`stored totals were counted in ${String(s.timezone)}`);
  const meters: StoredMeter[] = [];
  const dropped: string[] = [];
  const seen = new Set<string>();
  for (const m of s.meters) {
    yield; // a meter's readings checked per turn: version 2 stored up to 3,000 each
    const gateway = storedMeterName(m?.gateway);
    const topic = storedMeterName(m?.topic);
    const restored = restoreTotals(withNewestRows(m?.totals, MAX_KEPT), timezone, tariffId);
    if (gateway === undefined || topic === undefined || restored.problem) return none('stored totals are unreadable');
    const key = meterKey({ gateway, topic });
    if (seen.has(key)) return none('stored totals are unreadable');
    seen.add(key);
    const checked = checkStoredTotals(restored.state, now, MAX_KEPT);
    for (const d of [...cutNote(m?.totals, restored.state), ...checked.dropped]) dropped.push(`${d} (${meterName({ gateway, topic })})`);
    if (checked.state) meters.push({ gateway, topic, totals: checked.state });
  }
  return { meters, legacy: null, problem: null, dropped };
}

/** What withNewestRows cut from stored totals of versions 1 and 2 (`x`) to give `state`, in words. */
function cutNote(x: unknown, state: TotalsState): string[] {
  const kept = (x as { kept?: unknown } | null)?.kept;
  const cut = (Array.isArray(kept) ? kept.length : 0) - state.kept.length;
  return cut > 0 ? [`${cut} of the oldest readings beyond the ${MAX_KEPT} the node keeps (the totals still count them)`] : [];
}

/**
 * Stored totals of versions 1 and 2 with at most the newest `max` readings (and the costs
 * between them), cut before they are checked: a forged list of millions costs a slice, not
 * a check of each. Anything else is handed on as it is, for restoreTotals to judge.
 */
function withNewestRows(x: unknown, max: number): unknown {
  if (typeof x !== 'object' || x === null) return x;
  const s = x as { kept?: unknown; costs?: unknown };
  if (!Array.isArray(s.kept) || !Array.isArray(s.costs) || s.kept.length <= max || s.costs.length !== s.kept.length - 1) return x;
  // the totals keep what the cut readings counted; a late reading before them is too late (trimKept)
  return { ...s, kept: s.kept.slice(-max), costs: s.costs.slice(-(max - 1)) };
}

/**
 * The value handed to the store: per meter its name, the sums of its open periods and
 * total, its last readings (STORED_READINGS shared by the meters) with the cost of each
 * interval between them, and its extras. The periods' bounds are not stored: they are the
 * periods containing the meter's newest reading (totals.ts moves them only on a newest one).
 */
export function encodeStored(
  meters: Iterable<StoredMeter>,
  scope: Pick<StoreScope, 'timezone' | 'tariffId' | 'exportPrice'>,
  net?: (keepFrom: number) => string,
): unknown {
  const list = [...meters];
  const perMeter = Math.max(1, Math.floor(STORED_READINGS / Math.max(1, list.length)));
  const stored: StoredV3 = {
    version: 3,
    timezone: scope.timezone,
    tariffId: scope.tariffId,
    meters: list.map((m) => JSON.stringify(meterLine(m, perMeter))),
  };
  const exportAt = list.flatMap((m, index) => (m.direction === 'export' ? [index] : []));
  if (exportAt.length > 0) Object.assign(stored, { exports: exportAt, exportPrice: scope.exportPrice ?? '' });
  const productionAt = list.flatMap((m, index) => (m.direction === 'production' ? [index] : []));
  if (productionAt.length > 0) stored.productions = productionAt;
  // what a reading after a restart can reach: from the oldest reading stored of any meter
  let keepFrom = Infinity;
  for (const m of list)
    if (m.totals.kept.length) keepFrom = Math.min(keepFrom, m.totals.kept.ts(Math.max(0, m.totals.kept.length - perMeter)));
  if (net) stored.net = net(keepFrom);
  return stored;
}

type Sums = [energy: number, net: number, gross: number, unpricedEnergy: number, resets: number, intervals: number];
/**
 * One meter as stored: [gateway, topic, total's start, [day, week, month, total] sums, readings, interval costs,
 * extras?, held?]: held readings (rule 10's suspects, [ts, value, …]) only when there are any, extras then null if none.
 */
type MeterLine = [string | null, string | null, number | null, Array<Sums | null>, number[], number[], unknown?, number[]?];

const sumsOf = (b: Bucket | null): Sums | null => (b ? [b.energy, b.net, b.gross, b.unpricedEnergy, b.resets, b.intervals] : null);

function meterLine(m: StoredMeter, readings: number): MeterLine {
  const t = m.totals;
  const from = Math.max(0, t.kept.length - readings);
  // readings as [ts, value, Δts, value, …]: instants after the first as steps from the one before
  const flat: number[] = [];
  for (let i = from; i < t.kept.length; i++) flat.push(i === from ? t.kept.ts(i) : t.kept.ts(i) - t.kept.ts(i - 1), t.kept.value(i));
  const costs = t.kept.costRows(from).flat();
  const line: MeterLine = [m.gateway, m.topic, t.total?.from ?? null, [t.day, t.week, t.month, t.total].map(sumsOf), flat, costs];
  if (m.extras !== undefined || t.held.length > 0) line.push(m.extras ?? null);
  if (t.held.length > 0) line.push(t.held.flat());
  return line;
}

function* decodeV3(s: Partial<StoredV3>, scope: StoreScope, now: number): Steps<Restored> {
  const none = (problem: string): Restored => ({ meters: [], legacy: null, problem, dropped: [] });
  if (!Array.isArray(s.meters) || s.meters.length > scope.maxMeters) return none('stored totals are unreadable');
  if (s.tariffId !== scope.tariffId) return none(`stored totals belong to tariff "${String(s.tariffId)}"`);
  if (s.timezone !== scope.timezone) return none(`stored totals were counted in ${String(s.timezone)}`);
  // the node stores this many readings per meter (encodeStored): more is not its own
  const perMeter = Math.max(1, Math.floor(STORED_READINGS / Math.max(1, s.meters.length)));
  const meters: StoredMeter[] = [];
  const dropped: string[] = [];
  const seen = new Set<string>();
  const exportAt = storedExports(s, s.meters.length);
  const productionAt = storedPositions(s.productions, s.meters.length);
  if (exportAt === null || productionAt === null || [...productionAt].some((i) => exportAt.has(i)))
    return none('stored totals are unreadable');
  const samePrice = s.exportPrice === (scope.exportPrice ?? '');
  let parsed = 0;
  for (const [index, text] of s.meters.entries()) {
    if (typeof text === 'string' && text.length > MAX_STORED_LINE_CHARS) {
      dropped.push(`meter ${index + 1} of ${s.meters.length} (${text.length} characters of text, more than the node writes)`);
      continue;
    }
    if (parsed > PARSE_SLICE_CHARS) {
      parsed = 0;
      yield;
    }
    parsed += typeof text === 'string' ? text.length : 0;
    const meter = typeof text === 'string' ? readLine(text, scope, perMeter, now) : null;
    if (typeof meter === 'string') {
      dropped.push(`meter ${index + 1} of ${s.meters.length} (${meter})`);
      continue;
    }
    if (!meter || seen.has(meterKey(meter))) return none('stored totals are unreadable');
    seen.add(meterKey(meter));
    const name = meterName(meter);
    if (meter.cut > 0)
      dropped.push(`${meter.cut} of the oldest readings beyond the ${perMeter} the node stores (${name}; the totals still count them)`);
    const checked = checkStoredTotals(meter.totals, now, perMeter);
    for (const d of checked.dropped) dropped.push(`${d} (${name})`);
    const exported = exportAt.has(index);
    if (exported && !samePrice) {
      dropped.push(`the totals of export meter ${name} (counted at another export price)`);
      continue;
    }
    if (checked.state)
      meters.push({
        gateway: meter.gateway,
        topic: meter.topic,
        totals: checked.state,
        ...('extras' in meter ? { extras: meter.extras } : {}),
        ...(exported ? { direction: 'export' as const } : productionAt.has(index) ? { direction: 'production' as const } : {}),
      });
  }
  return { meters, legacy: null, problem: null, dropped, ...(s.net !== undefined ? { net: s.net } : {}) };
}

/** Stored positions of meters (none when absent), or null when they are not positions of `count` meters. */
function storedPositions(x: unknown, count: number): Set<number> | null {
  if (x === undefined) return new Set();
  const ok = Array.isArray(x) && x.length <= count && x.every((i) => Number.isSafeInteger(i) && i >= 0 && i < count);
  return ok ? new Set(x as number[]) : null;
}

/** The stored positions of export meters (none when absent), or null when they are not positions of `count` meters or come without the export price they were stored with. */
function storedExports(s: Partial<StoredV3>, count: number): Set<number> | null {
  if (s.exports === undefined) return new Set();
  return typeof s.exportPrice === 'string' ? storedPositions(s.exports, count) : null;
}

/**
 * One stored meter back as totals (checked as totals.ts checks any stored state), with at
 * most its `perMeter` newest readings (`cut`: how many older ones were let go), why it is
 * dropped (the rest of the store is usable), or null (the store is unreadable).
 */
function readLine(text: string, scope: StoreScope, perMeter: number, now: number): (StoredMeter & { cut: number }) | string | null {
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(line) || line.length < 6 || line.length > 8) return null;
  const [gatewayRaw, topicRaw, totalFrom, sums, flat, costs, extras, heldFlat] = line as unknown[];
  const gateway = storedMeterName(gatewayRaw);
  const topic = storedMeterName(topicRaw);
  const numbers = (x: unknown, width: number): x is number[] =>
    Array.isArray(x) && x.length % width === 0 && x.every((n) => typeof n === 'number' && Number.isFinite(n));
  if (gateway === undefined || topic === undefined || !numbers(flat, 2) || !numbers(costs, 5)) return null;
  if (heldFlat !== undefined && !numbers(heldFlat, 2)) return null;
  // resets and intervals are counts: whole numbers, never below zero
  const isSums = (b: unknown) =>
    b === null || (numbers(b, 6) && b.length === 6 && [b[4], b[5]].every((n) => Number.isSafeInteger(n) && n >= 0));
  if (!Array.isArray(sums) || sums.length !== 4 || !sums.every(isSums)) return null;
  if (costs.length / 5 !== Math.max(flat.length / 2 - 1, 0)) return null;
  // instants after the first are steps from the one before: summed over all, kept for the newest
  const cut = Math.max(0, flat.length / 2 - perMeter);
  const kept: Array<[number, number]> = [];
  let ts = 0;
  for (let i = 0; i < flat.length; i += 2) {
    ts = i === 0 ? flat[0] : ts + flat[i];
    if (i / 2 >= cut) kept.push([ts, flat[i + 1]]);
  }
  const rows: CostRow[] = [];
  for (let i = cut * 5; i < costs.length; i += 5) rows.push(costs.slice(i, i + 5) as CostRow);
  const newest = kept.length ? kept[kept.length - 1][0] : null;
  const bucket = (b: Sums | null, bounds: { from: number; to: number | null } | null): Bucket | null =>
    b && bounds
      ? { from: bounds.from, to: bounds.to, energy: b[0], net: b[1], gross: b[2], unpricedEnergy: b[3], resets: b[4], intervals: b[5] }
      : null;
  // readings at no instant near now have no periods (and would stop every later reading)
  if (newest !== null && !isNearNow(newest, now)) return `readings at ${storedInstantText(newest)}, not an instant near now`;
  const period = (k: number) => (newest === null ? null : bucket(sums[k] as Sums | null, periodBounds(PERIODS[k], newest, scope.timezone)));
  const state = {
    version: 1,
    timezone: scope.timezone,
    tariffId: scope.tariffId,
    kept,
    costs: rows,
    held: heldFlat === undefined ? [] : Array.from({ length: heldFlat.length / 2 }, (_, k) => heldFlat.slice(2 * k, 2 * k + 2)),
    day: period(0),
    week: period(1),
    month: period(2),
    total: bucket(sums[3] as Sums | null, typeof totalFrom === 'number' ? { from: totalFrom, to: null } : null),
  };
  const restored = restoreTotals(state, scope.timezone, scope.tariffId);
  if (restored.problem) return null;
  const hasExtras = line.length === 7 || (line.length === 8 && extras !== null);
  return { gateway, topic, totals: restored.state, cut, ...(hasExtras ? { extras } : {}) };
}
