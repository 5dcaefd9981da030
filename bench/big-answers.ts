// Answers of the service as big as the client accepts (CLIENT_DEFAULTS.maxBodyBytes, 2 MiB),
// every item valid, for the event-loop bench and its test: sensors as JSON and as CSV,
// tariffs, archival readings.
import { CLIENT_DEFAULTS } from '../nodes/lib/api/client';
import { MAX_TARIFFS_PER_ANSWER } from '../nodes/lib/engine/common/limits';

export const ANSWER_BYTES = CLIENT_DEFAULTS.maxBodyBytes - 1024;

const two = (n: number) => String(n).padStart(2, '0');

/** Items made by `item` until their JSON list would pass `bytes`. */
function listUpTo(bytes: number, item: (k: number) => unknown): unknown[] {
  const items: unknown[] = [];
  let size = 2;
  for (let k = 0; ; k++) {
    const next = item(k);
    size += JSON.stringify(next).length + 1;
    if (size > bytes) return items;
    items.push(next);
  }
}

export function sensorItem(k: number): Record<string, unknown> {
  return {
    id: `e${k % 247}.kwh${Math.floor(k / 247) || ''}`,
    name: `Meter ${k}, hall "north"`,
    timestamp: `2026-11-25T${two(k % 24)}:${two(k % 60)}Z`,
    value: Math.round(k * 1371.7) / 100,
    unit: 'kWh',
    interval: 60,
  };
}

export function sensorsJson(bytes = ANSWER_BYTES): string {
  return JSON.stringify(listUpTo(bytes, sensorItem));
}

/** The CSV form (docs header, text quoted, ids bare) of as many sensors as fit in `bytes`. */
export function sensorsCsv(bytes = ANSWER_BYTES): string {
  const quoted = (text: unknown) => `"${String(text).replace(/"/g, '""')}"`;
  const lines = ['id,name,timestamp,value,unit,interval'];
  let size = lines[0].length + 1;
  for (let k = 0; ; k++) {
    const s = sensorItem(k);
    const line = [s.id, quoted(s.name), s.timestamp, s.value, quoted(s.unit), s.interval].join(',');
    size += line.length + 1;
    if (size > bytes) return lines.join('\n') + '\n';
    lines.push(line);
  }
}

/** MAX_TARIFFS_PER_ANSWER valid tariffs of time-of-use rules, as many rules each as fit. */
export function tariffsJson(bytes = ANSWER_BYTES): string {
  const rule = (k: number) => ({
    priority: k,
    price: 0.1 + (k % 37) / 100,
    time_start: `${two(k % 24)}:${two(k % 60)}`,
    time_end: `${two((k + 7) % 24)}:${two((k * 7) % 60)}`,
    weekdays: [1 + (k % 7), 1 + ((k + 2) % 7)],
  });
  const perTariff = Math.floor(bytes / MAX_TARIFFS_PER_ANSWER);
  const tariffs = Array.from({ length: MAX_TARIFFS_PER_ANSWER }, (_, t) => ({
    id: `T${t}`,
    name: `tariff ${t}`,
    vat: 20,
    currency: 'EUR',
    rules: listUpTo(perTariff - 100, rule),
  }));
  return JSON.stringify(tariffs);
}

/** Archival readings `[ISO without offset, value]`, a minute apart. */
export function readingsJson(bytes = ANSWER_BYTES): string {
  const start = Date.UTC(2026, 0, 1);
  return JSON.stringify(listUpTo(bytes, (k) => [new Date(start + k * 60_000).toISOString().slice(0, 19), k * 0.013]));
}

export const BIG_ANSWERS: Array<{ kind: string; body: () => string; contentType: string }> = [
  { kind: 'sensors, JSON', body: () => sensorsJson(), contentType: 'application/json' },
  { kind: 'sensors, CSV', body: () => sensorsCsv(), contentType: 'text/csv' },
  { kind: 'tariffs', body: () => tariffsJson(), contentType: 'application/json' },
  { kind: 'readings', body: () => readingsJson(), contentType: 'application/json' },
];

/**
 * Answers of the shapes that cost JSON.parse most for their size (2 MiB each): a list of
 * empty objects, a list of zeros, one tariff with as many extra keys as fit. The first two
 * are refused (not sensors, not readings), the third is one valid tariff.
 */
export const HOSTILE_ANSWERS: Array<{ kind: string; read: 'sensors, JSON' | 'readings' | 'tariffs'; body: () => string }> = [
  { kind: 'empty objects', read: 'sensors, JSON', body: () => `[${new Array(Math.floor(ANSWER_BYTES / 3)).fill('{}').join(',')}]` },
  { kind: 'zeros', read: 'readings', body: () => `[${new Array(Math.floor(ANSWER_BYTES / 2)).fill('0').join(',')}]` },
  {
    kind: 'extra keys',
    read: 'tariffs',
    body: () => {
      const head = '[{"id":"T","name":"many keys","vat":20,"currency":"EUR","rules":[{"priority":1,"price":0.2}]';
      const keys: string[] = [];
      let size = head.length + 2;
      for (let k = 0; size < ANSWER_BYTES - 32; k++) {
        const member = `"x${k}":${k}`;
        keys.push(member);
        size += member.length + 1;
      }
      return `${head},${keys.join(',')}}]`;
    },
  },
];
