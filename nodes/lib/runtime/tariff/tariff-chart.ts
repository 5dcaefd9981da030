// easy-tariff's second output: its watch's schedule as Dashboard 2 chart messages, and how
// often price changes may send one.
import { ChartMessage, scheduleAnswerChart } from '../../engine/reports/chart';
import { monotonicNow, PaceTimer } from '../../engine/time/long-timer';
import type { TariffWatch } from './tariff-watch';

export type { ChartMessage };

/**
 * Charts sent because the price changed: at most one a minute. A tariff whose price
 * changes every second would otherwise send a week's chart every second (megabytes a
 * minute); a chart a minute old still shows every later change, only its first minute is
 * past. Asked for with "chart", a chart is always sent at once.
 */
export const CHART_CHANGE_INTERVAL_MS = 60_000;

/** The next `days` of the schedule as chart messages; throws while there is no tariff to chart. */
export function tariffChart(watch: Pick<TariffWatch, 'schedule'>, days: number): ChartMessage[] {
  return scheduleAnswerChart(watch.schedule(days * 24));
}

/**
 * When a price change sends a chart: at once when the last one is an interval old, else
 * once, at the end of the interval (charting the state of then), however many changes
 * came meanwhile.
 */
export class ChangeCharts {
  private lastAt = -Infinity;
  /** A pace (monotonicNow): a step of the wall clock neither holds charts back nor sends more. */
  private readonly later = new PaceTimer();
  private waiting = false;

  constructor(
    /** Sends a chart of the current schedule (the one that comes late). */
    private readonly sendLate: () => void,
    private readonly intervalMs = CHART_CHANGE_INTERVAL_MS,
  ) {}

  /** The price changed: true when a chart goes with this price, else one follows later. */
  changed(): boolean {
    const now = monotonicNow();
    if (!this.waiting && now - this.lastAt >= this.intervalMs) {
      this.lastAt = now;
      return true;
    }
    if (!this.waiting) {
      this.waiting = true;
      this.later.arm(this.lastAt + this.intervalMs, () => {
        this.waiting = false;
        this.lastAt = monotonicNow();
        this.sendLate();
      });
    }
    return false;
  }

  /** A chart went out for another reason (a new price list): the next change waits its interval from now, a late one is not needed. */
  sent(): void {
    this.later.cancel();
    this.waiting = false;
    this.lastAt = monotonicNow();
  }

  close(): void {
    this.later.cancel();
    this.waiting = false;
  }
}
