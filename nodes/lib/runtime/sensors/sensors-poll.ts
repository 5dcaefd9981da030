// What an easy-sensors node does, free of Node-RED: follow one gateway's poll through the
// account hub, turn each poll into messages (one per sensor or one for all, only the
// changed ones if asked), report a failing poll once per error state, and subscribe again
// when the hub has gone quiet (a watchdog that leaves a slow but live poll alone).
import { counted, formatClock, shortText } from '../../engine/common/format';
import type { AccountHub, SensorSnapshot } from '../account/hub';
import { PaceTimer } from '../../engine/time/long-timer';
import { ChangeTracker, missingSensors, selectSensors, SensorPayload, sensorPayload } from './sensor-payload';

/**
 * No word from the account for this many poll intervals (plus slack) means the poll has
 * died somewhere; the node then subscribes again. Not while a poll is on its way: one
 * that is slow but alive (the client's retries, Retry-After waits and deadlines) may take
 * longer than this, and subscribing again would start a second poll beside it.
 */
export const WATCHDOG_INTERVALS = 3;
export const WATCHDOG_SLACK_MS = 120_000;

export interface SensorsSettings {
  gateway: string;
  intervalSec: number;
  output: 'each' | 'all';
  onlyChanged: boolean;
  filter: string[];
}

export interface SensorsMessage {
  topic: string;
  gateway: string;
  payload: unknown;
  changed?: string[];
  [key: string]: unknown;
}

export interface SensorsPollOptions extends SensorsSettings {
  hub: Pick<AccountHub, 'watchSensors' | 'pollInFlight'>;
  timezone: string;
  now?: () => number;
  send(message: SensorsMessage): void;
  status(status: { fill: 'green' | 'yellow' | 'red'; shape: 'dot' | 'ring'; text: string }): void;
  /** A poll started failing, or fails differently: said once. */
  problem(text: string): void;
  warn(text: string): void;
  log(text: string): void;
}

export class SensorsPoll {
  private readonly tracker = new ChangeTracker();
  private readonly watchdog = new PaceTimer();
  private readonly now: () => number;
  private lastGood: SensorSnapshot | null = null;
  private sentPolledAt: number | null = null;
  private reportedError: string | null = null;
  private unwatch: (() => void) | null = null;
  /** Sensors whose timestamp lies in the future, as of the last poll sent: warned once each time one becomes so. */
  private future = new Set<string>();

  constructor(private readonly opts: SensorsPollOptions) {
    this.now = opts.now ?? Date.now;
  }

  start(): void {
    this.unwatch?.();
    this.unwatch = this.opts.hub.watchSensors(this.opts.gateway, this.opts.intervalSec, (s) => this.onUpdate(s));
    this.armWatchdog();
  }

  close(): void {
    this.watchdog.cancel();
    this.unwatch?.();
    this.unwatch = null;
  }

  /** The messages of the last good poll, everything whatever `onlyChanged` says; throws when there is none. */
  current(): SensorsMessage[] {
    if (!this.lastGood) {
      throw new Error(`no sensor values from gateway ${this.opts.gateway} yet${this.reportedError ? `: ${this.reportedError}` : ''}`);
    }
    return this.messagesFor(this.lastGood, true);
  }

  /** The messages for one poll; `onlyChanged` holds back what did not change unless `everything`. */
  private messagesFor(snapshot: SensorSnapshot, everything: boolean): SensorsMessage[] {
    const { gateway, output, onlyChanged, filter } = this.opts;
    const now = this.now();
    const payloads = selectSensors(snapshot.sensors, filter).map((s) => sensorPayload(s, now));
    this.noteFuture(payloads);
    const changed = payloads.filter((p) => this.tracker.changed(p));
    payloads.forEach((p) => this.tracker.remember(p));
    if (output === 'all') {
      if (onlyChanged && !everything && changed.length === 0) return [];
      return [{ topic: gateway, gateway, payload: payloads, changed: changed.map((p) => p.id) }];
    }
    return (onlyChanged && !everything ? changed : payloads).map((payload) => ({ topic: payload.id, gateway, payload }));
  }

  private onUpdate(snapshot: SensorSnapshot): void {
    this.armWatchdog();
    if (snapshot.error) this.onError(snapshot.error);
    else {
      if (this.reportedError) this.opts.log(`gateway ${this.opts.gateway}: polling works again`);
      this.reportedError = null;
      this.lastGood = snapshot;
      // the account also hands a newcomer the poll it already had; send each poll once
      if (snapshot.polledAt !== this.sentPolledAt) {
        this.sentPolledAt = snapshot.polledAt;
        for (const message of this.messagesFor(snapshot, false)) this.opts.send(message);
      }
    }
    this.showStatus();
  }

  /** Warns once when a sensor's timestamp turns to the future (a gateway's clock that jumped), not at every poll. */
  private noteFuture(payloads: SensorPayload[]): void {
    const now = new Set(payloads.filter((p) => p.future).map((p) => p.id));
    const fresh = [...now].filter((id) => !this.future.has(id));
    this.future = now;
    if (fresh.length === 0) return;
    const first = payloads.find((p) => p.id === fresh[0])!;
    this.opts.warn(
      `gateway ${this.opts.gateway}: ${counted(fresh.length, 'sensor')} stamped in the future (${shortText(fresh.join(', '), 60)}; ` +
        `${first.timestamp}): their messages carry future: true, and easy-cost refuses them; check the gateway's clock`,
    );
  }

  /** A failing poll is reported once when it starts failing (or fails differently), not every tick. */
  private onError(err: Error): void {
    if (err.message === this.reportedError) return;
    this.reportedError = err.message;
    this.opts.problem(`gateway ${this.opts.gateway}: ${err.message}`);
  }

  private showStatus(): void {
    const { gateway, filter } = this.opts;
    const last = this.lastGood?.polledAt ? formatClock(this.lastGood.polledAt, this.opts.timezone) : null;
    if (this.reportedError) {
      this.opts.status({ fill: 'red', shape: 'ring', text: `${shortText(this.reportedError, 40)} · last good ${last ?? 'never'}` });
      return;
    }
    const missing = this.lastGood ? missingSensors(this.lastGood.sensors, filter) : [];
    const count = this.lastGood ? selectSensors(this.lastGood.sensors, filter).length : 0;
    if (this.future.size > 0)
      this.opts.status({ fill: 'yellow', shape: 'dot', text: `${counted(this.future.size, 'sensor')} from the future · ${last}` });
    else if (missing.length > 0)
      this.opts.status({ fill: 'yellow', shape: 'dot', text: `${shortText(`not on ${gateway}: ${missing.join(', ')}`, 40)} · ${last}` });
    else this.opts.status({ fill: 'green', shape: 'dot', text: `${counted(count, 'sensor')} · ${last}` });
  }

  private armWatchdog(): void {
    const { gateway, intervalSec } = this.opts;
    this.watchdog.after(WATCHDOG_INTERVALS * intervalSec * 1000 + WATCHDOG_SLACK_MS, () => {
      if (this.opts.hub.pollInFlight(gateway)) return this.armWatchdog();
      this.opts.warn(`gateway ${gateway}: no poll for ${WATCHDOG_INTERVALS} intervals, polling again`);
      this.start();
    });
  }
}
