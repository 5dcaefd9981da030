// Which way a meter counts (semantics rule 47): import (bought) or export (sold). easy-cost's
// stream mode and easy-peak read the node's *export meters* setting (meter names or patterns
// with `*`) and `msg.direction`, which overrides it for that message's meter.
import type { MeterDirection } from '../../engine/cost/cost';
import { shortText } from '../../engine/common/format';
import { MAX_ID_CHARS } from '../../engine/common/limits';

/** At most this many patterns in the setting (a site has a handful of export registers). */
export const MAX_EXPORT_PATTERNS = 64;

/** The *export meters* setting read: names or patterns (`*` any run of characters), matched whole. */
export class ExportMeters {
  private readonly exact = new Set<string>();
  private readonly patterns: string[][] = [];

  /** `text`: names or patterns separated by commas or new lines; a TypeError says what is wrong. */
  constructor(text: unknown) {
    if (text === undefined || text === null) return;
    if (typeof text !== 'string') throw new TypeError(`export meters must be text (meter names or patterns), got ${typeof text}`);
    const items = text
      .split(/[,\n]/)
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (items.length > MAX_EXPORT_PATTERNS)
      throw new RangeError(`export meters: at most ${MAX_EXPORT_PATTERNS} names or patterns, got ${items.length}`);
    for (const item of items) {
      if (item.length > MAX_ID_CHARS) throw new RangeError(`export meters: "${shortText(item)}" is longer than ${MAX_ID_CHARS} characters`);
      if (!item.includes('*')) this.exact.add(item);
      else this.patterns.push(item.split('*'));
    }
  }

  get empty(): boolean {
    return this.exact.size === 0 && this.patterns.length === 0;
  }

  /** Whether the meter named `name` (gateway/topic, or topic) is an export meter by the setting. */
  matches(name: string): boolean {
    return this.exact.has(name) || this.patterns.some((parts) => matchesWildcard(parts, name));
  }
}

/**
 * Whether `name` matches a pattern given as its literal parts between `*`s (`a*b*c` is
 * ['a', 'b', 'c']), whole. Greedy leftmost search of each middle part: a part found at its
 * earliest place never loses a match a later place would give, so the work is linear in
 * the name for each part (a RegExp of `.*` runs backtracks polynomially on hostile names).
 */
export function matchesWildcard(parts: readonly string[], name: string): boolean {
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (parts.length === 1) return name === first;
  if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const found = name.indexOf(parts[i], at);
    if (found < 0 || found + parts[i].length > end) return false;
    at = found + parts[i].length;
  }
  return true;
}

/** What a meter counts: energy bought or sold (rule 47), or an inverter's production (never priced, rule 64). */
export type MeterSide = MeterDirection | 'production';

/**
 * The direction of a message's meter: `msg.direction` when given ("import" or "export", and
 * "production" where the node counts production: `production` given; any other value is a
 * TypeError naming it), else the settings' (export meters, then production meters).
 */
export function messageDirection(msg: { direction?: unknown }, name: string, setting: ExportMeters): MeterDirection;
export function messageDirection(msg: { direction?: unknown }, name: string, setting: ExportMeters, production: ExportMeters): MeterSide;
export function messageDirection(msg: { direction?: unknown }, name: string, setting: ExportMeters, production?: ExportMeters): MeterSide {
  const given = msg.direction;
  if (given === undefined || given === null || given === '')
    return setting.matches(name) ? 'export' : production?.matches(name) ? 'production' : 'import';
  if (given === 'import' || given === 'export' || (given === 'production' && production)) return given;
  throw new TypeError(
    `msg.direction must be "import"${production ? ', "export" or "production"' : ' or "export"'}, got ${typeof given === 'string' ? JSON.stringify(shortText(given, 40)) : typeof given} (meter ${shortText(name)})`,
  );
}

/**
 * Throws what a user needs to hear when meter `name` cannot count a reading in `direction`:
 * an export reading with no export price set (`priced` false), or a meter that already
 * counts the other way (`counts`: kept with its totals; a reset lets it count anew).
 */
export function checkDirection(name: string, direction: MeterSide, priced: boolean, counts: MeterSide = direction): void {
  if (direction === 'export' && !priced)
    throw new Error(
      `an export reading of meter ${shortText(name)}, but the node has no export price: set an export tariff, a fixed rate or an easy-prices node's list (Export), or count the meter as import`,
    );
  if (counts !== direction)
    throw new Error(`meter ${shortText(name)} counts ${counts}, not ${direction}: reset it (msg.reset) to count it the other way`);
}

/**
 * easy-peak's side (rule 47): energy sold never makes a demand peak, so an export meter's
 * readings are skipped, said once per node (a tariff that bills export demand: *count export*).
 */
export class ExportSkips {
  private told = false;

  constructor(
    private readonly meters: ExportMeters = new ExportMeters(undefined),
    private readonly warn: (message: string) => void,
  ) {}

  /** Whether the message's meter exports (msg.direction, else the setting; a wrong direction throws), said the first time. */
  skips(msg: { direction?: unknown }, name: string): boolean {
    if (messageDirection(msg, name, this.meters) !== 'export') return false;
    if (!this.told)
      this.warn(
        `meter ${shortText(name)} exports: energy sold makes no demand peak, its readings are not counted (tick count export if the tariff bills it)`,
      );
    this.told = true;
    return true;
  }
}
