// Records that reach InfluxDB after any outage (docs/records.md, "Outages"). With *Keep until
// written* on, each records message names its node and number (`msg.records`); the writer's
// Complete node (written) and Catch node (failed), wired back to the node's input, say what
// became of it. Until a write is confirmed its points are kept (RecordsOutbox: in order, one
// write in flight per point, a newer value replacing a waiting one), through a redeploy and
// a restart in the node's context store, and sent again: after a failure one point is tried
// at growing intervals (5 s doubling to a minute), and once one is written the rest follow in
// order. A re-sent point has its series and instant, so it overwrites itself: each lands once.
import { deflateRaw, inflateRaw } from 'zlib';
import { promisify } from 'util';
import { monotonicNow, PaceTimer } from '../../engine/time/long-timer';
import { influxMessages, InfluxFormat, RecordPoint } from '../../engine/records/influx-points';
import { RecordsOutbox } from '../../engine/records/outbox';
import { KeptPoint, outboxText, readStoredOutbox } from '../../engine/records/outbox-store';
import { DroppedState, isRecord } from '../../engine/common/stored-checks';
import { runInSlices } from '../../engine/common/slices';
import { SAVE_EVERY_MS, ThrottledSave } from './throttled-save';
import type { NodeMessage } from './red-types';

/** Points kept per node through an outage: 24 h of 128 meters' 15-minute demand windows and their site (12,384) with room to spare. */
export const MAX_RECORDS_KEPT = 20_000;
/** The first retry after a failure (and the first try after a deploy without a `send` command); doubling up to RETRY_MAX_MS. */
export const RETRY_FIRST_MS = 5_000;
export const RETRY_MAX_MS = 60_000;
/** A write neither confirmed nor failed after this long is taken as failed (the writer lost it: a redeploy, a restart). */
export const FLIGHT_MS = 5 * 60_000;
/** Points per `influxdb batch` message when several wait; writes in flight at once per format. */
export const BATCH_POINTS = 500;
const IN_FLIGHT: Record<InfluxFormat, number> = { 'influx-batch': 4, 'influx-out': 64 };

/** The stored value: `{ version, deflated }`, the compact text (outboxText) deflated, in base 64. */
export const KEPT_VERSION = 1;
/** The most text MAX_RECORDS_KEPT points of ours make (42 numbers of at most 24 characters each, and their series): more is refused unread. */
const MAX_KEPT_TEXT = MAX_RECORDS_KEPT * 42 * 25 + 2 * 1024 * 1024;
const deflate = promisify(deflateRaw);
const inflate = promisify(inflateRaw) as (data: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>;

/** The mark on a records message: whose, which run of the node, which message. */
export interface RecordsMark {
  from: string;
  run: string;
  id: number;
}

export interface KeptStore {
  load(): Promise<unknown>;
  save(value: unknown): Promise<void>;
}

export interface DeliveryOptions {
  nodeId: string;
  format: InfluxFormat;
  /** Keep until written: wait for the writer's word on each message. Off: each message sent once, as it comes. */
  confirm: boolean;
  /** Sends messages the node did not send with a figure of its own (retries, what follows a confirmation). */
  send(messages: NodeMessage[]): void;
  store: KeptStore | null;
  warn(text: string): void;
  log(text: string): void;
  now?: () => number;
}

/** An error InfluxDB will give again for the same points (it read them and refused them): retrying cannot help. */
function refusedForGood(msg: NodeMessage): boolean {
  const status = (msg.influx_error as { statusCode?: unknown } | undefined)?.statusCode;
  if (status === 400 || status === 422) return true;
  const text = String((msg.error as { message?: unknown } | undefined)?.message ?? '');
  return /unable to parse|partial write|field type conflict|invalid field format/i.test(text);
}

export class RecordsDelivery {
  private readonly outbox = new RecordsOutbox(MAX_RECORDS_KEPT);
  private readonly run = Math.random().toString(36).slice(2, 10);
  private state: 'held' | 'up' | 'down';
  private retryMs = RETRY_FIRST_MS;
  /** Retries and a write's time in flight are paces (monotonicNow): a step of the wall clock changes neither. */
  private readonly retry = new PaceTimer();
  private readonly expiry = new PaceTimer();
  /** When each message in flight was sent, in the order sent. */
  private readonly sentAt = new Map<number, number>();
  private readonly save: ThrottledSave | null;
  private storedSomething = false;
  private restored = false;
  private readonly saidRefused = new Set<string>();
  private saidLetGo = false;
  private saidUnconfirmed = false;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly o: DeliveryOptions) {
    this.now = o.now ?? Date.now;
    // a deploy waits for its database: a `send` command (the example's CREATE DATABASE answered), a word from the writer, or the first retry
    this.state = o.confirm ? 'held' : 'up';
    this.save =
      o.confirm && o.store
        ? new ThrottledSave(
            () => this.store(),
            SAVE_EVERY_MS,
            (text) => o.warn(text),
            'records kept through an outage',
          )
        : null;
    if (o.confirm) this.retry.after(RETRY_FIRST_MS, () => this.probe());
  }

  /** Points waiting or in flight. */
  get held(): number {
    return this.outbox.waitingCount + this.outbox.flyingCount;
  }

  /** What the node kept through its last run, before anything new. */
  async restore(): Promise<void> {
    if (!this.o.confirm || !this.o.store) {
      this.restored = true;
      return;
    }
    try {
      const { points, dropped } = await readKept(await this.o.store.load(), this.now());
      dropped.tell((text) => this.o.warn(text));
      this.storedSomething = points.length > 0;
      this.outbox.addOlder(points);
      if (points.length) this.o.log(`records: ${points.length} kept from before the restart, sent once InfluxDB takes them`);
    } catch (err) {
      this.o.warn(`records kept through an outage could not be read: ${(err as Error).message}`);
    }
    this.restored = true;
    if (this.state === 'up') this.o.send(this.pump());
  }

  /** A figure's points: the messages to send with it now (none while InfluxDB is away: kept). */
  add(points: RecordPoint[]): NodeMessage[] {
    if (!points.length) return [];
    if (!this.o.confirm) return this.marked(influxMessages(points, this.o.format), 0);
    this.outbox.add(points);
    this.changed();
    return this.state === 'up' ? this.pump() : [];
  }

  /**
   * A message for the records, not a figure: the writer's word on one of ours (marked, from
   * its Complete or Catch node), another node's or run's (ignored), or `msg.records =
   * "send"` (try now: the database is there). False for any other message.
   */
  receive(msg: NodeMessage): boolean {
    if (msg.records === 'send') {
      if (this.o.confirm && this.state !== 'up') this.probe();
      return true;
    }
    const mark = msg.records as Partial<RecordsMark> | undefined;
    if (typeof mark !== 'object' || mark === null || typeof mark.from !== 'string') return false;
    if (mark.from !== this.o.nodeId || mark.run !== this.run || typeof mark.id !== 'number') return true;
    if (!this.o.confirm) {
      if (!this.saidUnconfirmed)
        this.o.warn('records: the writer confirms its writes here, but "Keep until written" is off: records are not kept through outages');
      this.saidUnconfirmed = true;
      return true;
    }
    this.sentAt.delete(mark.id);
    if (msg.error === undefined) this.written(mark.id);
    else this.failed(mark.id, msg);
    return true;
  }

  /** The node closes: what is not confirmed is stored for the next run (writes in flight may never be answered). */
  close(): Promise<void> {
    this.closed = true;
    this.retry.cancel();
    this.expiry.cancel();
    if (!this.save) return Promise.resolve();
    if (!this.outbox.empty || this.storedSomething) this.save.changed();
    return this.save.close();
  }

  private written(id: number): void {
    if (!this.outbox.confirm(id)) return;
    if (this.state !== 'up') {
      if (this.state === 'down') this.o.log(`records: InfluxDB writes again; ${this.held} records follow`);
      this.state = 'up';
      this.retryMs = RETRY_FIRST_MS;
      this.retry.cancel();
      this.saidLetGo = false;
    }
    this.changed();
    this.o.send(this.pump());
  }

  private failed(id: number, msg: NodeMessage): void {
    const why = String((msg.error as { message?: unknown } | undefined)?.message ?? 'no reason given');
    if (refusedForGood(msg)) {
      // InfluxDB answered: it is there, and these points will never be taken
      if (!this.outbox.confirm(id)) return;
      if (this.saidRefused.size < 20 && !this.saidRefused.has(why)) {
        this.saidRefused.add(why);
        this.o.warn(`records: InfluxDB refused a write for good, not sent again: ${why}`);
      }
      this.written(id); // the rest goes on
      return;
    }
    if (!this.outbox.fail(id)) return;
    if (this.state !== 'down') {
      this.state = 'down';
      this.o.warn(`records: not written (${why}); ${this.held} kept and sent again once InfluxDB takes them`);
    }
    if (!this.retry.armed) this.armRetry();
    this.changed();
  }

  /** One point, to learn whether InfluxDB takes records again. */
  private probe(): void {
    this.retry.cancel();
    if (this.closed) return;
    if (!this.restored) {
      this.retry.after(RETRY_FIRST_MS, () => this.probe());
      return;
    }
    if (this.outbox.messagesFlying === 0 && this.outbox.waitingCount === 0) {
      this.state = 'up'; // nothing to try with: the next figure's write tells
      return;
    }
    const next = this.outbox.take(1);
    if (next) this.o.send(this.messages(next));
    this.armRetry();
  }

  private armRetry(): void {
    const wait = this.retryMs;
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
    this.retry.after(wait, () => this.probe());
  }

  /** What may go now, as messages: waiting points in order, up to the writes in flight allowed. */
  private pump(): NodeMessage[] {
    const out: NodeMessage[] = [];
    if (!this.restored || this.closed) return out;
    const size = this.o.format === 'influx-batch' ? BATCH_POINTS : 1;
    while (this.outbox.messagesFlying < IN_FLIGHT[this.o.format]) {
      const next = this.outbox.take(size);
      if (!next) break;
      out.push(...this.messages(next));
    }
    return out;
  }

  private messages(next: { id: number; points: RecordPoint[] }): NodeMessage[] {
    this.sentAt.set(next.id, monotonicNow());
    if (!this.expiry.armed) this.armExpiry();
    return this.marked(influxMessages(next.points, this.o.format), next.id);
  }

  private marked(messages: NodeMessage[], id: number): NodeMessage[] {
    for (const m of messages) m.records = { from: this.o.nodeId, run: this.run, id } satisfies RecordsMark;
    return messages;
  }

  /** Writes with no word after FLIGHT_MS are taken as failed. */
  private armExpiry(): void {
    const oldest = this.sentAt.entries().next();
    if (oldest.done) return;
    this.expiry.arm(oldest.value[1] + FLIGHT_MS, () => {
      const now = monotonicNow();
      for (const [id, at] of [...this.sentAt]) {
        if (at + FLIGHT_MS > now) break;
        this.sentAt.delete(id);
        const words = `no word from the writer within ${FLIGHT_MS / 60_000} minutes: are its Complete and Catch nodes wired back to this node?`;
        this.failed(id, { error: { message: words } });
      }
      this.armExpiry();
    });
  }

  private tellLetGo(): void {
    const n = this.outbox.takeLetGo();
    if (n && !this.saidLetGo) {
      this.saidLetGo = true;
      this.o.warn(`records: more than ${MAX_RECORDS_KEPT} waiting for InfluxDB; the oldest are let go (${n} so far)`);
    }
  }

  /** The store follows what is kept while InfluxDB is away, and once more when all is written. */
  private changed(): void {
    this.tellLetGo();
    if (this.save && (this.state !== 'up' || this.storedSomething)) this.save.changed();
  }

  /** What is stored now: every point not yet written, compact and deflated; undefined (the key removed) for none. */
  async storedForm(): Promise<{ version: number; deflated: string } | undefined> {
    const entries = this.outbox.held();
    if (!entries.length) return undefined;
    const text = await runInSlices(outboxText(entries));
    return { version: KEPT_VERSION, deflated: (await deflate(Buffer.from(text))).toString('base64') };
  }

  private async store(): Promise<void> {
    const value = await this.storedForm();
    this.storedSomething = value !== undefined;
    return this.o.store!.save(value);
  }
}

/** A stored value read back (none: nothing), each part checked (readStoredOutbox); what cannot be read is dropped and said. */
export async function readKept(x: unknown, now: number): Promise<{ points: KeptPoint[]; dropped: DroppedState }> {
  if (x === undefined || x === null) return { points: [], dropped: new DroppedState('records kept through an outage') };
  let parsed: unknown = 'unreadable';
  if (isRecord(x) && x.version === KEPT_VERSION && typeof x.deflated === 'string' && x.deflated.length <= MAX_KEPT_TEXT) {
    try {
      parsed = JSON.parse((await inflate(Buffer.from(x.deflated, 'base64'), { maxOutputLength: MAX_KEPT_TEXT })).toString('utf8'));
    } catch {
      // left 'unreadable': said as a stored value that is not the records kept
    }
  }
  return runInSlices(readStoredOutbox(parsed, now, MAX_RECORDS_KEPT));
}
