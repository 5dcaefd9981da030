// What easy-peak sends and shows: output 1's window and month per meter and for the site,
// output 2's guard message, output 3's chart messages for Dashboard 2, the status. Pure:
// state in, shapes out, in the package's conventions (ISO 8601 UTC with `…Ms` beside it,
// kW and kWh rounded to 9 decimals; a chart rounds to watts, it is display).
import type { DemandWindow } from '../../engine/peak/demand';
import { roundAmount, roundAmountOrNull } from '../../engine/common/format';
import { periodLabel } from '../../engine/reports/chart';
import { MeterId, meterName } from '../common/meter-reading';
import type { GuardDecision } from './peak-guard';
import { isCovered, MeterAdvance, MeterPeaks, PfMeter, powerFactorSoFar, Projection } from './peak-meter';
import { monthAt, MonthPeaks, monthValue, PeriodScope } from '../peak-period/peak-month';
import { siteCovered, SiteNow, siteUnit } from './peak-site';

const iso = (ms: number): string => new Date(ms).toISOString();
const span = (from: number, to: number) => ({ from: iso(from), fromMs: from, to: iso(to), toMs: to });
/** An interval in the package's conventions: ISO 8601 UTC with `…Ms` beside it. */
export const spanPart = span;

/** A reading in output 1: `{ ts, timestamp, value }`, with its kind when it is a suspect (semantics rule 10). */
export const readingPart = (r: { ts: number; value: number; kind?: string }) => ({
  ts: r.ts,
  timestamp: iso(r.ts),
  value: r.value,
  ...(r.kind ? { kind: r.kind } : {}),
});

/** What a reading did beyond counting, in the status's words (null: nothing to say). */
export function readingNote(a: Pick<MeterAdvance, 'ignored' | 'held' | 'glitches' | 'resets' | 'gap'>): string | null {
  if (a.ignored) return `${a.ignored.replace('_', ' ')} reading ignored`;
  if (a.held) return 'suspect reading held';
  if (a.gap) return `a gap of ${gapMinutes(a.gap)} min`;
  if (a.resets) return a.resets[a.resets.length - 1].kind === 'swap' ? 'meter swap' : 'counter reset';
  if (a.glitches) return a.glitches.length === 1 ? 'glitch dropped' : `${a.glitches.length} glitches dropped`;
  return null;
}
const watts = (kw: number): number => Math.round(kw * 1000) / 1000;

export function monthPayload(month: MonthPeaks) {
  return {
    ...span(month.from, month.to),
    peaks: month.peaks.map((p) => ({ ...span(p.from, p.to), kw: roundAmount(p.kw) })),
    value: roundAmountOrNull(monthValue(month)),
  };
}

export function windowPayload(w: { from: number; to: number }, p: Projection, powerKw: number | null, complete: boolean) {
  return {
    ...span(w.from, w.to),
    energy: roundAmount(p.energy),
    averageKwSoFar: roundAmountOrNull(p.averageKwSoFar),
    powerKw: roundAmountOrNull(powerKw),
    projectedKw: roundAmountOrNull(p.projectedKw),
    complete,
  };
}

/** A gap's length in minutes, to a tenth. */
const gapMinutes = (g: { from: number; to: number }): number => Math.round((g.to - g.from) / 6_000) / 10;

/** A gap in output 1: the interval between readings longer than *longest gap*, its minutes, and its meter (a site's window). */
export const gapPart = (g: { from: number; to: number; meter?: string }) => ({
  ...span(g.from, g.to),
  minutes: gapMinutes(g),
  ...(g.meter !== undefined ? { meter: g.meter } : {}),
});

export function closedPayload(w: DemandWindow) {
  return {
    ...span(w.from, w.to),
    energy: roundAmount(w.energy),
    kw: roundAmount(w.kw),
    complete: w.complete,
    ...(w.gap ? { gap: gapPart(w.gap) } : {}),
  };
}

export interface GuardPayloadInput {
  decision: GuardDecision;
  limitKw: number | null;
  site: SiteNow | null;
}

/** The guard's side of output 1 (and of output 2's message): the limit, the thresholds and the headroom. */
export function guardFields({ decision, limitKw, site }: GuardPayloadInput) {
  const projected = site?.projectedKw ?? null;
  return {
    guard: decision.state,
    reason: decision.reason,
    projectedKw: roundAmountOrNull(projected),
    limitKw: roundAmountOrNull(limitKw),
    shedAboveKw: roundAmountOrNull(decision.shedAboveKw),
    restoreBelowKw: roundAmountOrNull(decision.restoreBelowKw),
    /** How far the projection is under the shedding threshold (negative: over it). */
    headroomKw: roundAmountOrNull(decision.shedAboveKw === null || projected === null ? null : decision.shedAboveKw - projected),
    stale: site ? site.stale.map(meterName) : [],
  };
}

/** Output 3: a closed window of the site as a point of a time line, and the month's value at its end. */
export function windowChart(w: DemandWindow, month: MonthPeaks | null, minutes: number) {
  const value = monthValue(month);
  const x = w.from;
  return [
    {
      topic: `average kW per ${minutes} min`,
      kind: 'window',
      window: closedPayload(w),
      payload: [{ x, y: watts(w.kw) }],
      action: 'append' as const,
    },
    ...(value === null ? [] : [{ topic: "month's peak kW", kind: 'window', payload: [{ x, y: watts(value) }], action: 'append' as const }]),
  ];
}

/** Closed windows charted at once (a day of quarter hours): after a long gap only the last ones are drawn. */
export const MAX_CHARTED_WINDOWS = 96;

/** Output 3 for the site's windows a reading closed, and its month's new peak. */
export function closedCharts(closed: DemandWindow[], newPeak: boolean, month: MonthPeaks | null, minutes: number, timezone: string) {
  const out: Array<Record<string, unknown>> = [];
  // an incomplete window's average would be drawn too low: only complete ones are points
  for (const w of closed.filter((c) => c.complete).slice(-MAX_CHARTED_WINDOWS)) out.push(...windowChart(w, month, minutes));
  if (newPeak && month) out.push(peakChart(month, timezone));
  return out;
}

/** Output 3: a new monthly peak, as one bar per local month (a categorical chart keeps one bar per label). */
export function peakChart(month: MonthPeaks, timezone: string) {
  const value = monthValue(month) ?? 0;
  return {
    topic: "month's peak kW",
    kind: 'peak',
    month: monthPayload(month),
    payload: [{ x: periodLabel('month', month.from, timezone), y: watts(value) }],
    action: 'append' as const,
  };
}

export interface PeakStatus {
  fill: 'green' | 'yellow' | 'grey' | 'red';
  shape: 'dot' | 'ring';
  text: string;
}

/** The site in a line: the projection against the limit, and the guard. */
export function peakStatus(
  site: SiteNow | null,
  decision: GuardDecision,
  limitKw: number | null,
  meters: number,
  /** What the reading did beyond counting (readingNote). */
  reading?: string | null,
  /** A hint such as a gateway clock that is off. */
  hint?: string | null,
  /** The site's unit: kVA where it is billed on kVA (rules 56, 66). */
  unit: 'kW' | 'kVA' = 'kW',
): PeakStatus {
  const kw = (x: number | null): string => (x === null ? '–' : `${x.toFixed(2)} ${unit}`);
  if (!site) return { fill: 'grey', shape: 'ring', text: 'waiting for readings' };
  const of = limitKw === null ? 'no limit yet' : `limit ${kw(limitKw)}`;
  const who = meters > 1 ? ` · ${meters} meters` : '';
  const note = reading ? ` · ${reading}` : site.stale.length ? ' · stale' : hint ? ` · ${hint}` : '';
  return {
    fill: decision.state === 'shed' ? 'red' : note ? 'yellow' : 'green',
    shape: 'dot',
    text: `${decision.state} · projected ${kw(site.projectedKw)} · ${of}${who}${note}`,
  };
}

/** One meter's part of output 1. */
export function meterPart(m: MeterPeaks & MeterId, projection: Projection, month: MonthPeaks) {
  return {
    name: meterName(m),
    gateway: m.gateway,
    topic: m.topic,
    unit: meterUnit(m),
    window: m.window
      ? {
          ...windowPayload(m.window, projection, m.power?.kw ?? null, isCovered(m.window)),
          ...(m.window.gap ? { gap: gapPart(m.window.gap) } : {}),
        }
      : null,
    month: monthPayload(month),
  };
}

/** A power-factor meter's part of output 1 (rule 66): its newest reading, and its window's power factor so far (the hours covered over ∫(1/pf) dt). */
export function powerFactorPart(pf: PfMeter, value: number) {
  const m = pf.meter;
  const w = m.window;
  return {
    name: meterName(m),
    gateway: m.gateway,
    topic: m.topic,
    unit: 'pf' as const,
    value,
    window: w
      ? {
          ...span(w.from, w.to),
          powerFactor: roundAmountOrNull(powerFactorSoFar(pf)),
          complete: isCovered(w),
          ...(w.gap ? { gap: gapPart(w.gap) } : {}),
        }
      : null,
  };
}

/** What a meter's windows average: `kVA` from an apparent-energy counter (kVAh), `kvar` from a reactive one, else `kW`. */
export const meterUnit = (m: Pick<MeterPeaks, 'unit'>): DemandUnit => (m.unit === 'kVAh' ? 'kVA' : m.unit === 'kvarh' ? 'kvar' : 'kW');

export type DemandUnit = 'kW' | 'kVA' | 'kvar';

/** The windows a reading closed, the meter's and the site's, as the records output writes them (none closed: null). */
export function closedRecords(
  meter: MeterPeaks,
  own: { closed: DemandWindow[]; months: Array<MonthPeaks | null> },
  site: { closed: DemandWindow[]; months: Array<MonthPeaks | null> },
  siteUnit: 'kW' | 'kVA',
  minutes: number,
  where: string | PeriodScope,
  /** The site's bill after the reading, and its month: a site window of that month carries its billed kW and demand charge. */
  bill?: { bill: { billedKw: number; demandCharge: number }; month: { fromMs: number; toMs: number } } | null,
) {
  if (!own.closed.length && !site.closed.length) return null;
  const series = { scope: 'meter' as const, gateway: meter.gateway, topic: meter.topic, unit: meterUnit(meter) };
  const whole = { scope: 'site' as const, unit: siteUnit };
  const billOf = (w: DemandWindow) =>
    bill && w.from >= bill.month.fromMs && w.from < bill.month.toMs
      ? { billedKw: bill.bill.billedKw, demandCharge: bill.bill.demandCharge }
      : {};
  return {
    minutes,
    closed: [
      ...own.closed.map((w, i) => windowRecord(w, series, own.months[i], where)),
      ...site.closed.map((w, i) => ({ ...windowRecord(w, whole, site.months[i], where), ...billOf(w) })),
    ],
  };
}

/** A closed window for the records output: the window, its series, and (from `month`, its month right after it closed) the month's value and its rank there. */
export function windowRecord(
  w: DemandWindow,
  series: { scope: 'meter' | 'site'; gateway?: string | null; topic?: string | null; unit: DemandUnit },
  month: MonthPeaks | null,
  where: string | PeriodScope,
) {
  const shown = monthAt(month, w.from, where);
  const ranked = [...shown.peaks].sort((a, b) => b.kw - a.kw || a.from - b.from);
  const rank = ranked.findIndex((p) => p.from === w.from) + 1;
  return {
    ...series,
    ...closedPayload(w),
    monthValue: roundAmountOrNull(monthValue(shown)),
    ...(rank > 0 ? { rank } : {}),
  };
}

/** Output 1's `site`: its meters, unit, window so far (complete when every meter covers it), month and bill. */
export function sitePayload<Bill>(
  meters: Iterable<MeterPeaks>,
  site: SiteNow,
  powerKw: number | null,
  month: MonthPeaks,
  bill: Bill,
  unit?: 'kW' | 'kVA',
) {
  const all = [...meters];
  return {
    meters: all.length,
    unit: unit ?? siteUnit(all),
    window: windowPayload(site.window, site, powerKw, siteCovered(all, site.window)),
    month: monthPayload(month),
    bill,
  };
}
