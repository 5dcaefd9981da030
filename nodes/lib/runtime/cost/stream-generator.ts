// Stream mode's live generator report: run time, starts and the energy and cost while
// the generator runs and while not, for today, this week and this month (docs/semantics.md
// rule 26). The state is a few numbers per period, saved at most every few minutes (it
// goes to flash on a Pi), never per reading; recent sensor values are kept in memory only.
import { roundAmount } from '../../engine/common/format';
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

  /** Takes the stored state when it is of this sensor, value and zone; anything else starts afresh. */
  async restore(): Promise<void> {
    const stored = (await this.store.load()) as Partial<GeneratorState> | undefined;
    const s = this.state;
    // every field read back is checked: the store is outside, and a bad field would break
    // every reading's message from then on
    const closed = (stored?.closed ?? {}) as Record<string, unknown>;
    const last = stored?.last;
    if (
      stored &&
      stored.version === 1 &&
      stored.gatewayId === s.gatewayId &&
      stored.sensorId === s.sensorId &&
      stored.on === s.on &&
      stored.timezone === s.timezone &&
      PERIODS.every((name) => stored[name] === null || isPeriod(stored[name])) &&
      typeof closed === 'object' &&
      PERIODS.every((name) => closed[name] === undefined || isPeriod(closed[name])) &&
      (last === null ||
        (Array.isArray(last) && last.length === 2 && Number.isFinite(last[0]) && (last[1] === null || Number.isFinite(last[1]))))
    ) {
      const kept: GeneratorState['closed'] = {};
      for (const name of PERIODS) if (closed[name] !== undefined) kept[name] = closed[name] as GeneratorPeriod;
      this.state = { ...s, last, day: stored.day ?? null, week: stored.week ?? null, month: stored.month ?? null, closed: kept };
    }
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

function isPeriod(x: unknown): x is GeneratorPeriod {
  const p = x as GeneratorPeriod;
  const sums = (s: unknown) => Array.isArray(s) && s.length === 3 && s.every(Number.isFinite);
  return (
    typeof p === 'object' &&
    p !== null &&
    [p.from, p.to, p.runMs, p.offMs, p.unknownMs, p.starts].every(Number.isFinite) &&
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
