// The records a node sent and the writer has not yet confirmed (docs/records.md,
// "Outages"): kept in the order they were made, each point once per series and instant (a
// newer point of a waiting one takes its place: a running total's latest value), sent in
// messages of a few points, at most one write in flight per point (so writes that complete
// in any order still leave the last value), taken back when a write fails, let go oldest
// first beyond the limit. Pure: when to send and retry is the runtime's (records-delivery).
import { RecordPoint } from './influx-points';

/** A point waiting or in flight: its place in the order (seq), its series and its identity in InfluxDB (key). */
export interface OutboxEntry {
  seq: number;
  series: string;
  key: string;
  point: RecordPoint;
}

/** The series of a point: measurement and tags (in key order). */
export function pointSeries(p: RecordPoint): string {
  const tags = Object.keys(p.tags)
    .sort()
    .map((k) => [k, p.tags[k]]);
  return JSON.stringify([p.measurement, tags]);
}

/** What InfluxDB identifies a point by: its series and instant. */
export const pointKey = (p: RecordPoint, series = pointSeries(p)): string => `${series}@${p.timestamp}`;

/** An entry for a point (its seq given; its series when known). */
function entryOf(point: RecordPoint, seq: number, series = pointSeries(point)): OutboxEntry {
  return { seq, series, key: pointKey(point, series), point };
}

export class RecordsOutbox {
  /** Waiting entries in seq order from `head` on (taken ones leave gaps closed as they go). */
  private order: OutboxEntry[] = [];
  private head = 0;
  /** Every waiting entry by key: one per key. */
  private readonly waiting = new Map<string, OutboxEntry>();
  /** Messages in flight by id: their entries; and which keys are in flight. */
  private readonly flying = new Map<number, OutboxEntry[]>();
  private readonly keysFlying = new Set<string>();
  private nextSeq = 0;
  private nextMessage = 1;
  /** Points let go beyond the limit since the last `takeLetGo()`. */
  private letGo = 0;

  constructor(readonly limit: number) {}

  /** Points waiting to be sent. */
  get waitingCount(): number {
    return this.waiting.size;
  }

  /** Points sent and not yet confirmed. */
  get flyingCount(): number {
    return this.keysFlying.size;
  }

  /** Messages sent and not yet confirmed. */
  get messagesFlying(): number {
    return this.flying.size;
  }

  get empty(): boolean {
    return this.waiting.size === 0 && this.flying.size === 0;
  }

  /** New points, after every point held: a waiting point of the same key is replaced in its place. */
  add(points: readonly RecordPoint[]): void {
    for (const point of points) {
      const entry = entryOf(point, this.nextSeq);
      const old = this.waiting.get(entry.key);
      if (old) {
        old.point = point;
        continue;
      }
      this.nextSeq++;
      this.waiting.set(entry.key, entry);
      this.order.push(entry);
    }
    this.bound();
  }

  /** Points kept from before (a restart): before every point held now, in their own order. */
  addOlder(points: ReadonlyArray<{ point: RecordPoint; series?: string }>): void {
    const first = this.head < this.order.length ? this.order[this.head].seq : this.nextSeq;
    const older: OutboxEntry[] = [];
    let seq = Math.min(first, ...[...this.flying.values()].flat().map((e) => e.seq)) - points.length;
    for (const { point, series } of points) {
      const entry = entryOf(point, seq++, series);
      if (this.waiting.has(entry.key) || this.keysFlying.has(entry.key)) continue; // a newer one is already held
      this.waiting.set(entry.key, entry);
      older.push(entry);
    }
    this.order = older.concat(this.order.slice(this.head));
    this.head = 0;
    this.bound();
  }

  /**
   * The next message: up to `max` waiting points in order whose keys are not in flight,
   * now in flight under the returned id; null when none can go.
   */
  take(max: number): { id: number; points: RecordPoint[] } | null {
    const taken: OutboxEntry[] = [];
    const blocked: OutboxEntry[] = [];
    let i = this.head;
    for (; i < this.order.length && taken.length < max; i++) {
      const entry = this.order[i];
      if (this.waiting.get(entry.key) !== entry) continue; // let go or replaced meanwhile
      if (this.keysFlying.has(entry.key)) blocked.push(entry);
      else taken.push(entry);
    }
    // the blocked ones stay in their order, right before the rest
    this.head = i - blocked.length;
    for (let j = 0; j < blocked.length; j++) this.order[this.head + j] = blocked[j];
    this.compact();
    if (!taken.length) return null;
    for (const entry of taken) {
      this.waiting.delete(entry.key);
      this.keysFlying.add(entry.key);
    }
    const id = this.nextMessage++;
    this.flying.set(id, taken);
    return { id, points: taken.map((e) => e.point) };
  }

  /** The writer wrote message `id`: its points are done. False for an id not in flight (already settled, or of another run). */
  confirm(id: number): boolean {
    const entries = this.flying.get(id);
    if (!entries) return false;
    this.flying.delete(id);
    for (const e of entries) this.keysFlying.delete(e.key);
    return true;
  }

  /**
   * The write of message `id` failed: its points wait again in their places, but where a
   * newer point of the same key waits already (it replaces them). False for an id not in flight.
   */
  fail(id: number): boolean {
    const entries = this.flying.get(id);
    if (!entries) return false;
    this.flying.delete(id);
    const back: OutboxEntry[] = [];
    for (const e of entries) {
      this.keysFlying.delete(e.key);
      if (this.waiting.has(e.key)) continue;
      this.waiting.set(e.key, e);
      back.push(e);
    }
    if (back.length) {
      const rest = this.order.slice(this.head).filter((e) => this.waiting.get(e.key) === e);
      this.order = merge(back, rest);
      this.head = 0;
    }
    this.bound();
    return true;
  }

  /** Every message in flight failed (none will be confirmed: the writer lost them). */
  failAll(): void {
    for (const id of [...this.flying.keys()]) this.fail(id);
  }

  /** Every point not yet confirmed, in order (in flight and waiting): what is stored. */
  held(): OutboxEntry[] {
    const flying = [...this.flying.values()].flat();
    const waiting = this.order.slice(this.head).filter((e) => this.waiting.get(e.key) === e);
    return merge(
      flying.sort((a, b) => a.seq - b.seq),
      waiting,
    );
  }

  /** How many points were let go beyond the limit since the last call. */
  takeLetGo(): number {
    const n = this.letGo;
    this.letGo = 0;
    return n;
  }

  /** At most `limit` points held: the oldest waiting ones go first. */
  private bound(): void {
    while (this.waiting.size + this.keysFlying.size > this.limit && this.head < this.order.length) {
      const entry = this.order[this.head++];
      if (this.waiting.get(entry.key) !== entry) continue;
      this.waiting.delete(entry.key);
      this.letGo++;
    }
    this.compact();
  }

  /** The order's taken front let go of once it is most of the array. */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }
}

/** Two lists each in seq order, as one. */
function merge(a: OutboxEntry[], b: OutboxEntry[]): OutboxEntry[] {
  const out: OutboxEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i].seq < b[j].seq)) out.push(a[i++]);
    else out.push(b[j++]);
  }
  return out;
}
