// easy-sensors: the sensors of one gateway, polled through the account (one poll per
// gateway however many nodes watch it), sent one message per sensor or one for all.
// Payloads, staleness and change tracking live in lib/sensor-payload.

import { linkAccount, reportProblem, settleOnce, shortText } from './account-user';
import { formatClock } from './lib/format';
import { LongTimer } from './lib/long-timer';
import { boundedSetting, SENSOR_INTERVAL } from './lib/node-settings';
import type { SensorSnapshot } from './lib/hub';
import {
  ChangeTracker, missingSensors, parseSensorFilter, selectSensors, sensorPayload, SensorPayload,
} from './lib/sensor-payload';
import type { Node, NodeAPI, NodeDef, NodeMessage } from './red-types';

/**
 * No word from the account for this many poll intervals (plus slack) means the poll has
 * died somewhere; the node then subscribes again. Not while a poll is on its way: one
 * that is slow but alive (the client's retries, Retry-After waits and deadlines) may take
 * longer than this, and subscribing again would start a second poll beside it.
 */
const WATCHDOG_INTERVALS = 3;
const WATCHDOG_SLACK_MS = 120_000;

interface SensorsConfig {
  gateway: string;
  intervalSec: number;
  output: 'each' | 'all';
  onlyChanged: boolean;
  filter: string[];
}

function readSensorsConfig(config: NodeDef, interval: number): SensorsConfig {
  return {
    gateway: String(config.gateway ?? '').trim(),
    intervalSec: interval,
    output: config.output === 'all' ? 'all' : 'each',
    onlyChanged: config.onlyChanged === true || config.onlyChanged === 'true',
    filter: parseSensorFilter(config.sensors),
  };
}

export = function register(RED: NodeAPI): void {
  function EasySensorsNode(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    // between 10 s and a day; none, 0 or a negative one means the default (no warning)
    const interval = boundedSetting(config.interval, SENSOR_INTERVAL);
    if (interval.warning) node.warn(interval.warning);
    const cfg = readSensorsConfig(config, interval.value);
    const link = linkAccount(RED, node, config.account);
    const tracker = new ChangeTracker();
    let lastGood: SensorSnapshot | null = null;
    let sentPolledAt: number | null = null;
    let reportedError: string | null = null;
    let unwatch: (() => void) | null = null;
    const watchdog = new LongTimer();
    const problem = link.problem ?? (cfg.gateway ? null : 'no gateway configured');
    const zone = link.account?.timezone ?? 'UTC';

    const messageFor = (payload: SensorPayload): NodeMessage => ({ topic: payload.id, gateway: cfg.gateway, payload });

    /** The messages for one poll; `onlyChanged` holds back what did not change unless `all` is forced. */
    function messagesFor(snapshot: SensorSnapshot, everything: boolean): NodeMessage[] {
      const now = Date.now();
      const payloads = selectSensors(snapshot.sensors, cfg.filter).map((s) => sensorPayload(s, now));
      const changed = payloads.filter((p) => tracker.changed(p));
      payloads.forEach((p) => tracker.remember(p));
      if (cfg.output === 'all') {
        if (cfg.onlyChanged && !everything && changed.length === 0) return [];
        return [{ topic: cfg.gateway, gateway: cfg.gateway, payload: payloads, changed: changed.map((p) => p.id) }];
      }
      return (cfg.onlyChanged && !everything ? changed : payloads).map(messageFor);
    }

    function showStatus(): void {
      const last = lastGood?.polledAt ? formatClock(lastGood.polledAt, zone) : null;
      if (reportedError) {
        node.status({ fill: 'red', shape: 'ring', text: `${shortText(reportedError, 40)} · last good ${last ?? 'never'}` });
        return;
      }
      const missing = lastGood ? missingSensors(lastGood.sensors, cfg.filter) : [];
      const count = lastGood ? selectSensors(lastGood.sensors, cfg.filter).length : 0;
      if (missing.length > 0) node.status({ fill: 'yellow', shape: 'dot', text: `not on ${cfg.gateway}: ${missing.join(', ')} · ${last}` });
      else node.status({ fill: 'green', shape: 'dot', text: `${count} sensors · ${last}` });
    }

    /** A failing poll is reported once when it starts failing (or fails differently), not every tick. */
    function onError(err: Error): void {
      const text = err.message;
      if (text === reportedError) return;
      reportedError = text;
      reportProblem(node, `gateway ${cfg.gateway}: ${text}`, { topic: cfg.gateway, gateway: cfg.gateway });
    }

    function onUpdate(snapshot: SensorSnapshot): void {
      armWatchdog();
      if (snapshot.error) onError(snapshot.error);
      else {
        if (reportedError) node.log(`gateway ${cfg.gateway}: polling works again`);
        reportedError = null;
        lastGood = snapshot;
        // the account also hands a newcomer the poll it already had; send each poll once
        if (snapshot.polledAt !== sentPolledAt) {
          sentPolledAt = snapshot.polledAt;
          for (const message of messagesFor(snapshot, false)) node.send(message);
        }
      }
      showStatus();
    }

    function watch(): void {
      unwatch?.();
      unwatch = link.hub!.watchSensors(cfg.gateway, cfg.intervalSec, onUpdate);
      armWatchdog();
    }

    function armWatchdog(): void {
      watchdog.arm(Date.now() + WATCHDOG_INTERVALS * cfg.intervalSec * 1000 + WATCHDOG_SLACK_MS, () => {
        if (link.hub!.pollInFlight(cfg.gateway)) return armWatchdog();
        node.warn(`gateway ${cfg.gateway}: no poll for ${WATCHDOG_INTERVALS} intervals, polling again`);
        watch();
      });
    }

    if (problem) {
      node.status({ fill: 'red', shape: 'ring', text: problem });
    } else {
      node.status({ fill: 'grey', shape: 'ring', text: `polling ${cfg.gateway}…` });
      watch();
    }

    // Any input sends the current values at once, whatever `onlyChanged` says.
    node.on('input', (msg, send, done) => {
      const finish = settleOnce(done);
      try {
        if (problem) throw new Error(problem);
        if (!lastGood) throw new Error(`no sensor values from gateway ${cfg.gateway} yet${reportedError ? `: ${reportedError}` : ''}`);
        for (const message of messagesFor(lastGood, true)) send({ ...msg, ...message });
        finish();
      } catch (err) {
        finish(err);
      }
    });

    node.on('close', (_removed, done) => {
      watchdog.cancel();
      unwatch?.();
      unwatch = null;
      link.release();
      done();
    });
  }

  RED.nodes.registerType('easy-sensors', EasySensorsNode);
};
