import should from 'should';
import { PacedStatus, STATUS_EVERY_MS } from '../../nodes/lib/runtime/common/paced-status';
import type { NodeStatus } from '../../nodes/lib/runtime/common/red-types';
import { installClock } from '../fake-clock';

const routine = (n: number): NodeStatus => ({ fill: 'green', shape: 'dot', text: `total ${n}` });

describe('PacedStatus (stream mode status: at most one routine update a second)', () => {
  let clock: ReturnType<typeof installClock>;
  let shown: Array<{ at: number; text: string }>;
  let status: PacedStatus;

  beforeEach(() => {
    clock = installClock(Date.parse('2026-03-04T10:00:00Z'));
    shown = [];
    status = new PacedStatus((s) => shown.push({ at: Date.now(), text: String(s.text) }));
  });
  afterEach(() => clock.uninstall());

  it('shows the first at once and only the latest of a burst when the second ends', async () => {
    for (let i = 1; i <= 500; i++) status.routine(routine(i));
    should(shown.map((s) => s.text)).eql(['total 1']);
    await clock.tickAsync(STATUS_EVERY_MS - 1);
    should(shown).have.length(1);
    await clock.tickAsync(1);
    should(shown.map((s) => s.text)).eql(['total 1', 'total 500']);
    await clock.tickAsync(10 * STATUS_EVERY_MS);
    should(shown).have.length(2); // nothing waiting, nothing shown
  });

  it('a reading every 100 ms for a minute: one status a second, each the newest, the last one shown', async () => {
    let n = 0;
    for (let t = 0; t < 60_000; t += 100) {
      status.routine(routine(++n));
      await clock.tickAsync(100);
    }
    await clock.tickAsync(STATUS_EVERY_MS);
    should(shown.length).be.within(59, 61);
    should(shown[shown.length - 1].text).equal(`total ${n}`);
    for (let i = 1; i < shown.length; i++) should(shown[i].at - shown[i - 1].at).be.aboveOrEqual(STATUS_EVERY_MS);
  });

  it('readings further apart than a second each show at once', async () => {
    for (let i = 1; i <= 5; i++) {
      status.routine(routine(i));
      should(shown[shown.length - 1].text).equal(`total ${i}`);
      await clock.tickAsync(STATUS_EVERY_MS);
    }
    should(shown).have.length(5);
  });

  it('a problem shows at once and the routine update that was waiting never replaces it', async () => {
    status.routine(routine(1));
    status.routine(routine(2)); // waits
    status.now({ fill: 'red', shape: 'ring', text: 'meter limit reached' });
    await clock.tickAsync(5 * STATUS_EVERY_MS);
    should(shown.map((s) => s.text)).eql(['total 1', 'meter limit reached']);
    // the next routine update after a problem is paced from the problem's instant
    status.routine(routine(3));
    should(shown).have.length(3);
  });

  it('after close nothing is shown, not even what was waiting', async () => {
    status.routine(routine(1));
    status.routine(routine(2));
    status.close();
    status.routine(routine(3));
    status.now({ fill: 'red', shape: 'ring', text: 'late' });
    await clock.tickAsync(5 * STATUS_EVERY_MS);
    should(shown.map((s) => s.text)).eql(['total 1']);
  });
});
