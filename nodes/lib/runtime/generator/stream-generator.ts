// Stream mode's live generator report: run time, starts and the energy and cost while
// the generator runs and while not, for today, this week and this month (docs/semantics.md
// rule 26). The state is a few numbers per period, saved at most every few minutes (it
// goes to flash on a Pi), never per reading; recent sensor values are kept in memory only.
import { roundAmount } from '../../engine/common/format';
import { ownField } from '../../engine/common/id-map';
import { DroppedState, isFiniteNumber, isRecord, isStoredInstant, StoredAhead, storedInstantText } from '../../engine/common/stored-checks';
import { localPeriodIn, zoneInfo, ZoneInfo } from '../../engine/time/time';
import { PERIODS, PeriodName, IntervalCost } from '../../engine/cost/totals';
import type { GeneratorChoice } from './generator-report';

/** The state is saved at most this often (and when the node closes). */
export const GENERATOR_SAVE_MS = 5 * 60_000;
/** Sensor values kept in memory to attribute a reading's interval to the value at its start. */
const MAX_RECENT = 500;

/** Sums of one group: energy, net, gross. */
type Sums = [number, number, number];

interface GeneratorPeriod {
  from: number;
  to: number;
  runMs: number;
  offMs: number;
  unknownMs: number;
  starts: number;
  running: Sums;
  notRunning: Sums;
  unknown: Sums;
}

export interface GeneratorState {
  version: 1;
  gatewayId: string;
  sensorId: string;
  on: number;
  timezone: string;
  /** The last sensor value: [ts, value]; value null = unknown. */
  last: [number, number | null] | null;
  day: GeneratorPeriod | null;
  week: GeneratorPeriod | null;
  month: GeneratorPeriod | null;
  /** The last period of each kind that ended, as it ended. */
  closed: Partial<Record<PeriodName, GeneratorPeriod>>;
}

export interface GeneratorStore {
  load(): Promise<unknown>;
  save(value: GeneratorState): Promise<void>;
}

export class StreamGenerator {
  private state: GeneratorState;
  private readonly zone: ZoneInfo;
  private recent: Array<[number, number]> = [];
  private savedAt = -Infinity;
  private dirty = false;

  constructor(
    readonly choice: GeneratorChoice,
    private readonly timezone: string,
    private readonly store: GeneratorStore,
    private readonly clock: () => number = Date.now,
  ) {
    this.zone = zoneInfo(timezone);
    this.state = this.empty();
  }

  private empty(): GeneratorState {
    const { gatewayId, sensorId } = this.choice.ref;
    return {
      version: 1,
      gatewayId,
      sensorId,
      on: this.choice.on,
      timezone: this.timezone,
      last: null,
      day: null,
      week: null,
      month: null,
      closed: {},
    };
  }

  /**
   * Takes the stored state when it is of this sensor, value and zone; anything else starts
   * afresh. Every field read back is checked (the store is outside, and a bad field would
   * break every reading's message from then on): a period that is not the local period of
   * its kind, starts at no instant near now or holds impossible sums is dropped, as is a last
   * value more than a year ahead; what was dropped is said once through `warn`. What lies
   * less far ahead was stored under a later clock: kept, and said once per node (`ahead`).
   */
  async restore(warn: (message: string) => void = () => undefined, ahead = new StoredAhead(warn)): Promise<void> {
    const stored = await this.store.load();
    const s = this.state;
    if (stored === undefined || stored === null) return;
    const dropped = new DroppedState('stored generator report');
    const v = isRecord(stored) ? stored : {};
    if (v.version !== 1 || v.gatewayId !== s.gatewayId || v.sensorId !== s.sensorId || v.on !== s.on || v.timezone !== s.timezone) {
      // another sensor, value or zone (the settings changed): not this report's, said only when it is no report at all
      if (!isRecord(stored) || v.version !== 1) dropped.add('everything: not the shape the report stores');
      return dropped.tell(warn);
    }
    const now = this.clock();
    const period = (name: PeriodName, x: unknown, where: string): GeneratorPeriod | null => {
      if (x === null || x === undefined) return null;
      if (isPeriod(x, this.zone, name, now)) return x;
      dropped.add(`${where} (not a ${name} of ${this.timezone} near now with possible sums)`);
      return null;
    };
    const closedIn = isRecord(v.closed) ? v.closed : {};
    if (v.closed !== undefined && !isRecord(v.closed)) dropped.add('the closed periods (not an object)');
    const closed: GeneratorState['closed'] = {};
    for (const name of PERIODS) {
      const p = period(name, ownField(closedIn, name), `the closed ${name}`);
      if (p) closed[name] = p;
    }
    const last = v.last;
    const lastOk =
      Array.isArray(last) && last.length === 2 && isStoredInstant(last[0], now) && (last[1] === null || isFiniteNumber(last[1]));
    if (last !== null && !lastOk) dropped.add(`the last value (${Array.isArray(last) ? storedInstantText(last[0]) : 'not [ts, value]'})`);
    this.state = {
      ...s,
      last: lastOk ? (last as [number, number | null]) : null,
      day: period('day', v.day, 'today'),
      week: period('week', v.week, 'this week'),
      month: period('month', v.month, 'this month'),
      closed,
    };
    dropped.tell(warn);
    const kept = [this.state.last?.[0], this.state.day?.from, this.state.week?.from, this.state.month?.from];
    const newest = Math.max(...kept.map((t) => t ?? -Infinity));
    ahead.tell(
      'stored generator report',
      Number.isFinite(newest) ? newest : null,
      now,
      "the generator's values before its last stored one are not taken; the report goes on once the clock passes it",
    );
  }

  /** Whether a sensor message is the generator's. */
  follows(gatewayId: unknown, sensorId: unknown): boolean {
    return gatewayId === this.state.gatewayId && sensorId === this.state.sensorId;
  }

  /** A value of the generator's sensor (a poll or a wired message); older ones than the last change nothing. */
  record(ts: number, raw: number): void {
    const value = Number.isFinite(raw) ? raw : null;
    const last = this.state.last;
    if (!Number.isFinite(ts) || (last && ts <= last[0])) return;
    if (last) {
      addTime(this.state, this.zone, last[0], ts, last[1]);
      for (const name of PERIODS) periodAt(this.state, this.zone, name, ts); // a sample at a period's start opens it
      if (value === this.state.on && last[1] !== null && last[1] !== this.state.on) {
        for (const name of PERIODS) periodAt(this.state, this.zone, name, ts).starts++;
      }
    }
    this.state.last = [ts, value];
    if (value !== null) this.recent.push([ts, value]);
    else this.recent.push([ts, NaN]);
    if (this.recent.length > MAX_RECENT) this.recent.splice(0, this.recent.length - MAX_RECENT);
    this.changed();
  }

  /** What a counted reading changed, given to the generator's value at its interval's start. */
  addChange(intervalStart: number, change: IntervalCost): void {
    if (!Number.isFinite(intervalStart)) return;
    const value = this.valueAt(intervalStart);
    const group = value === null ? 'unknown' : value === this.state.on ? 'running' : 'notRunning';
    for (const name of PERIODS) {
      const current = this.state[name];
      // a late reading's change in a period already left behind is not carried back into it
      if (current && intervalStart < current.from) continue;
      const target = periodAt(this.state, this.zone, name, intervalStart);
      target[group][0] += change.energy;
      target[group][1] += change.net;
      target[group][2] += change.gross;
    }
    this.changed();
  }

  private valueAt(ms: number): number | null {
    for (let i = this.recent.length - 1; i >= 0; i--) {
      if (this.recent[i][0] <= ms) return Number.isNaN(this.recent[i][1]) ? null : this.recent[i][1];
    }
    return null;
  }

  /** The report as sent: each period up to `at` (the newest reading), the open stretch since the last value included. */
  payload(at: number) {
    const view: GeneratorState = JSON.parse(JSON.stringify(this.state));
    if (view.last && at > view.last[0]) addTime(view, this.zone, view.last[0], at, view.last[1]);
    // the periods of `at`, even when the stretch before it ended exactly at their start
    if (Number.isFinite(at)) for (const name of PERIODS) periodAt(view, this.zone, name, at);
    const out: Record<string, unknown> = { gatewayId: view.gatewayId, sensorId: view.sensorId, on: view.on };
    const key: Record<PeriodName, string> = { day: 'today', week: 'week', month: 'month' };
    for (const name of PERIODS) out[key[name]] = periodPayload(view[name]);
    const closed = PERIODS.filter((name) => view.closed[name]);
    if (closed.length) out.closed = Object.fromEntries(closed.map((name) => [name, periodPayload(view.closed[name]!)]));
    return out;
  }

  /** Saves now if the last save is old enough, else later (at the next change or close). */
  private changed(): void {
    this.dirty = true;
    if (this.clock() - this.savedAt >= GENERATOR_SAVE_MS) void this.flush().catch(() => undefined);
  }

  /** Saves what changed since the last save (the node calls it when closing). */
  async flush(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    this.savedAt = this.clock();
    try {
      await this.store.save(this.state);
    } catch (err) {
      this.dirty = true; // not stored: tried again with the next save, and on close
      throw err;
    }
  }
}

/** A period the report could have stored: the local period of its kind holding its start, near `now`, with sums it could reach. */
function isPeriod(x: unknown, zone: ZoneInfo, name: PeriodName, now: number): x is GeneratorPeriod {
  if (!isRecord(x)) return false;
  const p = x as unknown as GeneratorPeriod;
  const sums = (s: unknown) => Array.isArray(s) && s.length === 3 && s.every(isFiniteNumber);
  const times = [p.runMs, p.offMs, p.unknownMs];
  if (!isStoredInstant(p.from, now) || !times.every((t) => isFiniteNumber(t) && t >= 0)) return false;
  const bounds = localPeriodIn(zone, name, p.from);
  return (
    bounds.from === p.from &&
    bounds.to === p.to &&
    times.reduce((a, b) => a + b, 0) <= p.to - p.from &&
    Number.isSafeInteger(p.starts) &&
    p.starts >= 0 &&
    sums(p.running) &&
    sums(p.notRunning) &&
    sums(p.unknown)
  );
}

/** The state's period of kind `name` containing `ms`, moving on (and keeping the ended one) when ms is past it. */
function periodAt(state: GeneratorState, zone: ZoneInfo, name: PeriodName, ms: number): GeneratorPeriod {
  const current = state[name];
  if (current && ms >= current.from && ms < current.to) return current;
  if (current && ms < current.from) return current; // callers never go back before the current period
  if (current) state.closed[name] = current;
  const { from, to } = localPeriodIn(zone, name, ms);
  const fresh: GeneratorPeriod = {
    from,
    to,
    runMs: 0,
    offMs: 0,
    unknownMs: 0,
    starts: 0,
    running: [0, 0, 0],
    notRunning: [0, 0, 0],
    unknown: [0, 0, 0],
  };
  state[name] = fresh;
  return fresh;
}

/** Adds [from, to) at `value` to every period it crosses, cut at their local bounds. */
function addTime(state: GeneratorState, zone: ZoneInfo, from: number, to: number, value: number | null): void {
  for (const name of PERIODS) {
    // time in a period already left behind (a reading opened a later one first) is not carried back
    const current = state[name];
    for (let t = current && from < current.from ? current.from : from; t < to;) {
      const p = periodAt(state, zone, name, t);
      const end = Math.min(to, p.to);
      if (value === null) p.unknownMs += end - t;
      else if (value === state.on) p.runMs += end - t;
      else p.offMs += end - t;
      t = end;
    }
  }
}

function periodPayload(p: GeneratorPeriod | null) {
  if (!p) return null;
  const sums = (s: Sums) => ({ energy: roundAmount(s[0]), net: roundAmount(s[1]), gross: roundAmount(s[2]) });
  return {
    from: new Date(p.from).toISOString(),
    to: new Date(p.to).toISOString(),
    fromMs: p.from,
    toMs: p.to,
    runMs: p.runMs,
    runHours: roundAmount(p.runMs / 3600_000),
    starts: p.starts,
    offMs: p.offMs,
    unknownMs: p.unknownMs,
    running: sums(p.running),
    notRunning: sums(p.notRunning),
    unknown: sums(p.unknown),
  };
}
