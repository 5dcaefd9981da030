// Records kept until written (docs/records.md, "Outages"): the outbox against a plain
// reference (a database that applies each write when it completes, in any order), its
// stored form read back and attacked, and the delivery's steps on a fake clock: held at
// deploy, retried after failures, drained in order, running points ending at the last value.
import should from 'should';
import fc from 'fast-check';
import { RecordPoint, recordPoint } from '../../nodes/lib/engine/records/influx-points';
import { pointKey, RecordsOutbox } from '../../nodes/lib/engine/records/outbox';
import { outboxText, readStoredOutbox } from '../../nodes/lib/engine/records/outbox-store';
import { runAtOnce } from '../../nodes/lib/engine/common/slices';
import {
  BATCH_POINTS,
  FLIGHT_MS,
  MAX_RECORDS_KEPT,
  RecordsDelivery,
  RETRY_FIRST_MS,
  RETRY_MAX_MS,
  readKept,
} from '../../nodes/lib/runtime/common/records-delivery';
import { FakeClock, installClock, until } from '../fake-clock';

const T = Date.parse('2026-03-04T00:00:00Z');
const point = (meter: string, at: number, value: number, measurement = 'energy_cost'): RecordPoint =>
  recordPoint(measurement, { tariff: 'T', meter, period: 'day' }, { gross: value, complete: value > 0, end_ms: at + 86_400_000 }, at)!;
/** Points as stored (the compact text, parsed) and read back. */
const stored = (points: RecordPoint[]) => JSON.parse(runAtOnce(outboxText(points.map((p) => ({ point: p })))));
const readBack = (x: unknown, now: number, limit: number) => runAtOnce(readStoredOutbox(x, now, limit));

describe('records kept until written', () => {
  describe('the outbox', () => {
    it('against a database that applies each write when it completes: every key ends at its last value, no key twice in flight (500 generated runs)', () => {
      const op = fc.oneof(
        fc.record({ kind: fc.constant('add' as const), meter: fc.constantFrom('a', 'b', 'c'), at: fc.integer({ min: 0, max: 3 }) }),
        fc.record({ kind: fc.constant('take' as const), max: fc.integer({ min: 1, max: 4 }) }),
        fc.record({ kind: fc.constantFrom('confirm' as const, 'fail' as const), pick: fc.nat() }),
      );
      fc.assert(
        fc.property(fc.array(op, { maxLength: 60 }), fc.array(fc.nat(), { minLength: 1, maxLength: 20 }), (ops, drainPicks) => {
          const box = new RecordsOutbox(10_000);
          const db = new Map<string, RecordPoint>();
          const last = new Map<string, RecordPoint>();
          const flying = new Map<number, RecordPoint[]>();
          let value = 1;
          const take = (max: number) => {
            const next = box.take(max);
            if (!next) return;
            const keys = next.points.map((p) => pointKey(p));
            for (const points of flying.values()) for (const p of points) should(keys).not.containEql(pointKey(p));
            should(new Set(keys).size).equal(keys.length);
            flying.set(next.id, next.points);
          };
          const settle = (pick: number, ok: boolean) => {
            const ids = [...flying.keys()];
            if (!ids.length) return;
            const id = ids[pick % ids.length];
            if (ok) {
              for (const p of flying.get(id)!) db.set(pointKey(p), p);
              should(box.confirm(id)).be.true();
            } else should(box.fail(id)).be.true();
            flying.delete(id);
            should(box.confirm(id)).be.false(); // settled once
          };
          for (const o of ops) {
            if (o.kind === 'add') {
              const p = point(o.meter, T + o.at, value++);
              last.set(pointKey(p), p);
              box.add([p]);
            } else if (o.kind === 'take') take(o.max);
            else settle(o.pick, o.kind === 'confirm');
          }
          // InfluxDB is back: everything goes, in any order of completion
          for (let i = 0; !box.empty; i++) {
            take(3);
            settle(drainPicks[i % drainPicks.length], true);
          }
          should(flying.size).equal(0);
          should([...db.entries()].sort()).eql([...last.entries()].sort());
        }),
        { numRuns: 500 },
      );
    });

    it('sends in the order made; a failed message goes back to its place, before what came after', () => {
      const box = new RecordsOutbox(100);
      box.add([1, 2, 3, 4, 5].map((i) => point(`m${i}`, T, i)));
      const first = box.take(2)!;
      const second = box.take(2)!;
      should(box.fail(first.id)).be.true();
      box.add([point('m6', T, 6)]);
      should(box.take(10)!.points.map((p) => p.fields.gross)).eql([1, 2, 5, 6]);
      should(box.confirm(second.id)).be.true();
      should(box.held().map((e) => e.point.fields.gross)).eql([1, 2, 5, 6]);
    });

    it('a running point replaces its waiting one in place; while one is in flight the newest waits, and the failed older one is dropped', () => {
      const box = new RecordsOutbox(100);
      box.add([point('a', T, 1)]);
      const flying = box.take(10)!;
      for (let v = 2; v <= 5; v++) box.add([point('a', T, v)]);
      should(box.take(10)).be.null(); // its key is in flight
      should(box.waitingCount).equal(1);
      box.fail(flying.id);
      should(box.take(10)!.points.map((p) => p.fields.gross)).eql([5]);
    });

    it('at most `limit` points: the oldest waiting go first, counted', () => {
      const box = new RecordsOutbox(1000);
      for (let i = 0; i < 2500; i++) box.add([point(`m${i}`, T, i + 1)]);
      should(box.waitingCount).equal(1000);
      should(box.takeLetGo()).equal(1500);
      should(box.takeLetGo()).equal(0);
      should(box.take(1)!.points[0].fields.gross).equal(1501);
    });

    it('stored and read back: the same points in the same order, each series once, instants relative, booleans 1/0 (300 generated lists)', () => {
      const gen = fc.array(
        fc.record({
          meter: fc.constantFrom('a', 'b', 'say "hi", k=v ☀️'),
          at: fc.integer({ min: -1e6, max: 1e6 }).map((d) => T + d),
          value: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer()),
          running: fc.boolean(),
        }),
        { maxLength: 2500 },
      );
      fc.assert(
        fc.property(gen, (list) => {
          const points = list.map((x) => point(x.meter, x.at, x.value, x.running ? 'energy_cost_running' : 'energy_cost'));
          const { points: back, dropped } = readBack(stored(points), T, 100_000);
          should(back.map((k) => k.point)).eql(points);
          should(dropped.empty).be.true();
        }),
        { numRuns: 300 },
      );
      const twice = stored([point('a', T, 1), point('b', T, 2), point('a', T + 1, 3), point('a', T, 4, 'energy_cost_running')]);
      should(twice.series).have.length(3);
      should(twice.rows).eql([0, T, 1, 1, 86_400_000, 1, 0, 2, 1, 86_400_000, 0, 1, 3, 1, 86_400_000, 2, -1, 4, 1, 86_400_000]);
    });

    it('a tampered store is data: what the node could not have written is dropped and said once, never a crash or a prototype key', async () => {
      const good = stored([point('a', T, 1), point('b', T, 2)]);
      const cases: unknown[] = [
        'text',
        42,
        [],
        { series: [], rows: 'x' },
        { ...good, series: [['__proto__', {}, ['x'], 'n']] },
        { ...good, series: [['energy_cost', JSON.parse('{"__proto__":"x"}'), ['gross'], 'n']] },
        { ...good, series: [['energy_cost', { meter: 'a\nb' }, ['gross'], 'n']] },
        { ...good, series: [['energy_cost', { meter: 'a' }, ['gross', 'gross'], 'nn']] },
        { ...good, series: [['energy_cost', { meter: 'a' }, ['gross'], 'x']] },
        { ...good, rows: [0, T, 'x', 1, 0] },
        { ...good, rows: [7, T, 1, 1, 0] },
        { ...good, rows: [0, 'now', 1, 1, 0] },
        { ...good, rows: [0, T + 1e13, 1, 1, 0] },
        { ...good, rows: [0, T, 1, 2, 0] },
        { ...good, rows: [0, T, 1] },
        { ...good, rows: new Array(100 * 42 + 1).fill(0) },
      ];
      for (const x of cases) {
        const { points, dropped } = readBack(x, T, 100);
        should(dropped.empty).be.false(JSON.stringify(x).slice(0, 200));
        for (const { point: p } of points) {
          should(Object.getPrototypeOf(p.tags)).equal(Object.prototype);
          should(Object.keys(p.tags)).not.containEql('__proto__');
        }
      }
      // beyond the limit: the newest kept
      const many = stored(Array.from({ length: 50 }, (_, i) => point('a', T + i, i + 1)));
      const { points, dropped } = readBack(many, T, 10);
      should(points.map((k) => k.point.fields.gross)).eql([41, 42, 43, 44, 45, 46, 47, 48, 49, 50]);
      should(dropped.warning()).match(/the oldest 40 records beyond 10/);
      // the stored value as the node keeps it: deflated text; a forged or broken one is dropped in words
      for (const x of [{ version: 1, deflated: 'not base64 of deflate' }, { version: 2, deflated: '' }, { version: 1 }, 'x'])
        should((await readKept(x, T)).dropped.warning()).match(
          /records kept through an outage: dropped a stored value that is not the records kept/,
        );
    });
  });

  describe('the delivery (Keep until written)', () => {
    let clock: FakeClock;
    beforeEach(() => {
      clock = installClock(T);
    });
    afterEach(() => clock.uninstall());

    function delivery(opts: { confirm?: boolean; stored?: unknown; format?: 'influx-batch' | 'influx-out' } = {}) {
      const sent: Array<Record<string, any>> = [];
      const warned: string[] = [];
      const saves: unknown[] = [];
      const d = new RecordsDelivery({
        nodeId: 'n1',
        format: opts.format ?? 'influx-batch',
        confirm: opts.confirm ?? true,
        send: (m) => sent.push(...m),
        store: { load: async () => opts.stored, save: async (v) => void saves.push(v) },
        warn: (t) => warned.push(t),
        log: () => undefined,
      });
      const ack = (msg: Record<string, any>, error?: string, statusCode?: number) =>
        d.receive({ ...msg, ...(error ? { error: { message: error }, influx_error: { statusCode } } : {}) });
      // influxdb batch: [{ measurement, tags, fields, timestamp }]; influxdb out: [fields with time, tags]
      const points = (msg: Record<string, any>) =>
        msg.measurement ? [msg.payload[0].gross] : (msg.payload as RecordPoint[]).map((p) => p.fields.gross);
      return { d, sent, warned, saves, ack, points };
    }

    it('holds records at deploy until `msg.records = "send"`, then one point tries; once written the rest follows in order', async () => {
      const { d, sent, ack, points } = delivery();
      await d.restore();
      should(d.add([point('a', T, 1), point('b', T, 2)])).eql([]);
      should(d.add([point('c', T, 3)])).eql([]);
      should(d.receive({ records: 'send' })).be.true();
      should(sent).have.length(1);
      should(points(sent[0])).eql([1]);
      should(sent[0].records).match({ from: 'n1', id: 1 });
      ack(sent[0]);
      should(sent.slice(1).map(points)).eql([[2, 3]]);
      // up: a new figure's points go with it
      const now = d.add([point('d', T, 4)]);
      should(now.map(points)).eql([[4]]);
    });

    it('without a `send` the first try comes after RETRY_FIRST_MS', async () => {
      const { d, sent } = delivery();
      await d.restore();
      d.add([point('a', T, 1)]);
      await clock.tickAsync(RETRY_FIRST_MS - 1);
      should(sent).have.length(0);
      await clock.tickAsync(1);
      should(sent).have.length(1);
    });

    it('an outage: failed writes are kept and stored, one point tried at 5 s doubling to a minute, then everything in order, each once', async () => {
      const { d, sent, warned, saves, ack, points } = delivery();
      await d.restore();
      d.receive({ records: 'send' }); // nothing held: up
      const first = d.add([point('a', T, 1)]);
      ack(first[0], 'connect ECONNREFUSED 127.0.0.1:8086', 503);
      should(warned).eql(['records: not written (connect ECONNREFUSED 127.0.0.1:8086); 1 kept and sent again once InfluxDB takes them']);
      for (let i = 2; i <= 1200; i++) should(d.add([point(`m${i}`, T, i)])).eql([]);
      await clock.tickAsync(0); // the first change is saved at once
      await until('the first save', () => saves.length > 0); // stored in slices, deflated off the main thread
      should(saves[0]).match({ version: 1, deflated: /^[A-Za-z0-9+/=]+$/ });
      const tries: number[] = [];
      let at = Date.now();
      for (let k = 0; k < 8; k++) {
        const before = sent.length;
        while (sent.length === before) await clock.tickAsync(1000);
        tries.push(Date.now() - at);
        at = Date.now();
        should(points(sent[sent.length - 1])).eql([1]); // the oldest point, alone
        ack(sent[sent.length - 1], 'connect ECONNREFUSED 127.0.0.1:8086', 503);
      }
      should(tries).eql([5000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000, 60_000].map((ms) => Math.min(ms, RETRY_MAX_MS)));
      should(warned).have.length(1); // said once
      // InfluxDB is back
      const before = sent.length;
      while (sent.length === before) await clock.tickAsync(1000);
      ack(sent[sent.length - 1]);
      const batches = sent.slice(before + 1);
      should(batches.map((m) => m.payload.length)).eql([BATCH_POINTS, BATCH_POINTS, 199]);
      for (const b of batches) ack(b);
      should(batches.flatMap(points)).eql(Array.from({ length: 1199 }, (_, i) => i + 2));
      should(d.held).equal(0);
      const count = saves.length;
      await clock.tickAsync(60_000);
      await until('the last save', () => saves.length > count && saves[saves.length - 1] === undefined); // all written: the store emptied
    });

    it('a burst of running totals: one write in flight per point, and the point ends at the last value whatever order writes complete in', async () => {
      const { d, sent, ack, points } = delivery({ format: 'influx-out' });
      await d.restore();
      d.receive({ records: 'send' });
      const out: Array<Record<string, any>> = [];
      for (let v = 1; v <= 24; v++)
        out.push(...d.add([point('a', T, v, 'energy_cost_running'), point('b', T, 100 + v, 'energy_cost_running')]));
      should(out.map(points)).eql([[1], [101]]);
      ack(out[1]);
      ack(out[0]);
      should(sent.map(points)).eql([[124], [24]]);
    });

    it('InfluxDB refuses a write for good (400: a name, a type): those points are let go, said once; the rest goes on', async () => {
      const { d, sent, warned, ack } = delivery();
      await d.restore();
      d.receive({ records: 'send' });
      const [m] = d.add([point('a', T, 1)]);
      ack(m, 'A 400 Bad Request error occurred: {"error":"partial write: field type conflict"}', 400);
      should(warned).eql([
        'records: InfluxDB refused a write for good, not sent again: A 400 Bad Request error occurred: {"error":"partial write: field type conflict"}',
      ]);
      should(d.held).equal(0);
      should(d.add([point('b', T, 2)])).have.length(1);
      should(sent).have.length(0);
    });

    it('a write with no word within FLIGHT_MS is taken as failed, said once with what to wire, and tried again', async () => {
      const { d, sent, warned } = delivery();
      await d.restore();
      d.receive({ records: 'send' });
      should(d.add([point('a', T, 1)])).have.length(1);
      await clock.tickAsync(FLIGHT_MS - 1);
      should(warned).be.empty();
      await clock.tickAsync(1 + RETRY_FIRST_MS);
      should(warned).eql([
        'records: not written (no word from the writer within 5 minutes: are its Complete and Catch nodes wired back to this node?); 1 kept and sent again once InfluxDB takes them',
      ]);
      should(sent).have.length(1); // the point tried again
    });

    it('a restart: what was kept comes first, before anything new; marks of another run or node are ignored', async () => {
      const before = delivery();
      await before.d.restore();
      before.d.add([point('a', T, 1), point('b', T, 2)]);
      const kept = JSON.parse(JSON.stringify(await before.d.storedForm()));
      await before.d.close();
      should(kept).match({ version: 1, deflated: /^[A-Za-z0-9+/=]+$/ });
      const { d, sent, ack, points } = delivery({ stored: kept });
      d.add([point('c', T, 3)]);
      await d.restore();
      should(d.receive({ records: { from: 'n1', run: 'other', id: 1 } })).be.true();
      should(d.receive({ records: { from: 'n2', run: 'x', id: 1 } })).be.true();
      d.receive({ records: 'send' });
      ack(sent[0]);
      should(sent.flatMap(points)).eql([1, 2, 3]);
    });

    it('off: each figure sent once as it comes, marked; a confirmation wired back anyway is taken, not read as a reading, and said once', async () => {
      const { d, warned } = delivery({ confirm: false });
      await d.restore();
      const m = d.add([point('a', T, 1)]);
      should(m).have.length(1);
      should(d.receive(m[0])).be.true();
      should(d.receive(m[0])).be.true();
      should(warned).have.length(1);
      should(MAX_RECORDS_KEPT).be.aboveOrEqual(24 * 4 * 129);
    });
  });
});
