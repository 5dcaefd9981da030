// Every fault of the simulator against the real Node-RED runtime: the tariff node keeps
// pricing from the last good tariffs (stale, with their age) and keeps switching at
// boundaries while the service misbehaves, a Catch node gets the cause in words, the
// request rate stays bounded, and service resumes within one refresh once the fault
// clears. The token is a canary grepped in everything the runtime showed.
import should from 'should';
import type { Faults, Simulator } from '../../sim/server';
import type { AccountNode } from '../../nodes/lib/runtime/account/account-link';
import easyTariff = require('../../nodes/easy-tariff');
import easySensors = require('../../nodes/easy-sensors');
import { FakeClock, helper, installClock, quiet } from '../nodes/flow-support';
import {
  canarySimulator,
  CANARY,
  lastStatus,
  SERVICE_FAULTS,
  fastAccount,
  inbox,
  loadWithCanary,
  shouldNotLeakAnywhere,
  tariffsWithFlicker,
} from './support';

/** The tariff node's refresh: 0.015 min = 900 ms. */
const REFRESH_MIN = 0.015;
const REFRESH_MS = REFRESH_MIN * 60_000;
/** How long each fault is held once it has been reported. */
const HOLD_MS = 600;

async function waitFor(what: string, check: () => boolean, ms: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await quiet(15);
  }
  return Date.now() - started;
}

interface FaultCase {
  name: keyof typeof SERVICE_FAULTS;
  /** The cause, as the Catch node gets it. */
  words: RegExp;
  /** Consecutive requests under this fault are at least this far apart (Retry-After obeyed). */
  minGapMs?: number;
}

const CASES: FaultCase[] = [
  { name: 'latency beyond the deadline', words: /did not answer within 1 s \(gave up after 2 attempts\)/ },
  { name: 'dropped connections', words: /could not reach 127\.0\.0\.1: the connection was dropped/ },
  { name: '429 with Retry-After in seconds', words: /limiting requests \(429\), it asks to wait 1 s/, minGapMs: 240 },
  { name: '429 with Retry-After as an HTTP date', words: /limiting requests \(429\), it asks to wait [0-9.]+ m?s/, minGapMs: 240 },
  { name: '429 with an absurdly large Retry-After', words: /limiting requests \(429\), it asks to wait \d+ days/, minGapMs: 240 },
  { name: 'a burst of 503s', words: /a problem on its side \(503\)/ },
  { name: 'a burst of 500s', words: /a problem on its side \(500\)/ },
  { name: 'malformed JSON', words: /the tariffs answer is not valid JSON/ },
  { name: 'truncated JSON', words: /the tariffs answer is cut off \(incomplete JSON\)/ },
  { name: 'a connection cut mid-answer', words: /connection was dropped/ },
  { name: 'an object instead of the list', words: /the tariffs answer is an object, not a list of tariffs/ },
  { name: 'tariffs missing required fields', words: /no usable tariff.*rules/ },
  { name: 'numbers sent as strings', words: /no usable tariff.*(vat|price)/ },
  { name: 'a 5 MB body', words: /the answer was larger than the 2 MB limit/ },
  { name: 'token revoked mid-run (401)', words: /the access token was rejected \(401\)/ },
  { name: 'tariffs feature removed (403)', words: /this account has no access to tariffs \(403\)/ },
];

describe('reliability: faults of the service, with the real runtime', function () {
  this.timeout(15000);
  let sim: Simulator;

  afterEach(async () => {
    await helper.unload();
    await sim?.close();
  });

  describe('easy-tariff keeps pricing from the last good tariffs', () => {
    for (const c of CASES) {
      it(c.name, async () => {
        sim = await canarySimulator({ tariffs: tariffsWithFlicker() });
        await loadWithCanary(
          [easyTariff],
          [
            fastAccount(sim),
            { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'FLICKER', refresh: REFRESH_MIN, wires: [['out']] },
            { id: 'out', type: 'helper' },
          ],
        );
        const out = inbox('out');
        const caught = inbox('caught');
        const node = helper.getNode('t');
        const [first] = await out.next(1);
        should(first.payload).containEql({ stale: false, reason: null });

        sim.setFaults({ scope: 'tariffs', ...SERVICE_FAULTS[c.name]() });
        sim.resetRequests();
        const faultAt = Date.now();

        // a Catch node gets the cause in words, from the tariff node, with the price it still has
        const [err] = await caught.next(1, REFRESH_MS + 4000);
        should(err.error.message).match(/tariffs could not be refreshed: .*\(pricing from the last good ones\)/);
        should(err.error.message).match(c.words);
        should(err.error.source.id).equal('t');
        should(err.payload.price).be.a.Number();

        // the price still switches at the next boundary, marked stale with the tariffs' age
        out.received.length = 0;
        const [next] = await out.next(1, 1500);
        should(next.payload).containEql({ stale: true });
        should([0.2, 0.4]).containEql(next.payload.price);
        should(Date.parse(next.payload.validFrom) % 1000).equal(0);
        await quiet(20);
        const shown = lastStatus(node.id)!;
        should(shown.fill).equal('yellow');
        should(shown.text).match(/^0\.[24]0 GBP\/kWh until \d\d:\d\d(:\d\d)? · tariffs under a minute old$/);

        // held a while longer: a bounded number of requests, no retry storm
        await quiet(Math.max(0, faultAt + REFRESH_MS + HOLD_MS - Date.now()));
        const during = sim.requests.filter((r) => r.endpoint === 'tariffs');
        const window = Date.now() - faultAt;
        should(during.length).be.within(1, 2 * Math.ceil(window / 300));
        if (c.minGapMs) {
          for (let k = 1; k < during.length; k++) should(during[k].at - during[k - 1].at).be.aboveOrEqual(c.minGapMs);
        }

        // cleared: fresh within one refresh (plus a request), the price green again
        sim.clearFaults();
        await waitFor('a fresh price', () => lastStatus(node.id)!.fill === 'green', REFRESH_MS + 1000);
        const snapshot = (helper.getNode('acc') as AccountNode).hub!.tariffs();
        should(snapshot).containEql({ stale: false, error: null });
        should(Date.now() - snapshot.fetchedAt!).be.below(REFRESH_MS + 1000);
        shouldNotLeakAnywhere(first, err, next, out.received, caught.received);
      });
    }

    it("429 with a Retry-After beyond the client's cap: the account waits it out before asking again", async () => {
      sim = await canarySimulator({ tariffs: tariffsWithFlicker(), faults: { scope: 'tariffs', rateLimit: 'all', retryAfter: 2 } });
      await loadWithCanary(
        [easyTariff],
        [
          fastAccount(sim),
          { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'FLICKER', refresh: REFRESH_MIN, wires: [['out']] },
          { id: 'out', type: 'helper' },
        ],
      );
      const [err] = await inbox('caught').next(1, 3000);
      should(err.error.message).match(/limiting requests \(429\), it asks to wait 2 s \(gave up after 2 attempts\)/);
      const gaveUp = Date.now();
      const count = () => sim.requests.filter((r) => r.at > gaveUp).length;
      // the client waited 250 ms of the 2 s between its two attempts; the account waits the
      // rest (not its own 300 ms first retry), capped by the refresh (900 ms)
      await quiet(REFRESH_MS - 150);
      should(count()).equal(0);
      await waitFor('the next attempt', () => count() > 0, 1500);
    });

    it('DNS failure (unresolvable host): says so, prices nothing, bounded retries', async () => {
      sim = await canarySimulator();
      await loadWithCanary(
        [easyTariff],
        [
          fastAccount({ url: 'http://nonexistent.invalid' }),
          { id: 't', type: 'easy-tariff', account: 'acc', tariff: 'FLICKER', refresh: REFRESH_MIN, wires: [['out']] },
          { id: 'out', type: 'helper' },
        ],
      );
      const out = inbox('out');
      const caught = inbox('caught');
      const [msg] = await out.next(1, 3000);
      should(msg.payload).containEql({ price: null, gross: null });
      should(msg.payload.reason).match(/could not reach nonexistent\.invalid: DNS lookup failed/);
      const [err] = await caught.next(1);
      should(err.error.message).match(/tariffs could not be fetched: could not reach nonexistent\.invalid: DNS lookup failed/);
      await quiet(20);
      should(lastStatus('t')).eql({ fill: 'red', shape: 'ring', text: 'service unreachable' });
      await quiet(1000);
      // told once per problem, not at every retry
      should(caught.received).have.length(0);
      shouldNotLeakAnywhere(msg, err);
    });
  });

  describe('easy-sensors says what happened and polls on (fake clock)', () => {
    let clock: FakeClock | null = null;
    afterEach(() => {
      clock?.uninstall();
      clock = null;
    });

    const SENSOR_CASES: Array<{ name: string; faults: () => Partial<Faults>; words: RegExp }> = [
      {
        name: 'gateway removed (404)',
        faults: () => ({ removedGateways: ['DEMO'] }),
        words: /gateway DEMO: gateway DEMO not found on this account \(404\)/,
      },
      {
        name: 'token revoked mid-run (401)',
        faults: () => ({ revokedTokens: [CANARY] }),
        words: /gateway DEMO: the access token was rejected \(401\)/,
      },
      {
        name: 'a burst of 503s',
        faults: () => ({ scope: 'sensors', serverError: 'all' }),
        words: /gateway DEMO: the service has a problem on its side \(503\)/,
      },
      {
        name: 'dropped connections',
        faults: () => ({ scope: 'sensors', drop: 'all' }),
        words: /gateway DEMO: could not reach 127\.0\.0\.1: the connection was dropped/,
      },
      {
        name: 'malformed JSON',
        faults: () => ({ scope: 'sensors', body: 'malformed' }),
        words: /gateway DEMO: the sensors answer of gateway DEMO is not valid JSON/,
      },
      {
        name: 'truncated JSON',
        faults: () => ({ scope: 'sensors', body: 'truncated' }),
        words: /gateway DEMO: the sensors answer of gateway DEMO is cut off/,
      },
      {
        name: 'an object instead of the list',
        faults: () => ({ scope: 'sensors', body: 'object' }),
        words: /is an object, not a list of sensors/,
      },
      {
        name: 'a sensor missing its value',
        faults: () => ({ scope: 'sensors', body: 'missing-fields' }),
        words: /has value missing, expected a number/,
      },
      {
        name: 'a 5 MB body',
        faults: () => ({ scope: 'sensors', body: 'huge' }),
        words: /gateway DEMO: the answer was larger than the 2 MB limit/,
      },
      {
        name: 'sensor value sent as text',
        faults: () => ({ scope: 'sensors', body: 'string-numbers' }),
        words: /gateway DEMO: .*has value the text "[-0-9.]+", expected a number/,
      },
    ];
    for (const c of SENSOR_CASES) {
      it(c.name, async () => {
        sim = await canarySimulator();
        clock = installClock();
        await loadWithCanary(
          [easySensors],
          [
            // a retry's wait and the deadline would be fake time too: a 5 MB answer still on its way in real time must not time out
            fastAccount(sim, { retries: 0, timeoutMs: 3_600_000 }),
            {
              id: 's',
              type: 'easy-sensors',
              account: 'acc',
              gateway: 'DEMO',
              interval: 10,
              output: 'all',
              onlyChanged: false,
              sensors: '',
              wires: [['out']],
            },
            { id: 'out', type: 'helper' },
          ],
        );
        const out = inbox('out');
        const caught = inbox('caught');
        const node = helper.getNode('s');
        await out.next(1);
        sim.setFaults(c.faults());
        sim.resetRequests();
        for (let k = 0; k < 6; k++) {
          await clock.tickAsync(10_000);
          await quiet(60);
        }
        const [err] = await caught.next(1);
        should(err.error.message).match(c.words);
        should(err.error.source.id).equal('s');
        should(caught.received).have.length(0); // once per error state, not per poll
        should(lastStatus(node.id)!).match({ fill: 'red', text: /· last good \d\d:\d\d/ });
        // at most one poll per interval, failed or not (fewer when an answer takes real time): six in a minute
        should(sim.requests.filter((r) => r.endpoint === 'sensors').length).be.within(1, 6);

        sim.clearFaults();
        out.received.length = 0;
        await clock.tickAsync(10_000);
        await out.next(1);
        await quiet(20);
        should(lastStatus(node.id)!).match({ fill: 'green' });
        shouldNotLeakAnywhere(err, out.received);
      });
    }
  });
});
