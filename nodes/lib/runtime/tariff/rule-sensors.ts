// The values of the sensors a tariff's rules read, as TariffWatch knows them: from input
// messages (by gateway and sensor, or by sensor id alone), from the hub's polls, and kept
// in a store across restarts. The latest source of a value wins.

import type { HubStore, SensorSnapshot } from '../account/hub';
import type { SensorValues } from '../../engine/tariff/price';
import { SensorRef, sensorKey, sensorsUsedBy, Tariff } from '../../engine/tariff/tariff';
import { dataRecord, nestedField, setNested } from '../../engine/common/id-map';
import type { DroppedState } from '../../engine/common/stored-checks';
import { MAX_ID_CHARS } from '../../engine/common/limits';

/** Far above any tariff's sensor rules; what is kept beyond it is dropped. */
const MAX_KEPT_SENSORS = 1000;

/** A kept sensor value, as stored: plain JSON. */
interface KeptSensor {
  gatewayId: string;
  sensorId: string;
  value: number;
}

/** A sensor value and the order in which it arrived, so the latest source wins. */
interface Known {
  value: number;
  seq: number;
}

export class RuleSensors {
  /** By `gateway \0 sensor` (polls and messages naming a gateway) and by sensor id alone. */
  private readonly byGateway = new Map<string, Known>();
  private readonly byId = new Map<string, Known>();
  /** The last polled value and timestamp per sensor: a poll only counts when it brings news. */
  private readonly lastPolled = new Map<string, string>();
  private seq = 0;

  /** A value from a message; without a gateway it stands for that sensor id on any gateway. */
  set(gatewayId: string | undefined, sensorId: string, value: number): void {
    const known = { value, seq: ++this.seq };
    if (gatewayId === undefined) this.byId.set(sensorId, known);
    else this.byGateway.set(sensorKey(gatewayId, sensorId), known);
  }

  /** The values of a poll's answer; true when one of them is news. */
  setPolled(s: SensorSnapshot): boolean {
    let changed = false;
    for (const sensor of s.sensors) {
      const key = sensorKey(s.gatewayId, sensor.id);
      const reading = `${sensor.value}@${sensor.timestamp}`;
      if (this.lastPolled.get(key) === reading) continue;
      this.lastPolled.set(key, reading);
      this.byGateway.set(key, { value: sensor.value, seq: ++this.seq });
      changed = true;
    }
    return changed;
  }

  /** The known values of the sensors the tariff's rules read, as the price engine takes them. */
  values(tariff: Tariff): SensorValues {
    const sensors: SensorValues = dataRecord();
    for (const ref of sensorsUsedBy(tariff)) {
      const a = this.byGateway.get(sensorKey(ref.gatewayId, ref.sensorId));
      const b = this.byId.get(ref.sensorId);
      const known = a && b ? (a.seq > b.seq ? a : b) : (a ?? b);
      if (known) setNested(sensors, ref.gatewayId, ref.sensorId, known.value);
    }
    return sensors;
  }

  /** The sensors the tariff's rules read whose value is not known. */
  unknown(tariff: Tariff): SensorRef[] {
    const sensors = this.values(tariff);
    return sensorsUsedBy(tariff).filter((r) => nestedField(sensors, r.gatewayId, r.sensorId) === undefined);
  }

  /**
   * Takes the values a store kept from before a restart; anything known already is newer
   * and stays. What `keep` could not have written (another shape, more than
   * MAX_KEPT_SENSORS) is dropped and named in `dropped`.
   */
  restore(kept: unknown, dropped: DroppedState): void {
    if (kept === undefined || kept === null) return;
    if (!Array.isArray(kept)) return dropped.add('everything: not a list of sensor values');
    if (kept.length > MAX_KEPT_SENSORS) dropped.add(`${kept.length - MAX_KEPT_SENSORS} values beyond the ${MAX_KEPT_SENSORS} kept`);
    let bad = 0;
    for (const k of kept.slice(0, MAX_KEPT_SENSORS)) {
      if (!isKeptSensor(k)) {
        bad++;
        continue;
      }
      const key = sensorKey(k.gatewayId, k.sensorId);
      if (!this.byGateway.has(key)) this.byGateway.set(key, { value: k.value, seq: 0 });
    }
    if (bad) dropped.add(`${bad} of ${kept.length} entries that are not a sensor's value ({ gatewayId, sensorId, value })`);
  }

  /** Saves the known values of the tariff's sensors, for `restore` after a restart. */
  keep(tariff: Tariff, store: HubStore): void {
    const kept: KeptSensor[] = [];
    const sensors = this.values(tariff);
    for (const ref of sensorsUsedBy(tariff)) {
      const value = nestedField(sensors, ref.gatewayId, ref.sensorId);
      if (typeof value === 'number') kept.push({ gatewayId: ref.gatewayId, sensorId: ref.sensorId, value });
    }
    // losing them only costs a wait for the first poll after a restart
    store.save(kept).catch(() => undefined);
  }
}

function isKeptSensor(x: unknown): x is KeptSensor {
  if (typeof x !== 'object' || x === null) return false;
  const k = x as Record<string, unknown>;
  const id = (x: unknown) => typeof x === 'string' && x !== '' && x.length <= MAX_ID_CHARS;
  return id(k.gatewayId) && id(k.sensorId) && typeof k.value === 'number' && Number.isFinite(k.value);
}
