import should from 'should';
import { decodeSensorId } from '../../nodes/lib/api/sensor-ids';

describe('decodeSensorId', () => {
  describe('modbus slaves eX.SID', () => {
    const cases: Array<[string, object]> = [
      ['e1.kwh', { kind: 'modbus', address: 1, subsensor: 'kwh', quantity: 'energy' }],
      ['e1.v3p@1', { kind: 'modbus', address: 1, subsensor: 'v3p@1', quantity: 'voltage', phase: 1 }],
      ['e1.v3p@2', { kind: 'modbus', address: 1, subsensor: 'v3p@2', quantity: 'voltage', phase: 2 }],
      ['e1.v3p@3', { kind: 'modbus', address: 1, subsensor: 'v3p@3', quantity: 'voltage', phase: 3 }],
      ['e1.i3p@1', { kind: 'modbus', address: 1, subsensor: 'i3p@1', quantity: 'current', phase: 1 }],
      ['e1.i3p@2', { kind: 'modbus', address: 1, subsensor: 'i3p@2', quantity: 'current', phase: 2 }],
      ['e1.i3p@3', { kind: 'modbus', address: 1, subsensor: 'i3p@3', quantity: 'current', phase: 3 }],
      ['e1.freq', { kind: 'modbus', address: 1, subsensor: 'freq', quantity: 'frequency' }],
      ['e1.pf', { kind: 'modbus', address: 1, subsensor: 'pf', quantity: 'power_factor' }],
      ['e247.kwh', { kind: 'modbus', address: 247, subsensor: 'kwh', quantity: 'energy' }],
      ['e0.kwh', { kind: 'modbus', address: 0, subsensor: 'kwh', quantity: 'energy' }],
      ['e12.freq', { kind: 'modbus', address: 12, subsensor: 'freq', quantity: 'frequency' }],
    ];
    for (const [id, expected] of cases) {
      it(`${id} → ${JSON.stringify(expected)}`, () => {
        should(decodeSensorId(id)).eql(expected);
      });
    }

    it('keeps an undocumented subsensor as quantity "unknown" with its SID', () => {
      should(decodeSensorId('e3.kvarh')).eql({ kind: 'modbus', address: 3, subsensor: 'kvarh', quantity: 'unknown' });
      // Phase numbers outside 1..3 are not the documented per-phase subsensors.
      should(decodeSensorId('e1.v3p@4')).eql({ kind: 'modbus', address: 1, subsensor: 'v3p@4', quantity: 'unknown' });
      should(decodeSensorId('e1.i3p@0')).eql({ kind: 'modbus', address: 1, subsensor: 'i3p@0', quantity: 'unknown' });
      // Case-sensitive as documented: KWH is not kwh.
      should(decodeSensorId('e1.KWH')).eql({ kind: 'modbus', address: 1, subsensor: 'KWH', quantity: 'unknown' });
      should(decodeSensorId('e1.toString')).eql({ kind: 'modbus', address: 1, subsensor: 'toString', quantity: 'unknown' });
    });
  });

  describe('built-in I/O', () => {
    const cases: Array<[string, object]> = [
      ['1', { kind: 'digital_input', channel: 1 }],
      ['2', { kind: 'digital_input', channel: 2 }],
      ['17', { kind: 'relay', channel: 1 }],
      ['18', { kind: 'relay', channel: 2 }],
      ['129', { kind: 'analogue_input', channel: 1 }],
      ['130', { kind: 'analogue_input', channel: 2 }],
      ['158', { kind: 'gsm_signal' }],
    ];
    for (const [id, expected] of cases) {
      it(`"${id}" → ${JSON.stringify(expected)}`, () => {
        should(decodeSensorId(id)).eql(expected);
      });
    }

    it('returns a fresh object each time, so a caller cannot corrupt the table', () => {
      const first = decodeSensorId('1') as { channel: number };
      first.channel = 99;
      should(decodeSensorId('1')).eql({ kind: 'digital_input', channel: 1 });
    });
  });

  describe('anything else is { kind: "unknown" }', () => {
    const unknown: unknown[] = [
      '',
      '3',
      '16',
      '19',
      '128',
      '131',
      '157',
      '159',
      '01',
      ' 1',
      '1 ',
      'E1.kwh',
      'E1.KWH',
      'e.kwh',
      'e1.',
      'e1',
      'ex.kwh',
      'e-1.kwh',
      'f1.kwh',
      'e1kwh',
      'constructor',
      '__proto__',
      'toString',
      1,
      17,
      null,
      undefined,
      {},
      ['1'],
    ];
    for (const id of unknown) {
      it(`${JSON.stringify(id) ?? String(id)}`, () => {
        should(decodeSensorId(id)).eql({ kind: 'unknown' });
      });
    }
  });

  it('never throws, whatever it is given', () => {
    for (const id of [Symbol('x'), () => 1, new Date(), NaN, Object.create(null)]) {
      should(decodeSensorId(id)).eql({ kind: 'unknown' });
    }
  });
});
