// Home Assistant's MQTT discovery (docs/records.md): a retained config message per entity
// at `<prefix>/sensor/<node_id>/<object_id>/config`, all entities of one device name
// grouped in one device, and retained state messages, as Node-RED's core `mqtt out` node
// publishes them (msg.topic, msg.payload, msg.retain, msg.qos). Which entities a figure
// makes (units, device and state classes) is in ha-figures.ts.

/** One entity of a figure, and its value now. */
export interface HaEntity {
  /** Within the node: letters, digits, `_` and `-` (haObjectId makes one from outside text). */
  objectId: string;
  name: string;
  unit?: string;
  deviceClass?: 'monetary' | 'energy' | 'duration' | 'timestamp' | 'enum' | 'power' | 'apparent_power';
  stateClass?: 'measurement' | 'total' | 'total_increasing';
  options?: string[];
  icon?: string;
  /** The state: a number, text (enum, ISO timestamp), or null (unknown). */
  value: number | string | null;
  /** For `total` that resets: the instant (epoch ms) the count began; sent as the state's `last_reset`. */
  lastReset?: number;
  /** Whose entity it is where a node has several (a meter, haMeterText): two owners never share an object id. */
  owner?: string;
}

export interface HaTarget {
  /** The device the entities belong to (every node with the same device name shares it). */
  device: string;
  /** The node's own id part of the topics (letters, digits, `_`, `-`). */
  nodeId: string;
  /** Discovery prefix, `homeassistant` unless HA was set up otherwise. */
  prefix: string;
  /** Where states and availability go: `<base>/<nodeId>/<objectId>`, `<base>/status`. */
  base: string;
}

export interface MqttMessage {
  topic: string;
  payload: unknown;
  retain: boolean;
  qos: 0 | 1 | 2;
}

const MAX_ID_CHARS = 64;
/** How every hashed id ends: `_` and the hash in base 36, 6 or 7 characters (2^32 < 36^7). */
const HASHED_END = /_[0-9a-z]{6,7}$/;

/**
 * A topic-safe id from outside text, one to one: text of letters, digits, `_` and `-` (at
 * most 64) is its own id, unless it ends as a hashed id does; any other text becomes its
 * safe characters (others `_`) and `_` + a hash of the whole text, 6 or 7 base-36
 * characters. So a text never takes the id of another text made safe ("e1.kwh" and
 * "e1_kwh_" + its hash), and ids of 0.2.0 stay as they were but for texts ending in `_`
 * and 6 or 7 lower-case letters or digits, and one hashed id in 70 (a hash below 36^5,
 * now padded). Two texts of one hash are told apart where ids are handed out
 * (RecordsOutput: one owner per object id).
 */
export function haObjectId(text: string): string {
  if (text.length <= MAX_ID_CHARS && /^[A-Za-z0-9_-]+$/.test(text) && !HASHED_END.test(text)) return text;
  const safe = text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_ID_CHARS);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return `${safe}_${h.toString(36).padStart(6, '0')}`;
}

/**
 * A meter's name as one text, one to one: `<gateway>/<topic>`, or `<topic>` without a
 * gateway, where `\` and `/` inside a name are written `\\` and `\s` (so `G`/`a/b` and
 * `G/a`/`b` differ), and the one default meter (no topic) is `default`, a topic named
 * "default" `\default`. For names of neither character (every meter of 0.2.0 but one
 * named "default") it is the meter's name as people read it, so their ids stay.
 */
export function haMeterText(gateway: string | null, topic: string | null): string {
  const part = (x: string) => x.replace(/\\/g, '\\\\').replace(/\//g, '\\s');
  const topicPart = topic === null ? 'default' : topic === 'default' ? '\\default' : part(topic);
  return gateway === null ? topicPart : `${part(gateway)}/${topicPart}`;
}

/** The topic an entity's state goes to. */
export const haStateTopic = (t: HaTarget, objectId: string) => `${t.base}/${t.nodeId}/${objectId}`;
/** The availability topic every entity of the package names (`online` from the nodes, `offline` as the broker node's will). */
export const haAvailabilityTopic = (t: HaTarget) => `${t.base}/status`;

/** The retained discovery config of one entity. */
export function haDiscovery(t: HaTarget, e: HaEntity): MqttMessage {
  const deviceId = haObjectId(t.device);
  const config: Record<string, unknown> = {
    name: e.name,
    unique_id: `${deviceId}_${t.nodeId}_${e.objectId}`,
    state_topic: haStateTopic(t, e.objectId),
    value_template: '{{ value_json.value }}',
    availability_topic: haAvailabilityTopic(t),
    device: { identifiers: [`node-red-easy_${deviceId}`], name: t.device, manufacturer: 'tariffkit', model: 'node-red-easy' },
  };
  if (e.unit !== undefined) config.unit_of_measurement = e.unit;
  if (e.deviceClass !== undefined) config.device_class = e.deviceClass;
  if (e.stateClass !== undefined) config.state_class = e.stateClass;
  if (e.options !== undefined) config.options = e.options;
  if (e.icon !== undefined) config.icon = e.icon;
  if (e.lastReset !== undefined) config.last_reset_value_template = '{{ value_json.last_reset }}';
  return { topic: `${t.prefix}/sensor/${t.nodeId}/${e.objectId}/config`, payload: config, retain: true, qos: 1 };
}

/**
 * Whether two entities of one object id have the same discovery config (haDiscovery reads
 * these fields, and of lastReset only whether there is one): compared field by field, so a
 * reading's entities need no config built to learn that nothing changed.
 */
export function sameHaConfig(a: HaEntity, b: HaEntity): boolean {
  return (
    a.objectId === b.objectId &&
    a.name === b.name &&
    a.unit === b.unit &&
    a.deviceClass === b.deviceClass &&
    a.stateClass === b.stateClass &&
    a.icon === b.icon &&
    (a.lastReset === undefined) === (b.lastReset === undefined) &&
    (a.options === b.options ||
      (a.options !== undefined &&
        b.options !== undefined &&
        a.options.length === b.options.length &&
        a.options.every((o, i) => o === b.options![i])))
  );
}

/** An entity's state, retained so HA has it at once after its own restart. */
export function haState(t: HaTarget, e: HaEntity): MqttMessage {
  const payload: Record<string, unknown> = { value: e.value };
  if (e.lastReset !== undefined) payload.last_reset = new Date(e.lastReset).toISOString();
  return { topic: haStateTopic(t, e.objectId), payload, retain: true, qos: 0 };
}

/** `online` on the availability topic, retained. */
export function haOnline(t: HaTarget): MqttMessage {
  return { topic: haAvailabilityTopic(t), payload: 'online', retain: true, qos: 1 };
}
