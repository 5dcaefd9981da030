// easy-tariff's second output: its watch's schedule as Dashboard 2 chart messages.
import { ChartMessage, scheduleAnswerChart } from '../engine/chart';
import type { TariffWatch } from './tariff-watch';

export type { ChartMessage };

/** The next `days` of the schedule as chart messages; throws while there is no tariff to chart. */
export function tariffChart(watch: Pick<TariffWatch, 'schedule'>, days: number): ChartMessage[] {
  return scheduleAnswerChart(watch.schedule(days * 24));
}
