// easy-peak's guard through the real runtime (Node-RED, fake clock) on generated load
// replays (docs/semantics.md, rule 46 and "The peak node"): a base load with noise, a
// thermostat-cycled 6 kW heater behind the guard's relay, an 11 kW car charger starting in
// the middle of quarter hours, a reading every 10 s, across the spring clock change and a
// month's end in Brussels. Measured against a reference guard written here, which knows
// every load exactly and sheds at the latest safe moment (the last 10 s tick from which
// shedding still keeps the window under), restoring at each window's start.
import should from 'should';
import { helper, installClock, simulatorHooks } from './flow-support';
import { loadPeak, peakNode } from './peak-flows';
import { demandWindowOf } from '../../nodes/lib/engine/peak/demand-window';
import { wallClock } from '../lib/demand-reference';
import { prng } from '../lib/engine-fixtures';

const ZONE = 'Europe/Brussels';
const TICK = 10_000;
const MIN = 60_000;
const HEATER_KW = 6;
const CAR_KW = 11;

/** The loads outside the guard's control, per 10 s tick: base with noise, the heater's thermostat, the car. */
interface Replay {
  start: number;
  ticks: number;
  base: Float64Array;
  thermostat: Uint8Array;
  car: Uint8Array;
}

function replay(seed: number, start: number, hours: number): Replay {
  const rnd = prng(seed);
  const ticks = (hours * 3600_000) / TICK;
  const base = new Float64Array(ticks);
  const thermostat = new Uint8Array(ticks);
  const car = new Uint8Array(ticks);
  let on = 0;
  let left = 0;
  for (let i = 0; i < ticks; i++) {
    base[i] = 0.7 + 0.3 * Math.sin(i / 500) + (rnd() - 0.5) * 0.4;
    if (left <= 0) {
      on = 1 - on;
      left = Math.round(((on ? 4 : 3) + rnd() * (on ? 9 : 8)) * 6); // on 4-13 min, off 3-11 min
    }
    thermostat[i] = on;
    left--;
  }
  // car sessions of 30-100 minutes, each starting 2-13 minutes into a quarter hour
  for (let s = 0; s < hours / 3; s++) {
    const quarter = Math.floor(rnd() * (ticks / 90 - 12));
    const from = quarter * 90 + 12 + Math.floor(rnd() * 66);
    const length = Math.round((30 + rnd() * 70) * 6);
    for (let i = from; i < Math.min(ticks, from + length); i++) car[i] = 1;
  }
  return { start, ticks, base, thermostat, car };
}

const otherKw = (r: Replay, i: number): number => r.base[i] + (r.car[i] ? CAR_KW : 0);

/** Per window (by start): energy (kWh) and length (h), from the loads with the relay as it was per tick. */
function windowsOf(r: Replay, relayOn: Uint8Array) {
  const out = new Map<number, { from: number; to: number; energy: number }>();
  for (let i = 0; i < r.ticks; i++) {
    const at = r.start + i * TICK;
    const w = demandWindowOf(at, ZONE, 15);
    const kw = otherKw(r, i) + (r.thermostat[i] && relayOn[i] ? HEATER_KW : 0);
    const held = out.get(w.from) ?? { ...w, energy: 0 };
    held.energy += (kw * TICK) / 3600_000;
    out.set(w.from, held);
  }
  return out;
}

/**
 * The reference: knows every load as far as the readings tell (up to the newest reading,
 * as any guard can), the heater's draw exactly, and nothing of the future; in a window
 * that counts, sheds at the last tick from which waiting one more tick (the loads as last
 * read) would leave the window over `limit(window)` even with the heater off after it;
 * restores at each window's start. Returns the relay per tick and its switches.
 */
function referenceGuard(r: Replay, limit: (from: number) => number | null) {
  const relayOn = new Uint8Array(r.ticks);
  let on = 1;
  let switches = 0;
  let window = { from: NaN, to: NaN };
  let energy = 0;
  for (let i = 0; i < r.ticks; i++) {
    const at = r.start + i * TICK;
    if (!(at < window.to)) {
      window = demandWindowOf(at, ZONE, 15);
      energy = 0;
      if (!on) switches++;
      on = 1;
    }
    const cap = limit(window.from);
    const heater = r.thermostat[i] ? HEATER_KW : 0;
    // as last read: the loads of the tick before (the reading at this tick covers it)
    const seenOther = i > 0 ? otherKw(r, i - 1) : otherKw(r, i);
    const seenHeater = i > 0 && r.thermostat[i - 1] && on ? HEATER_KW : 0;
    if (on && cap !== null && seenHeater > 0) {
      const budget = (cap * (window.to - window.from)) / 3600_000;
      const rest = (window.to - at) / 3600_000;
      // wait one tick with the heater on, then shed it for the rest of the window
      const waited = energy + ((seenOther + seenHeater) * TICK) / 3600_000 + seenOther * (rest - TICK / 3600_000);
      if (waited > budget) {
        on = 0;
        switches++;
      }
    }
    relayOn[i] = on;
    energy += ((otherKw(r, i) + (on ? heater : 0)) * TICK) / 3600_000;
  }
  return { relayOn, switches };
}

describe('easy-peak guard on load replays', function () {
  // a day of readings every 10 s through the runtime
  this.timeout(600_000);

  const suite = simulatorHooks();

  /** Runs the replay through easy-peak: the relay follows output 2; returns it per tick, the node's limit per window and the sheds. */
  async function run(r: Replay, settings: Record<string, unknown>) {
    suite.clock = installClock(r.start - MIN);
    const peak = peakNode({ wires: [['out'], ['guard'], []], ...settings });
    const loaded = await loadPeak(suite.sim, ZONE, peak, { helpers: ['out', 'guard'] });
    const out = loaded.out;
    const guard = loaded.inbox('guard');
    const relayOn = new Uint8Array(r.ticks);
    const limits = new Map<number, number | null>();
    const sheds: number[] = [];
    let on = 1;
    let switches = 0;
    let kwh = 1000;
    const apply = () => {
      for (const g of guard.received.splice(0)) {
        const next = g.payload === 'shed' ? 0 : 1;
        if (next !== on) {
          switches++;
          if (!next) sheds.push(Date.now());
        }
        on = next;
      }
    };
    const node = helper.getNode('p');
    for (let i = 0; i <= r.ticks; i++) {
      const at = r.start + i * TICK;
      await suite.clock.tickAsync(at - Date.now());
      apply(); // a change the node made without a reading (the minute since the last one was over)
      if (i > 0) kwh += ((otherKw(r, i - 1) + (r.thermostat[i - 1] && relayOn[i - 1] ? HEATER_KW : 0)) * TICK) / 3600_000;
      node.receive({ payload: kwh, ts: at });
      const [msg] = await out.next(1);
      // output 2 may come a turn after output 1: the state in output 1 says whether one is due
      if ((msg.payload.guard === 'shed' ? 0 : 1) !== on && guard.received.length === 0)
        await guard.next(1).then((m) => guard.received.push(...m));
      apply();
      if (i < r.ticks) relayOn[i] = on;
      if (msg.payload.site) limits.set(msg.payload.site.window.fromMs, msg.payload.limitKw);
    }
    return { relayOn, switches, limits, sheds };
  }

  function judge(r: Replay, ours: Awaited<ReturnType<typeof run>>, limit: (from: number) => number | null) {
    const ref = referenceGuard(r, limit);
    const mine = windowsOf(r, ours.relayOn);
    const theirs = windowsOf(r, ref.relayOn);
    const avoidable: string[] = [];
    let over = 0;
    for (const [from, w] of mine) {
      const cap = limit(from);
      if (cap === null) continue;
      const kw = w.energy / ((w.to - w.from) / 3600_000);
      if (kw > cap + 1e-9) {
        over++;
        const refKw = theirs.get(from)!.energy / ((w.to - w.from) / 3600_000);
        if (refKw <= cap + 1e-9) avoidable.push(`${new Date(from).toISOString()}: ${kw.toFixed(3)} kW, the reference ${refKw.toFixed(3)}`);
      }
    }
    return { ref, over, avoidable };
  }

  it('a fixed 4.5 kW across the spring clock change: no avoidable window over it, relay switches within 1.2x of the latest-safe guard', async () => {
    // Saturday 28 March 2026 18:00 to Sunday 29 March 12:00 in Brussels (02:00 -> 03:00 at 01:00Z)
    const r = replay(20260329, Date.parse('2026-03-28T17:00:00Z'), 18);
    const ours = await run(r, { limit: 'fixed', limitKw: '4.5', marginPercent: '0', hysteresisPercent: '2' });
    const { ref, over, avoidable } = judge(r, ours, () => 4.5);
    should(avoidable).eql([]);
    should(over).be.above(3); // the car's windows: over whatever any guard does
    should(ref.switches).be.above(40);
    should(ours.switches).be.belowOrEqual(1.2 * ref.switches);
    console.log(`      fixed 4.5 kW: ${ours.switches} switches, the reference ${ref.switches}; ${over} windows over, none avoidable`);
  });

  it('the bill (top 3 on different days, counted 07:00-21:00, at least 4 kW billed) across a month’s end: never sheds outside a counting window; no avoidable window over what would raise the bill; switches within 1.2x', async () => {
    // Monday 30 March 2026 05:00 to Wednesday 1 April 05:00 in Brussels: two days of March and April's first hours
    const r = replay(20260331, Date.parse('2026-03-30T03:00:00Z'), 48);
    const settings = {
      limit: 'peak',
      top: '3',
      distinctDays: true,
      timeStart: '07:00',
      timeEnd: '21:00',
      billFloorKw: '4',
      marginPercent: '0',
      hysteresisPercent: '2',
    };
    const ours = await run(r, settings);
    // what would raise the bill in each window, as the node said it (constant inside a window: it moves only when one closes)
    const limit = (from: number) => ours.limits.get(from) ?? null;
    const counting = (ms: number) => {
      const local = new Date(wallClock(ZONE, demandWindowOf(ms, ZONE, 15).from)).toISOString().slice(11, 16);
      return local >= '07:00' && local < '21:00';
    };
    should(ours.sheds.length).be.above(10);
    should(ours.sheds.filter((at) => !counting(at))).eql([]);
    for (const [from, cap] of ours.limits) if (!counting(from)) should(cap).equal(null);
    const { ref, avoidable } = judge(r, ours, limit);
    should(avoidable).eql([]);
    should(ours.switches).be.belowOrEqual(1.2 * ref.switches);
    console.log(`      the bill: ${ours.switches} switches, the reference ${ref.switches}`);
  });
});
