// What easy-peak's dialog shows before a deploy: this month's peaks of one meter from the
// archive, with the settings as typed, by the same engine functions the node's month
// follows (demandWindows over the readings, monthlyPeaks over the windows).
import { demandWindows } from '../../engine/peak/demand';
import { monthlyPeaks } from '../../engine/peak/monthly-peaks';
import { monthOf, MonthPeaks } from '../peak-period/peak-month';
import { monthPayload } from './peak-output';
import type { PeakSettings } from './peak-settings';

export interface PeakPreview {
  timezone: string;
  minutes: number;
  readings: number;
  /** Windows of the month so far, and how many of them the readings cover (only those can be peaks). */
  windows: number;
  complete: number;
  month: ReturnType<typeof monthPayload>;
}

/** This month's peaks (the local month holding `now`) of archival `readings`, as the node would count them. */
export function peakPreview(readings: Array<[number, number]>, settings: PeakSettings, timezone: string, now: number): PeakPreview {
  const bounds = monthOf(now, timezone);
  const windows = demandWindows(readings, {
    timezone,
    minutes: settings.minutes,
    from: bounds.from,
    to: now,
    maxPowerKw: settings.maxPowerKw,
    maxGapMinutes: settings.maxGapMs / 60_000,
  });
  const ranked = monthlyPeaks(windows, {
    timezone,
    top: settings.top,
    distinctDays: settings.distinctDays,
    ...(settings.when ? { when: settings.when } : {}),
  });
  const mine = ranked.find((m) => m.from === bounds.from);
  const month: MonthPeaks = { ...bounds, peaks: (mine?.peaks ?? []).map((p) => ({ from: p.from, to: p.to, kw: p.kw })) };
  return {
    timezone,
    minutes: settings.minutes,
    readings: readings.length,
    windows: windows.length,
    complete: windows.filter((w) => w.complete).length,
    month: monthPayload(month),
  };
}
