import should from 'should';
import type { Sensor } from '../../nodes/lib/api/client';
import {
  ChangeTracker,
  missingSensors,
  parseSensorFilter,
  selectSensors,
  sensorPayload,
  staleAfterMs,
} from '../../nodes/lib/runtime/sensors/sensor-payload';

const T = Date.parse('2026-03-04T10:00:00Z');

function sensor(over: Partial<Sensor> = {}): Sensor {
  return { id: 'e1.kwh', name: 'Main', value: 12.5, unit: 'kWh', interval: 60, timestamp: T, timestampRaw: '2026-03-04T10:00Z', ...over };
}

describe('sensor payloads', () => {
  it('carries the fields of the sensor, both time forms and the decoded id', () => {
    should(sensorPayload(sensor(), T + 1000)).eql({
      id: 'e1.kwh',
      name: 'Main',
      value: 12.5,
      unit: 'kWh',
      interval: 60,
      timestamp: '2026-03-04T10:00:00.000Z',
      ts: T,
      stale: false,
      future: false,
      decoded: { kind: 'modbus', address: 1, subsensor: 'kwh', quantity: 'energy' },
    });
    should(sensorPayload(sensor({ id: '1' }), T).decoded).eql({ kind: 'digital_input', channel: 1 });
    should(sensorPayload(sensor({ id: 'weird' }), T).decoded).eql({ kind: 'unknown' });
  });

  it('is stale after three of its own intervals (seconds) plus the minute the timestamp hides', () => {
    should(staleAfterMs(60)).equal(4 * 60_000);
    should(staleAfterMs(300)).equal(16 * 60_000);
    should(sensorPayload(sensor(), T + 4 * 60_000).stale).be.false();
    should(sensorPayload(sensor(), T + 4 * 60_000 + 1).stale).be.true();
    should(sensorPayload(sensor({ interval: 300 }), T + 10 * 60_000).stale).be.false();
  });

  it('assumes one minute when the sensor gives no usable interval', () => {
    should(staleAfterMs(null)).equal(staleAfterMs(60));
    should(staleAfterMs(0)).equal(staleAfterMs(60));
    should(sensorPayload(sensor({ interval: null }), T + 5 * 60_000).stale).be.true();
  });

  it('reads the filter from text or a list, dropping blanks and repeats', () => {
    should(parseSensorFilter('e1.kwh, 1\n 2,,1')).eql(['e1.kwh', '1', '2']);
    should(parseSensorFilter(['17', ' 18 '])).eql(['17', '18']);
    should(parseSensorFilter('')).eql([]);
    should(parseSensorFilter(undefined)).eql([]);
  });

  it('selects the filtered sensors in gateway order and names the missing ones', () => {
    const all = [{ id: 'e1.kwh' }, { id: '1' }, { id: '2' }];
    should(selectSensors(all, [])).equal(all);
    should(selectSensors(all, ['2', 'e1.kwh'])).eql([{ id: 'e1.kwh' }, { id: '2' }]);
    should(missingSensors(all, ['2', 'e9.kwh'])).eql(['e9.kwh']);
  });

  it('calls a sensor changed on a new value or stale flag, not on a new timestamp alone', () => {
    const tracker = new ChangeTracker();
    const first = sensorPayload(sensor(), T);
    should(tracker.changed(first)).be.true();
    tracker.remember(first);
    should(tracker.changed(sensorPayload(sensor({ timestamp: T + 60_000 }), T + 60_000))).be.false();
    should(tracker.changed(sensorPayload(sensor({ value: 12.6 }), T))).be.true();
    should(tracker.changed(sensorPayload(sensor(), T + 3600e3))).be.true(); // went stale
  });
});
