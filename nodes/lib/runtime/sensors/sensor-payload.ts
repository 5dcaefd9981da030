// What the sensors node sends for each sensor, its staleness, the filter and the
// "only changed" comparison. Node-RED-free so it is tested alone.
import type { Sensor } from '../../api/client';
import { decodeSensorId, DecodedSensorId } from '../../api/sensor-ids';
import { isFromFuture } from '../../engine/common/future-readings';

export interface SensorPayload {
  id: string;
  name: string;
  value: number;
  unit: string | null;
  /** Seconds between the sensor's samples, as the API sends it; null when it sends none. */
  interval: number | null;
  /** ISO 8601 UTC of the sensor's last value. */
  timestamp: string;
  /** The same instant in epoch ms. */
  ts: number;
  /** The last value is older than STALE_INTERVALS of the sensor's own intervals (see staleAfterMs). */
  stale: boolean;
  /**
   * The timestamp lies more than MAX_CLOCK_AHEAD_MS ahead of this machine's clock: the
   * gateway's clock (or this machine's) is wrong (docs/semantics.md, "Readings from the future").
   */
  future: boolean;
  decoded: DecodedSensorId;
}

/** How many of its own intervals a sensor may miss before its value counts as stale. */
export const STALE_INTERVALS = 3;
/** The interval assumed when the API gives none (seconds): gateways sample every minute. */
export const DEFAULT_INTERVAL_SEC = 60;
/**
 * Sensor timestamps come floored to the minute (YYYY-MM-DDThh:mmZ), so a fresh value
 * can look up to a minute old; that minute is never counted against the sensor.
 */
export const TIMESTAMP_RESOLUTION_MS = 60_000;

/**
 * How old a sensor's value may be before it is stale. The interface leaves the unit of
 * `interval` open; the service (and the simulator) send seconds (60 for a
 * once-a-minute meter), so seconds it is.
 */
export function staleAfterMs(intervalSec: number | null): number {
  const interval = typeof intervalSec === 'number' && intervalSec > 0 ? intervalSec : DEFAULT_INTERVAL_SEC;
  return STALE_INTERVALS * interval * 1000 + TIMESTAMP_RESOLUTION_MS;
}

export function sensorPayload(sensor: Sensor, now: number): SensorPayload {
  return {
    id: sensor.id,
    name: sensor.name,
    value: sensor.value,
    unit: sensor.unit,
    interval: sensor.interval,
    timestamp: new Date(sensor.timestamp).toISOString(),
    ts: sensor.timestamp,
    stale: now - sensor.timestamp > staleAfterMs(sensor.interval),
    future: isFromFuture(sensor.timestamp, now),
    decoded: decodeSensorId(sensor.id),
  };
}

/**
 * The `sensors` property: sensor ids separated by commas, spaces or new lines as the
 * editor's text field stores them, or an array of ids in a hand-written flow. Empty
 * means every sensor.
 */
export function parseSensorFilter(value: unknown): string[] {
  const parts = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value.split(/[\s,]+/) : [];
  return [...new Set(parts.map((id) => id.trim()).filter((id) => id !== ''))];
}

/** The sensors the filter asks for, in the gateway's order; every sensor for an empty filter. */
export function selectSensors<T extends { id: string }>(sensors: T[], filter: string[]): T[] {
  if (filter.length === 0) return sensors;
  const wanted = new Set(filter);
  return sensors.filter((s) => wanted.has(s.id));
}

/** Filter ids the gateway does not have: said in the status, so a typo does not go unnoticed. */
export function missingSensors(sensors: Array<{ id: string }>, filter: string[]): string[] {
  const present = new Set(sensors.map((s) => s.id));
  return filter.filter((id) => !present.has(id));
}

/**
 * Remembers what was last sent per sensor, for `onlyChanged`: a sensor counts as
 * changed when its value or its stale or future flag differs from the last one sent (a
 * sensor going quiet is news too). A new timestamp with the same value is not a change.
 */
export class ChangeTracker {
  private readonly sent = new Map<string, { value: number; stale: boolean; future: boolean }>();

  changed(payload: SensorPayload): boolean {
    const before = this.sent.get(payload.id);
    return !before || !Object.is(before.value, payload.value) || before.stale !== payload.stale || before.future !== payload.future;
  }

  remember(payload: SensorPayload): void {
    this.sent.set(payload.id, { value: payload.value, stale: payload.stale, future: payload.future });
  }
}
