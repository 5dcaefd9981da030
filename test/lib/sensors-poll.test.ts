import should from 'should';
import type { SensorSnapshot } from '../../nodes/lib/runtime/account/hub';
import { SensorsPoll, SensorsPollOptions, WATCHDOG_INTERVALS, WATCHDOG_SLACK_MS } from '../../nodes/lib/runtime/sensors/sensors-poll';
import { FakeClock, installClock } from '../fake-clock';

const T0 = Date.parse('2026-03-04T10:00:00Z');
const sensor = (id: string, value: number, ts = T0) => ({
  id,
  name: id,
  value,
  unit: 'kWh',
  interval: 60,
  timestamp: ts,
  timestampRaw: '',
});

/** A hub that hands out what the test pushes, and counts subscriptions. */
function fakeHub() {
  const hub = {
    listeners: [] as Array<(s: SensorSnapshot) => void>,
    subscriptions: 0,
    inFlight: false,
    watchSensors(_gateway: string, _interval: number, listener: (s: SensorSnapshot) => void) {
      hub.subscriptions += 1;
      hub.listeners.push(listener);
      return () => {
        hub.listeners = hub.listeners.filter((l) => l !== listener);
      };
    },
    pollInFlight: () => hub.inFlight,
    push(s: Partial<SensorSnapshot>) {
      for (const l of hub.listeners) l({ gatewayId: 'G', sensors: [], polledAt: null, error: null, ...s });
    },
  };
  return hub;
}

function setUp(over: Partial<SensorsPollOptions> = {}) {
  const hub = fakeHub();
  const seen = {
    sent: [] as unknown[],
    statuses: [] as string[],
    problems: [] as string[],
    warnings: [] as string[],
    logs: [] as string[],
  };
  const poll = new SensorsPoll({
    hub,
    gateway: 'G',
    intervalSec: 60,
    output: 'each',
    onlyChanged: false,
    filter: [],
    timezone: 'Europe/Lisbon',
    send: (m) => seen.sent.push(m),
    status: (s) => seen.statuses.push(`${s.fill}: ${s.text}`),
    problem: (t) => seen.problems.push(t),
    warn: (t) => seen.warnings.push(t),
    log: (t) => seen.logs.push(t),
    ...over,
  });
  poll.start();
  return { hub, poll, seen };
}

describe('SensorsPoll: easy-sensors without Node-RED', () => {
  let clock: FakeClock;
  beforeEach(() => {
    clock = installClock();
  });
  afterEach(() => clock.uninstall());

  it('sends each poll once, one message per sensor, and says how many and when in the status', () => {
    const { hub, seen, poll } = setUp();
    const polled = { sensors: [sensor('e1.kwh', 1), sensor('e2.kwh', 2)], polledAt: T0 };
    hub.push(polled);
    hub.push(polled); // the same poll handed to a newcomer
    should(seen.sent).match([{ topic: 'e1.kwh', gateway: 'G', payload: { id: 'e1.kwh', value: 1 } }, { topic: 'e2.kwh' }]);
    should(seen.sent).have.length(2);
    should(seen.statuses.pop()).equal('green: 2 sensors · 10:00:00');
    poll.close();
  });

  it('with onlyChanged sends only what changed; all mode sends one message with the changed ids; current() sends everything', () => {
    const { hub, seen, poll } = setUp({ output: 'all', onlyChanged: true });
    hub.push({ sensors: [sensor('a', 1), sensor('b', 2)], polledAt: T0 });
    hub.push({ sensors: [sensor('a', 1), sensor('b', 3)], polledAt: T0 + 60_000 });
    hub.push({ sensors: [sensor('a', 1), sensor('b', 3)], polledAt: T0 + 120_000 });
    should(seen.sent.map((m) => (m as { changed: string[] }).changed)).eql([['a', 'b'], ['b']]);
    should(poll.current()).match([{ topic: 'G', payload: [{ id: 'a' }, { id: 'b', value: 3 }], changed: [] }]);
    poll.close();
  });

  it('reports a failing poll once per error state, says when it works again, and names missing filter ids', () => {
    const { hub, seen, poll } = setUp({ filter: ['e1.kwh', 'e9.kwh'] });
    should(() => poll.current()).throw('no sensor values from gateway G yet');
    hub.push({ error: new Error('service unreachable') });
    hub.push({ error: new Error('service unreachable') });
    should(() => poll.current()).throw('no sensor values from gateway G yet: service unreachable');
    hub.push({ error: new Error('the access token was rejected (401)') });
    should(seen.problems).eql(['gateway G: service unreachable', 'gateway G: the access token was rejected (401)']);
    should(seen.statuses.pop()).equal('red: the access token was rejected (401) · last good never');
    hub.push({ sensors: [sensor('e1.kwh', 1)], polledAt: T0 });
    should(seen.logs).eql(['gateway G: polling works again']);
    should(seen.statuses.pop()).equal('yellow: not on G: e9.kwh · 10:00:00');
    poll.close();
  });

  it('subscribes again when the hub stays quiet, but not while a poll is on its way', async () => {
    const { hub, seen, poll } = setUp();
    const quiet = WATCHDOG_INTERVALS * 60_000 + WATCHDOG_SLACK_MS;
    hub.push({ sensors: [sensor('e1.kwh', 1)], polledAt: T0 });
    await clock.tickAsync(quiet - 1000);
    should(hub.subscriptions).equal(1);
    hub.inFlight = true;
    await clock.tickAsync(2000);
    should(hub.subscriptions).equal(1); // slow but alive: left alone
    hub.inFlight = false;
    await clock.tickAsync(quiet);
    should(hub.subscriptions).equal(2);
    should(hub.listeners).have.length(1); // the old subscription was given up
    should(seen.warnings).eql([`gateway G: no poll for ${WATCHDOG_INTERVALS} intervals, polling again`]);
    poll.close();
    await clock.tickAsync(10 * quiet);
    should(hub.subscriptions).equal(2);
  });
});
