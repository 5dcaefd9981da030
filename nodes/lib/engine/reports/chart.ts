// Chart data in the format of Dashboard 2's ui-chart (@flowfuse/node-red-dashboard), so a
// chart needs no function node: `msg.payload` an array of `{ x, y }`, one `msg.topic`
// per series. A set of series is sent as consecutive messages, the first with
// `action: 'replace'` (the chart drops what it showed) and the others with 'append', so
// together they replace the whole chart.
import { minorUnits } from '../common/format';
import { MAX_CHART_POINTS } from '../common/limits';
import type { PeriodName } from '../cost/totals';
import { localIsoText, zoneInfo } from '../time/time';

export interface ChartPoint {
  /** epoch ms on a time axis, or a category label (a local date) on a bar chart */
  x: number | string;
  /** null is a gap: no price there, never a made-up zero */
  y: number | null;
}

export interface ChartMessage {
  topic: string;
  payload: ChartPoint[];
  action: 'replace' | 'append';
  [key: string]: unknown;
}

export interface PricedSegment {
  from: number;
  to: number;
  /** net price per kWh, null where no rule matches */
  price: number | null;
}

/**
 * A step line: for each run of equal values a point at its start and one at its end, so
 * at each change two points share the instant and the line climbs or falls straight
 * up or down there. Equal neighbours are merged (two rules with one price draw one step).
 */
export function stepPoints(segments: readonly PricedSegment[], value: (price: number) => number): ChartPoint[] {
  const points: ChartPoint[] = [];
  let runFrom = 0;
  let runValue: number | null = null;
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i];
    const y = s.price === null ? null : value(s.price);
    if (i > 0 && y === runValue && s.from === segments[i - 1].to) continue;
    if (i > 0) points.push({ x: runFrom, y: runValue }, { x: segments[i - 1].to, y: runValue });
    runFrom = s.from;
    runValue = y;
  }
  if (segments.length) points.push({ x: runFrom, y: runValue }, { x: segments[segments.length - 1].to, y: runValue });
  return points;
}

/** Consecutive series as ui-chart messages that together replace what the chart showed. */
export function replacingMessages(
  series: ReadonlyArray<{ topic: string; points: ChartPoint[] }>,
  extra: Record<string, unknown> = {},
): ChartMessage[] {
  return series.map((s, i) => ({ ...extra, topic: s.topic, payload: s.points, action: i === 0 ? 'replace' : 'append' }));
}

/**
 * A price schedule as two step lines, net and gross per kWh (gross as the engine
 * computes it: net × (1 + vat/100)). Topics name the line and the unit, for the legend.
 * A line has at most MAX_CHART_POINTS points: a schedule with more price changes is cut
 * after the last whole step that fits, so the chart ends early but is never drawn wrong,
 * and every message of it says `truncated: true`.
 */
export function scheduleChart(segments: readonly PricedSegment[], currency: string, vat: number): ChartMessage[] {
  const gross = (p: number) => p * (1 + vat / 100);
  let net = stepPoints(segments, (p) => p);
  const truncated = net.length > MAX_CHART_POINTS;
  if (truncated) {
    // points come in pairs (a step's start and end): the cap is even, so the last kept one ends a step
    const end = net[MAX_CHART_POINTS - 1].x as number;
    segments = segments.filter((s) => s.to <= end);
    net = net.slice(0, MAX_CHART_POINTS);
  }
  // gross has no more steps than net (equal net prices give equal gross), so it fits too
  return replacingMessages(
    [
      { topic: `net ${currency}/kWh`, points: net },
      { topic: `gross ${currency}/kWh`, points: stepPoints(segments, gross) },
    ],
    { truncated },
  );
}

export interface ClosedPeriod {
  /** epoch ms of the period's local start */
  from: number;
  gross: number;
}

const LABEL_LENGTH: Record<PeriodName, number> = { day: 10, week: 10, month: 7 };
const SERIES: Record<PeriodName, string> = { day: 'cost per day', week: 'cost per week', month: 'cost per month' };

/** The local label of a period on a bar chart's category axis: 2026-11-22, 2026-11 (a week by its Monday). */
export function periodLabel(period: PeriodName, from: number, timezone: string): string {
  return localIsoText(zoneInfo(timezone), from).slice(0, LABEL_LENGTH[period]);
}

/**
 * One bar for a closed period (gross, rounded to the currency's minor unit: a chart is
 * display). Appended: a categorical ui-chart keeps one bar per label and series, so the
 * bars of the days (or months) add up to a history. `msg.period` tells days from
 * months for a switch node in front of separate charts.
 */
export function closedPeriodBar(period: PeriodName, closed: ClosedPeriod, currency: string, timezone: string) {
  const scale = 10 ** minorUnits(currency);
  return {
    topic: `${SERIES[period]} (${currency})`,
    period,
    payload: [{ x: periodLabel(period, closed.from, timezone), y: Math.round(closed.gross * scale) / scale }],
    action: 'append' as const,
  };
}

/**
 * An easy-tariff schedule answer (ISO times) as ui-chart messages, labelled with the tariff.
 * A stack's answer (segments with `spot` and `fees`) adds those parts as two more net lines,
 * `spot <currency>/kWh` and `fees <currency>/kWh`, as far as the net line reaches.
 */
export function scheduleAnswerChart(answer: {
  tariffId: string;
  tariffName: string;
  currency: string;
  vat: number;
  timezone: string;
  segments: ReadonlyArray<{ from: string; to: string; price: number | null; spot?: number | null; fees?: number | null }>;
}): ChartMessage[] {
  const segments = answer.segments.map((s) => ({ from: Date.parse(s.from), to: Date.parse(s.to), price: s.price }));
  const extra = { tariffId: answer.tariffId, tariffName: answer.tariffName, timezone: answer.timezone };
  const messages = scheduleChart(segments, answer.currency, answer.vat);
  if (answer.segments.some((s) => s.spot !== undefined)) {
    const net = messages[0].payload;
    const end = net.length ? (net[net.length - 1].x as number) : -Infinity;
    for (const part of ['spot', 'fees'] as const) {
      const line = answer.segments
        .map((s, k) => ({ from: segments[k].from, to: segments[k].to, price: s[part] ?? null }))
        .filter((s) => s.to <= end);
      // a part may step where the total does not (spot up, fees down): held to a line's points too
      const points = stepPoints(line, (p) => p).slice(0, MAX_CHART_POINTS);
      messages.push({ topic: `${part} ${answer.currency}/kWh`, payload: points, action: 'append', truncated: messages[0].truncated });
    }
  }
  return messages.map((m) => ({ ...extra, ...m }));
}
