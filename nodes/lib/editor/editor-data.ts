// What the edit dialogs show, as JSON for the admin routes (editor/admin-routes.ts):
// connection outcomes and errors in words (editor-errors), tariffs with readable rule
// rows (editor-tariffs), the 7-day price chart straight from the engine's `schedule`
// (editor-chart), a gateway's sensors with their decoded kind, and the time zone list.
// No Node-RED here; the routes only pick the credentials.
import type { Sensor } from '../api/client';
import { decodeSensorId, DecodedSensorId } from '../api/sensor-ids';
import { sensorsUsedBy, Tariff } from '../engine/tariff/tariff';
import { machineTimeZone, timeZoneNames } from '../engine/time/time';
import { MAX_SENSORS_LISTED } from '../engine/common/limits';

export { connectionFailed, connectionOk, EditorRequestError, editorError, httpStatusOf } from './editor-errors';
export type { ConnectionOutcome, EditorError, EditorErrorCode } from './editor-errors';
export { requestedTariff, ruleRow, tariffInfo, tariffList } from './editor-tariffs';
export type { RuleRow, TariffInfo, TariffList } from './editor-tariffs';
export { CHART_DAYS, chartData, localDayStarts, samePrices } from './editor-chart';
export type { ChartData, ChartLine } from './editor-chart';

export interface SensorRow {
  id: string;
  name: string;
  value: number;
  unit: string | null;
  /** Epoch ms of the last value. */
  timestamp: number;
  interval: number | null;
  kind: DecodedSensorId;
}

export interface SensorList {
  gateway: string;
  sensors: SensorRow[];
  /** Sensors of the answer beyond MAX_SENSORS_LISTED, not listed. */
  omitted: number;
}

export function sensorList(gateway: string, sensors: Sensor[]): SensorList {
  return { gateway, sensors: sensorRows(sensors.slice(0, MAX_SENSORS_LISTED)), omitted: Math.max(0, sensors.length - MAX_SENSORS_LISTED) };
}

export function sensorRows(sensors: Sensor[]): SensorRow[] {
  return sensors.map((s) => ({
    id: s.id,
    name: s.name,
    value: s.value,
    unit: s.unit,
    timestamp: s.timestamp,
    interval: s.interval,
    kind: decodeSensorId(s.id),
  }));
}

/** Gateway ids named by sensor rules of these tariffs, in order of first use. */
export function gatewaysOfTariffs(tariffs: Tariff[]): string[] {
  const out = new Set<string>();
  for (const t of tariffs) for (const ref of sensorsUsedBy(t)) out.add(ref.gatewayId);
  return [...out];
}

export interface ZoneList {
  /** Every zone name moment-timezone knows (the IANA database, links included), sorted. */
  zones: string[];
  /** The machine's zone: what an empty time zone stands for. */
  machine: string;
}

let zoneNames: string[] | null = null;

export function zoneList(): ZoneList {
  zoneNames ??= timeZoneNames();
  return { zones: zoneNames, machine: machineTimeZone() };
}
