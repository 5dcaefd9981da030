// easy-cost: what energy cost under one tariff of the account.
//   batch:  msg.payload = readings -> the computeCost result
//   stream: one cumulative reading per message -> running totals today / week / month /
//           total, kept in the node's context (default store) across restarts
//   range:  msg.from/msg.to or msg.period -> archival readings fetched and costed
// Messages are handled one at a time, in arrival order, so stream totals never race.
// Second output (stream mode): each closed day, week and month as a bar for Dashboard 2.

import { linkAccount, settleOnce, shortText } from './account-user';
import { closedPeriodBar } from './lib/chart';
import { computeCost } from './lib/cost';
import {
  bucketPayload, costPayload, findTariff, isEnergyReading, isFlatTariff, RangeRequest, rangeRequest, SensorHistory, streamReading,
} from './lib/cost-inputs';
import { formatMoney } from './lib/format';
import { dataRecord, setNested } from './lib/id-map';
import type { AccountHub, TariffSnapshot } from './lib/hub';
import { sensorsUsedBy, Tariff } from './lib/tariff';
import {
  AddResult, addReading, IntervalCost, newTotals, PERIODS, Reading, restoreTotals, TotalsState, windowStart,
} from './lib/totals';
import type { Node, NodeAPI, NodeDef, NodeMessage, Outgoing } from './red-types';

type Mode = 'batch' | 'stream' | 'range';
const MODES: Mode[] = ['batch', 'stream', 'range'];
/** Tariffs change rarely; the account's shortest refresh among its users wins anyway. */
const TARIFF_REFRESH_MIN = 60;
/** Poll interval for the live values of the sensors a tariff's rules read (stream mode). */
const SENSOR_POLL_SEC = 60;
/** With a flat tariff, range mode fetches this much at each end instead of the whole range. */
const FLAT_WINDOW_MS = 3600_000;
/** Archive fetched before a range so sensor rules know the sensor's value at its start. */
const SENSOR_LEAD_MS = 3600_000;
const TOTALS_KEY = 'totals';

export = function register(RED: NodeAPI): void {
  function EasyCostNode(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const mode: Mode = MODES.includes(config.mode as Mode) ? (config.mode as Mode) : 'batch';
    const tariffId = String(config.tariff ?? '').trim();
    const link = linkAccount(RED, node, config.account);
    const problem = link.problem ?? (tariffId ? null : 'no tariff configured');
    const hub = link.hub as AccountHub;
    const timezone = link.account?.timezone ?? 'UTC';
    let unwatchTariffs: (() => void) | null = null;
    const unwatchSensors: Array<() => void> = [];
    const controllers = new Set<AbortController>();
    let snapshot: TariffSnapshot | null = null;
    let queue: Promise<void> = Promise.resolve();

    // stream mode: restored at deploy, before the first reading is counted (see the end)
    let totals: TotalsState | null = null;
    let history = new SensorHistory([]);
    let historyKey = '';
    const warnedSensors = new Set<string>();

    async function tariff(): Promise<Tariff> {
      const current = snapshot && snapshot.fetchedAt !== null ? snapshot : await hub.refreshTariffs();
      return findTariff(current, tariffId);
    }

    /** Stream mode watches the gateways its tariff's sensor rules read, for their live values. */
    function followSensors(s: TariffSnapshot): void {
      const found = s.tariffs.find((t) => t.id === tariffId);
      if (!found) return;
      const refs = sensorsUsedBy(found);
      const key = JSON.stringify(refs);
      if (key === historyKey) return;
      historyKey = key;
      for (const unwatch of unwatchSensors.splice(0)) unwatch();
      history = new SensorHistory(refs);
      const watching = history;
      for (const gateway of new Set(refs.map((r) => r.gatewayId))) {
        unwatchSensors.push(hub.watchSensors(gateway, SENSOR_POLL_SEC, (poll) => {
          for (const sensor of poll.error ? [] : poll.sensors) watching.record(gateway, sensor.id, sensor.timestamp, sensor.value);
        }));
      }
    }

    function contextGet(key: string): Promise<unknown> {
      return new Promise((resolve, reject) => node.context().get(key, (err, value) => (err ? reject(err) : resolve(value))));
    }

    function contextSet(key: string, value: unknown): Promise<void> {
      return new Promise((resolve, reject) => node.context().set(key, value, (err) => (err ? reject(err) : resolve())));
    }

    async function restore(): Promise<void> {
      let stored: unknown;
      let readError: string | null = null;
      try {
        stored = await contextGet(TOTALS_KEY);
      } catch (err) {
        readError = `stored totals could not be read (${(err as Error).message})`;
      }
      const restored = restoreTotals(stored, timezone, tariffId);
      totals = restored.state;
      const why = readError ?? restored.problem;
      if (why) node.warn(`running totals started from zero: ${why}`);
      // an emptied context file looks like a first deploy: say it either way
      else if (stored === undefined || stored === null) node.log('running totals start from zero: none are stored (a first deploy, or the context store lost them)');
    }

    function costOf(t: Tariff) {
      const sensors = history.timelines(); // unchanged while one reading is added
      return (from: Reading, to: Reading): IntervalCost => {
        const r = computeCost(t, [[from.ts, from.value], [to.ts, to.value]], { timezone, sensors });
        return { energy: r.energy, net: r.net, gross: r.gross, unpricedEnergy: r.unpricedEnergy, resets: r.resets.length };
      };
    }

    async function onStream(msg: NodeMessage): Promise<Outgoing> {
      const t = await tariff();
      if (!totals) throw new Error('running totals are not available: they could not be set up at deploy (see the log)');
      if (msg.reset === true) {
        totals = newTotals(timezone, tariffId);
        await contextSet(TOTALS_KEY, totals);
        msg.payload = streamPayload(t, totals);
        return msg;
      }
      const reading = streamReading(msg, Date.now());
      if (reading.sensorId !== undefined && history.watches(reading.gatewayId, reading.sensorId)) {
        // a sensor the tariff's rules read, wired in: a live value, not a meter reading
        history.record(reading.gatewayId!, reading.sensorId, reading.ts, reading.value);
        return null;
      }
      if (!isEnergyReading(msg.payload)) {
        // An unfiltered easy-sensors node sends every sensor at every poll: warn once per
        // sensor rather than flood Catch with the same error.
        const id = reading.sensorId ?? '?';
        if (!warnedSensors.has(id)) {
          warnedSensors.add(id);
          node.warn(`stream mode ignores sensor ${id}: it is not an energy meter (filter easy-sensors to e1.kwh or similar)`);
        }
        return null;
      }
      const added = addReading(totals, { ts: reading.ts, value: reading.value }, costOf(t));
      if (!added.ignored) {
        totals = added.state;
        // a late reading may still need the sensor values of the whole window
        history.forget(windowStart(totals));
        await contextSet(TOTALS_KEY, totals);
      }
      msg.payload = streamPayload(t, totals!, added, reading);
      showStreamStatus(t, totals!, added.ignored);
      const bars = PERIODS.filter((name) => added.closed[name]).map((name) => closedPeriodBar(name, added.closed[name]!, t.currency, timezone));
      return bars.length ? [msg, bars] : msg;
    }

    function streamPayload(t: Tariff, s: TotalsState, added?: AddResult, reading?: Reading) {
      const closed: Record<string, unknown> = {};
      for (const name of PERIODS) if (added?.closed[name]) closed[name] = bucketPayload(added.closed[name]!, t.currency, t.vat);
      return {
        tariffId: t.id, tariffName: t.name, currency: t.currency, vat: t.vat, timezone,
        today: bucketPayload(s.day, t.currency, t.vat),
        week: bucketPayload(s.week, t.currency, t.vat),
        month: bucketPayload(s.month, t.currency, t.vat),
        total: bucketPayload(s.total, t.currency, t.vat),
        ...(reading ? { reading: { ts: reading.ts, timestamp: new Date(reading.ts).toISOString(), value: reading.value } } : {}),
        ...(added ? { change: added.change } : {}),
        ...(Object.keys(closed).length ? { closed } : {}),
        ...(added?.ignored ? { ignored: added.ignored } : {}),
        ...(added?.late ? { late: true } : {}),
        ...(added?.replaced ? { replaced: true } : {}),
      };
    }

    function showStreamStatus(t: Tariff, s: TotalsState, ignored?: string): void {
      const today = s.day;
      const amount = formatMoney(today ? today.gross : 0, t.currency)!.display;
      const energy = today ? today.energy.toFixed(2) : '0.00';
      // energy no rule priced (a sensor rule whose sensor is unknown) must not pass unnoticed
      const unpriced = today && today.unpricedEnergy > 0 ? ` · ${today.unpricedEnergy.toFixed(2)} kWh unpriced` : '';
      const note = ignored ? ` · ${ignored.replace('_', ' ')} reading ignored` : unpriced;
      node.status({ fill: note ? 'yellow' : 'green', shape: 'dot', text: `today ${amount} · ${energy} kWh${note}` });
    }

    async function onBatch(msg: NodeMessage): Promise<NodeMessage> {
      if (!Array.isArray(msg.payload)) {
        throw new TypeError('batch mode needs msg.payload as an array of readings: [[timestamp, kWh], …] or [{ ts, value }, …]');
      }
      const t = await tariff();
      const result = computeCost(t, msg.payload, { timezone, sensors: msg.sensors as never });
      // one usable reading or none is no usage at all, not a cost of zero (as in range mode)
      if (result.intervals === 0) {
        const dropped = result.dropped.length ? `, ${result.dropped.length} dropped as unreadable` : '';
        throw new Error(`batch mode needs at least two readings with a timestamp and a kWh value (got ${msg.payload.length}${dropped})`);
      }
      msg.payload = costPayload(result, t);
      showCostStatus(result.gross, t, result.dropped.length);
      return msg;
    }

    function showCostStatus(gross: number, t: Tariff, dropped: number): void {
      const amount = formatMoney(gross, t.currency)!.display;
      node.status(dropped
        ? { fill: 'yellow', shape: 'dot', text: `${amount} · ${dropped} reading(s) dropped` }
        : { fill: 'green', shape: 'dot', text: amount });
    }

    /** Archival readings of the range: for a flat tariff only the ends, when the archive has them. */
    async function fetchReadings(t: Tariff, req: RangeRequest, signal: AbortSignal) {
      let requests = 0;
      if (isFlatTariff(t) && req.to - req.from > 2 * FLAT_WINDOW_MS) {
        requests += 2;
        const [head, tail] = await Promise.all([
          hub.fetchData(req.gateway, req.sensor, req.from, req.from + FLAT_WINDOW_MS, { signal }),
          hub.fetchData(req.gateway, req.sensor, req.to - FLAT_WINDOW_MS, req.to, { signal }),
        ]);
        const first = head.find((row) => row[0] >= req.from);
        const last = [...tail].reverse().find((row) => row[0] <= req.to);
        if (first && last && last[0] > first[0]) return { readings: [first, last], requests, shortcut: true };
      }
      requests += 1;
      const readings = await hub.fetchData(req.gateway, req.sensor, req.from, req.to, { signal });
      return { readings, requests, shortcut: false };
    }

    async function onRange(msg: NodeMessage): Promise<NodeMessage> {
      const req = rangeRequest(msg, timezone, Date.now());
      const t = await tariff();
      const controller = new AbortController();
      controllers.add(controller);
      try {
        const fetched = await fetchReadings(t, req, controller.signal);
        if (fetched.readings.length < 2) {
          // one reading or none is no usage at all, not a cost of zero
          throw new Error(`the archive has ${fetched.readings.length} reading(s) of ${req.sensor} on ${req.gateway} from ${new Date(req.from).toISOString()} to ${new Date(req.to).toISOString()}: nothing to cost`);
        }
        const sensors: Record<string, Record<string, Array<[number, number]>>> = dataRecord();
        for (const ref of sensorsUsedBy(t)) {
          const rows = await hub.fetchData(ref.gatewayId, ref.sensorId, req.from - SENSOR_LEAD_MS, req.to, { signal: controller.signal });
          setNested(sensors, ref.gatewayId, ref.sensorId, rows);
          fetched.requests += 1;
        }
        const result = computeCost(t, fetched.readings, { timezone, sensors });
        msg.payload = {
          ...costPayload(result, t),
          gateway: req.gateway, sensor: req.sensor,
          range: { from: new Date(req.from).toISOString(), to: new Date(req.to).toISOString() },
          fetched: { readings: fetched.readings.length, requests: fetched.requests, shortcut: fetched.shortcut },
        };
        showCostStatus(result.gross, t, result.dropped.length);
        return msg;
      } finally {
        controllers.delete(controller);
      }
    }

    if (problem) {
      node.status({ fill: 'red', shape: 'ring', text: problem });
    } else {
      node.status({ fill: 'grey', shape: 'ring', text: `${mode} · ${tariffId}` });
      unwatchTariffs = hub.watchTariffs(TARIFF_REFRESH_MIN, (s) => {
        snapshot = s;
        if (mode === 'stream') followSensors(s);
      });
      // restored at deploy, so a restart says at once what it carried over (or that it could not)
      if (mode === 'stream') {
        queue = restore().then(
          () => {
            const today = totals!.day;
            if (today) node.status({ fill: 'grey', shape: 'dot', text: `today ${today.energy.toFixed(2)} kWh (restored)` });
            else if (!totals!.total) node.status({ fill: 'grey', shape: 'ring', text: 'stream · totals from zero' });
          },
          (err) => node.error(`running totals could not be set up: ${(err as Error).message}`),
        );
      }
    }

    const handlers: Record<Mode, (msg: NodeMessage) => Promise<Outgoing>> = { batch: onBatch, stream: onStream, range: onRange };

    node.on('input', (msg, send, done) => {
      const finish = settleOnce(done);
      queue = queue.then(async () => {
        try {
          if (problem) throw new Error(problem);
          const out = await handlers[mode](msg);
          if (out) send(out);
          finish();
        } catch (err) {
          node.status({ fill: 'red', shape: 'ring', text: shortText(err instanceof Error ? err.message : String(err)) });
          finish(err);
        }
      });
    });

    node.on('close', (_removed, done) => {
      unwatchTariffs?.();
      for (const unwatch of unwatchSensors.splice(0)) unwatch();
      for (const controller of controllers) controller.abort();
      link.release();
      done();
    });
  }

  RED.nodes.registerType('easy-cost', EasyCostNode);
};
