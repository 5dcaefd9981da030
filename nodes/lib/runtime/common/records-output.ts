// A node's records output (docs/records.md): the figures it sends, also as InfluxDB points
// for node-red-contrib-influxdb (`influxdb out` or `influxdb batch`) or as Home Assistant
// MQTT discovery and states for Node-RED's `mqtt out`, on one extra, last output. Which
// points and entities a figure makes is in engine/records/; this file reads the setting,
// refuses names InfluxDB cannot keep, hands points to their delivery (records-delivery:
// kept until written), remembers which discovery configs this node has sent and to whom
// each object id belongs, and sends every config and state again when Home Assistant or
// the broker comes back.
import { InfluxFormat, influxNameProblem, pointNameProblem, RecordPoint } from '../../engine/records/influx-points';
import {
  generatorPoints,
  peakPoints,
  planPoints,
  pricePoints,
  rangeCostPoints,
  streamCostPoints,
  switchPoints,
} from '../../engine/records/figure-points';
import { haDiscovery, haObjectId, haOnline, haState, HaEntity, HaTarget, sameHaConfig } from '../../engine/records/home-assistant';
import { MAX_METERS } from '../../engine/common/limits';
import { peakEntities, planEntities, priceEntities, streamCostEntities, switchEntities } from '../../engine/records/ha-figures';
import { KeptStore, RecordsDelivery } from './records-delivery';
import type { Node, NodeDef, NodeMessage } from './red-types';

export type RecordsFormat = InfluxFormat | 'homeassistant';
const FORMATS: readonly RecordsFormat[] = ['influx-out', 'influx-batch', 'homeassistant'];
export const DEFAULT_DEVICE = 'easy energy';
export const DEFAULT_PREFIX = 'homeassistant';
export const DEFAULT_BASE = 'node-red-easy';
/**
 * Entities whose configs a node remembers as sent: far above what MAX_METERS meters make
 * (easy-cost stream mode: seven each) and the node's own few. Only meters gone by
 * msg.reset and replaced by others reach it; then all are forgotten, and each config is
 * sent once more with its entity's next state (retained: HA takes it again unchanged).
 */
export const MAX_ANNOUNCED = 16 * MAX_METERS;

/** A publish topic from a setting: trimmed, no trailing `/`; wildcards, control characters (a line break…) and `$` starts are refused. */
function topicSetting(raw: unknown, fallback: string, what: string): string {
  const text = typeof raw === 'string' ? raw.trim().replace(/\/+$/, '') : '';
  if (text === '') return fallback;
  // eslint-disable-next-line no-control-regex
  if (/[+#\u0000-\u001f\u007f]/.test(text) || text.startsWith('$') || text.length > 200)
    throw new Error(
      `records: the ${what} ${JSON.stringify(text.slice(0, 40))} is not a topic one may publish to (no + # line breaks or control characters, no leading $)`,
    );
  return text;
}

export interface RecordsSettings {
  format: RecordsFormat;
  /** Home Assistant only. */
  target: HaTarget;
  /** The series name of the node where one is needed (easy-plan's `plan` tag, easy-peak's `site`): its name, else its id. */
  label: string;
  /** InfluxDB: keep each record until the writer confirms it (its Complete and Catch nodes wired back). */
  confirm: boolean;
}

/** The node's records setting: null when off; throws in words when the setting is not one we know. */
export function recordsSettings(config: NodeDef): RecordsSettings | null {
  const raw = config.records;
  if (raw === undefined || raw === '' || raw === false || raw === 'none') return null;
  if (!FORMATS.includes(raw as RecordsFormat))
    throw new Error(`records must be one of ${FORMATS.join(', ')} (or empty: off), got ${JSON.stringify(raw)}`);
  const device =
    typeof config.recordsDevice === 'string' && config.recordsDevice.trim() !== ''
      ? config.recordsDevice.trim().slice(0, 100)
      : DEFAULT_DEVICE;
  const format = raw as RecordsFormat;
  const label = typeof config.name === 'string' && config.name.trim() !== '' ? config.name.trim() : config.id;
  const labelProblem = format === 'homeassistant' ? null : influxNameProblem(label);
  if (labelProblem) throw new Error(`records: the node's name ${JSON.stringify(label.slice(0, 40))} ${labelProblem}: rename the node`);
  return {
    format,
    label,
    confirm: format !== 'homeassistant' && (config.recordsConfirm === true || config.recordsConfirm === 'true'),
    target: {
      device,
      nodeId: haObjectId(config.id),
      prefix: topicSetting(config.recordsPrefix, DEFAULT_PREFIX, 'discovery prefix'),
      base: topicSetting(config.recordsTopic, DEFAULT_BASE, 'state topic'),
    },
  };
}

/** What a node's records output needs of the node beyond its settings (none in tests of the figures alone). */
export interface RecordsHooks {
  nodeId: string;
  /** Sends records messages the node did not send with a figure (retries, configs again). */
  send(messages: NodeMessage[]): void;
  store: KeptStore | null;
  warn(text: string): void;
  log(text: string): void;
  /** A record refused (a name InfluxDB cannot keep, two meters of one entity): to Catch. */
  error(text: string): void;
}

const MAX_SAID = 20;

/** The messages of a node's records output, one call per figure it sends. */
export class RecordsOutput {
  /** The entities whose discovery configs were sent (by object id), as last sent: a config is built and sent again only when it changes (sameHaConfig). */
  private readonly announced = new Map<string, HaEntity>();
  /** InfluxDB: what keeps records until written (the bench reads what it holds). */
  readonly delivery: RecordsDelivery | null;
  /** Problems already said (names refused, ids taken), at most MAX_SAID. */
  private readonly said = new Set<string>();

  constructor(
    readonly settings: RecordsSettings,
    private readonly hooks: RecordsHooks | null = null,
  ) {
    this.delivery =
      settings.format === 'homeassistant'
        ? null
        : new RecordsDelivery({
            nodeId: hooks?.nodeId ?? '',
            format: settings.format,
            confirm: settings.confirm && hooks !== null,
            send: (messages) => (messages.length ? hooks?.send(messages) : undefined),
            store: hooks?.store ?? null,
            warn: (text) => hooks?.warn(text),
            log: (text) => hooks?.log(text),
          });
  }

  /** Restores what was kept through the last run (InfluxDB, Keep until written). */
  restore(): Promise<void> {
    return this.delivery?.restore() ?? Promise.resolve();
  }

  /** Stores what is not yet written; no timer runs after. */
  close(): Promise<void> {
    return this.delivery?.close() ?? Promise.resolve();
  }

  /**
   * A message for the records rather than a figure: the writer's word on a records message
   * (its Complete or Catch node wired back), `msg.records = "send"`, or for Home Assistant
   * its birth message (`online` on `<prefix>/status`) or a Status node's `connected` from
   * the `mqtt out`: every config and state sent again (a broker that lost them gets them
   * back); HA's `offline` and the other statuses are taken and change nothing. True when it
   * was one (nothing more to do with it).
   */
  control(msg: NodeMessage): boolean {
    if (this.delivery) return this.delivery.receive(msg);
    const { prefix } = this.settings.target;
    const payload = Buffer.isBuffer(msg.payload) ? msg.payload.toString() : msg.payload;
    const status = typeof msg.status === 'object' && msg.status !== null ? (msg.status as { text?: unknown }) : null;
    // HA's birth (and will: `offline`), and every state of the mqtt out, are taken; `online` and `connected` send all again
    const fromHa = msg.topic === `${prefix}/status`;
    if (!fromHa && !status && msg.records !== 'send') return false;
    const connected = typeof status?.text === 'string' && /(^|[.:\s])connected$/i.test(status.text);
    if ((fromHa && payload === 'online') || connected || msg.records === 'send') this.hooks?.send(this.everything());
    return true;
  }

  /** easy-tariff's price message. */
  price(payload: unknown, now: number): NodeMessage[] {
    return this.out(
      () => pricePoints(payload, now),
      () => priceEntities(payload),
    );
  }

  /** easy-cost stream mode: one meter's message (totals, closed periods, generator report). */
  streamCost(payload: unknown): NodeMessage[] {
    return this.out(
      () => streamCostPoints(payload),
      () => streamCostEntities(payload),
    );
  }

  /** easy-cost batch and range modes (`period`: the message's msg.period). InfluxDB only: a span has no live state. */
  rangeCost(payload: unknown, period: unknown): NodeMessage[] {
    return this.out(
      () => rangeCostPoints(payload, period),
      () => [],
    );
  }

  /** easy-plan's output 1 (the state) at `now`. */
  planSwitch(state: unknown, now: number): NodeMessage[] {
    return this.out(
      () => switchPoints(state, this.settings.label, now),
      () => switchEntities(state),
    );
  }

  /** easy-plan's plan message. */
  plan(payload: unknown, now: number): NodeMessage[] {
    return this.out(
      () => planPoints(payload, this.settings.label),
      () => planEntities(payload, now),
    );
  }

  /**
   * easy-peak, one reading: the windows it closed (`windows`, PeakStream's records part,
   * null for none) as InfluxDB points; the site's month value and projection (`payload`,
   * output 1's) as Home Assistant states.
   */
  peak(payload: unknown, windows: unknown): NodeMessage[] {
    return this.out(
      () => peakPoints(windows, this.settings.label),
      () => peakEntities(payload),
    );
  }

  /** A generator report alone (range mode's comes with rangeCost). */
  generator(report: unknown, tariff: string | null): NodeMessage[] {
    return this.out(
      () => generatorPoints(report, tariff),
      () => [],
    );
  }

  private out(points: () => RecordPoint[], entities: () => HaEntity[]): NodeMessage[] {
    if (this.delivery) return this.delivery.add(this.namesKept(points()));
    const { target } = this.settings;
    const list = this.owned(entities());
    const messages: NodeMessage[] = [];
    let fresh = false;
    for (const entity of list) {
      const sent = this.announced.get(entity.objectId);
      if (sent && sameHaConfig(sent, entity)) {
        this.announced.set(entity.objectId, entity); // its latest state, for everything()
        continue;
      }
      if (!sent && this.announced.size >= MAX_ANNOUNCED) this.announced.clear();
      this.announced.set(entity.objectId, entity);
      messages.push({ ...haDiscovery(target, entity) });
      fresh = true;
    }
    // online with the first configs (and after a redeploy), before any state
    if (fresh) messages.push({ ...haOnline(target) });
    for (const entity of list) messages.push({ ...haState(target, entity) });
    return messages;
  }

  /** Every config sent, online, and each entity's last state: what a broker that lost them needs. */
  private everything(): NodeMessage[] {
    const { target } = this.settings;
    const all = [...this.announced.values()];
    if (!all.length) return [];
    return [...all.map((e) => ({ ...haDiscovery(target, e) })), { ...haOnline(target) }, ...all.map((e) => ({ ...haState(target, e) }))];
  }

  /** The points whose names InfluxDB can keep; each other refused in words, once. */
  private namesKept(points: RecordPoint[]): RecordPoint[] {
    const kept: RecordPoint[] = [];
    for (const p of points) {
      const problem = pointNameProblem(p);
      if (problem) this.say(`records: a ${p.measurement} point is not written: its ${problem}`);
      else kept.push(p);
    }
    return kept;
  }

  /** The entities whose object id is theirs: an id already held by another owner (two meters of one hash) is refused in words, once. */
  private owned(list: HaEntity[]): HaEntity[] {
    return list.filter((e) => {
      const holder = this.announced.get(e.objectId);
      if (!holder || holder.owner === e.owner) return true;
      this.say(
        `records: meter ${JSON.stringify(e.owner ?? '')} would take the Home Assistant entities of meter ${JSON.stringify(holder.owner ?? '')} (their ids share a hash); its entities are not sent (rename one of the meters)`,
      );
      return false;
    });
  }

  private say(text: string): void {
    if (this.said.has(text) || this.said.size >= MAX_SAID) return;
    this.said.add(text);
    this.hooks?.error(text);
  }
}

/**
 * The node's records output, or null when off; a setting we cannot use is an error (to
 * Catch, on the next turn, once the flow exists) and leaves records off. `send` puts
 * messages on the records output; what is kept through an outage lives in the node's
 * context (default store) under `records`.
 */
export function nodeRecords(node: Node, config: NodeDef, send: (messages: NodeMessage[]) => void): RecordsOutput | null {
  try {
    const settings = recordsSettings(config);
    if (!settings) return null;
    const context = node.context();
    const store: KeptStore = {
      load: () => new Promise((resolve, reject) => context.get(RECORDS_KEY, (err, value) => (err ? reject(err) : resolve(value)))),
      save: (value) => new Promise((resolve, reject) => context.set(RECORDS_KEY, value, (err) => (err ? reject(err) : resolve()))),
    };
    return new RecordsOutput(settings, {
      nodeId: node.id,
      send,
      store,
      warn: (text) => node.warn(text),
      log: (text) => node.log(text),
      error: (text) => node.error(text, { payload: text }),
    });
  } catch (err) {
    const text = `${(err as Error).message}; no records are sent`;
    const told = setImmediate(() => node.error(text, { payload: text }));
    node.on('close', (_removed, done) => {
      clearImmediate(told);
      done();
    });
    return null;
  }
}

/** The node context key of the records kept through an outage. */
export const RECORDS_KEY = 'records';
