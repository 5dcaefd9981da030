// A node's records output (docs/records.md): the figures it sends, also as InfluxDB points
// for node-red-contrib-influxdb (`influxdb out` or `influxdb batch`) or as Home Assistant
// MQTT discovery and states for Node-RED's `mqtt out`, on one extra, last output. Which
// points and entities a figure makes is in engine/records/; this file reads the setting
// and remembers which discovery configs this node has sent.
import { influxMessages, InfluxFormat, RecordPoint } from '../../engine/records/influx-points';
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
import type { NodeDef, NodeMessage } from './red-types';

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

/** A publish topic from a setting: trimmed, no trailing `/`; wildcards, empty levels' ends and `$` starts are refused. */
function topicSetting(raw: unknown, fallback: string, what: string): string {
  const text = typeof raw === 'string' ? raw.trim().replace(/\/+$/, '') : '';
  if (text === '') return fallback;
  if (/[+#]/.test(text) || text.includes(String.fromCharCode(0)) || text.startsWith('$') || text.length > 200)
    throw new Error(`records: the ${what} "${text.slice(0, 40)}" is not a topic one may publish to (no + # or leading $)`);
  return text;
}

export interface RecordsSettings {
  format: RecordsFormat;
  /** Home Assistant only. */
  target: HaTarget;
  /** The series name of the node where one is needed (easy-plan's `plan` tag, easy-peak's `site`): its name, else its id. */
  label: string;
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
  return {
    format: raw as RecordsFormat,
    label: typeof config.name === 'string' && config.name.trim() !== '' ? config.name.trim() : config.id,
    target: {
      device,
      nodeId: haObjectId(config.id),
      prefix: topicSetting(config.recordsPrefix, DEFAULT_PREFIX, 'discovery prefix'),
      base: topicSetting(config.recordsTopic, DEFAULT_BASE, 'state topic'),
    },
  };
}

/** The messages of a node's records output, one call per figure it sends. */
export class RecordsOutput {
  /** The entities whose discovery configs were sent (by object id): a config is built and sent again only when it changes (sameHaConfig). */
  private readonly announced = new Map<string, HaEntity>();

  constructor(readonly settings: RecordsSettings) {}

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
    const { format, target } = this.settings;
    if (format !== 'homeassistant') return influxMessages(points(), format);
    const list = entities();
    const messages: NodeMessage[] = [];
    let fresh = false;
    for (const entity of list) {
      const sent = this.announced.get(entity.objectId);
      if (sent && sameHaConfig(sent, entity)) continue;
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
}

/** The node's records output, or null when off; a setting we cannot use is warned once and leaves records off. */
export function nodeRecords(node: { warn(msg: unknown): void }, config: NodeDef): RecordsOutput | null {
  try {
    const settings = recordsSettings(config);
    return settings ? new RecordsOutput(settings) : null;
  } catch (err) {
    node.warn(`${(err as Error).message}; no records are sent`);
    return null;
  }
}
