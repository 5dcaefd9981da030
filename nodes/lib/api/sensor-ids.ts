// Decodes the sensor identifiers the interface documents ("Sensor identifiers"):
// modbus slaves `e<X>.<SID>` and the built-in I/O of the gateway. Pure, no I/O.

export type ModbusQuantity = 'energy' | 'voltage' | 'current' | 'frequency' | 'power_factor' | 'unknown';

export type DecodedSensorId =
  | {
      kind: 'modbus';
      /** Decimal modbus address of the slave device (the X of eX.SID). */
      address: number;
      /** The SID exactly as it appeared, so an unknown one is not lost. */
      subsensor: string;
      /** 'unknown' for a subsensor the interface does not list (device-specific ones exist). */
      quantity: ModbusQuantity;
      /** 1..3 for the per-phase voltage and current subsensors. */
      phase?: 1 | 2 | 3;
    }
  | { kind: 'digital_input' | 'relay' | 'analogue_input'; /** 1 or 2: which input/relay of the gateway. */ channel: 1 | 2 }
  | { kind: 'gsm_signal' }
  | { kind: 'unknown' };

const MODBUS_ID = /^e(\d+)\.(.+)$/;
const PHASED = /^([vi])3p@([123])$/;

const SIMPLE_SUBSENSORS: Record<string, ModbusQuantity> = {
  kwh: 'energy',
  freq: 'frequency',
  pf: 'power_factor',
};

const BUILT_IN: Record<string, DecodedSensorId> = {
  '1': { kind: 'digital_input', channel: 1 },
  '2': { kind: 'digital_input', channel: 2 },
  '17': { kind: 'relay', channel: 1 },
  '18': { kind: 'relay', channel: 2 },
  '129': { kind: 'analogue_input', channel: 1 },
  '130': { kind: 'analogue_input', channel: 2 },
  '158': { kind: 'gsm_signal' },
};

/**
 * What a sensor id means. Matching is exact and case-sensitive, as the interface
 * spells the ids; anything not documented is `{ kind: 'unknown' }` rather than a guess.
 */
export function decodeSensorId(id: unknown): DecodedSensorId {
  if (typeof id !== 'string') return { kind: 'unknown' };
  // hasOwnProperty: ids such as "constructor" must not find Object.prototype members.
  if (Object.prototype.hasOwnProperty.call(BUILT_IN, id)) return { ...BUILT_IN[id] };

  const modbus = MODBUS_ID.exec(id);
  if (!modbus) return { kind: 'unknown' };
  const address = Number(modbus[1]);
  const subsensor = modbus[2];

  const phased = PHASED.exec(subsensor);
  if (phased) {
    return {
      kind: 'modbus',
      address,
      subsensor,
      quantity: phased[1] === 'v' ? 'voltage' : 'current',
      phase: Number(phased[2]) as 1 | 2 | 3,
    };
  }
  const quantity = Object.prototype.hasOwnProperty.call(SIMPLE_SUBSENSORS, subsensor) ? SIMPLE_SUBSENSORS[subsensor] : 'unknown';
  return { kind: 'modbus', address, subsensor, quantity };
}
