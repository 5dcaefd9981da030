// The sensor values an input message carries to easy-tariff or easy-plan (a tariff's
// sensor rules read them): what a message may look like, and the error a user reads
// when it is none of those.
import { describe } from '../../engine/time/time-instant';

export interface SensorReading {
  gatewayId: string | undefined;
  sensorId: string;
  value: number;
}

/**
 * The sensor values a message carries: msg.topic = sensor id (or payload.id), msg.gateway
 * optional, msg.payload a number, a numeric string, a boolean, an easy-sensors payload
 * `{ id, value, ... }`, or the array of those that easy-sensors sends in `all` mode.
 * Throws a TypeError a user understands otherwise.
 */
/** The code of sensorsFromMessage's error for a message that names no sensor (a node with commands words its own). */
export const NOT_A_SENSOR_VALUE = 'not_a_sensor_value';

/** The error for a message a node with commands (`expected`) does not understand, naming what came. */
export function unknownCommand(expected: string, payload: unknown): Error {
  return new Error(`expected ${expected}, or a sensor value with msg.topic set to the sensor id; got msg.payload ${describe(payload)}`);
}

export function sensorsFromMessage(msg: { topic?: unknown; gateway?: unknown; payload?: unknown }): SensorReading[] {
  const gatewayId = nonEmpty(msg.gateway) ?? undefined;
  if (Array.isArray(msg.payload)) return msg.payload.map((item) => reading(gatewayId, undefined, item));
  return [reading(gatewayId, msg.topic, msg.payload)];
}

function reading(gatewayId: string | undefined, topic: unknown, payload: unknown): SensorReading {
  const inner = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : null;
  const sensorId = nonEmpty(topic) ?? nonEmpty(inner?.id);
  if (!sensorId) {
    throw Object.assign(new TypeError("expected msg.payload 'schedule', or a sensor value with msg.topic set to the sensor id"), {
      code: NOT_A_SENSOR_VALUE,
    });
  }
  const value = toNumber(inner ? inner.value : payload);
  if (value === null) {
    throw new TypeError(`sensor ${sensorId}: msg.payload must be a number (or an easy-sensors payload with a numeric value)`);
  }
  return { gatewayId, sensorId, value };
}

function nonEmpty(x: unknown): string | null {
  if (typeof x === 'number' && Number.isFinite(x)) return String(x);
  return typeof x === 'string' && x.trim() !== '' ? x.trim() : null;
}

function toNumber(x: unknown): number | null {
  if (typeof x === 'boolean') return x ? 1 : 0;
  if (typeof x === 'number') return Number.isFinite(x) ? x : null;
  if (typeof x === 'string' && x.trim() !== '' && Number.isFinite(Number(x))) return Number(x);
  return null;
}
