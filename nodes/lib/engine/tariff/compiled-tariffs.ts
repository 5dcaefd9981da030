// The compiled-tariff cache. A tariff is compiled once and found again by identity (a
// WeakMap); parseTariffs fills it, so its tariffs are never compiled again.
type Json = Record<string, unknown>;

// A tariff may be changed in place (e.g. in a function node) between calls, so a hit is
// checked against the values the compile read: the tariff's id, name, vat, currency and
// rules list, and each rule's object and its rule fields (weekday lists entry by entry).
// That check is linear in the rules and never touches the fields the engine ignores,
// however large they are (semantics rule 7 keeps them); any difference compiles afresh.
// Generic in what the compile makes, so this module needs nothing of tariff.ts (which imports it).
const compiledCache = new WeakMap<object, { reads: unknown[]; compiled: unknown }>();

/**
 * Hands `visit` every value the compile of `tariff` reads, in a fixed order, while it
 * returns true; false when a visit did. Property names are written out: this runs on
 * every engine call.
 */
function visitReads(tariff: Json, visit: (value: unknown) => boolean): boolean {
  const rules = tariff.rules;
  if (!visit(tariff.id) || !visit(tariff.name) || !visit(tariff.vat) || !visit(tariff.currency) || !visit(rules)) return false;
  if (!Array.isArray(rules) || !visit(rules.length)) return false;
  for (let k = 0; k < rules.length; k++) {
    const rule = rules[k] as Json | null;
    if (!visit(rule)) return false;
    if (typeof rule !== 'object' || rule === null) continue;
    if (!visit(rule.priority) || !visit(rule.price) || !visit(rule.time_start) || !visit(rule.time_end)) return false;
    if (!visit(rule.gateway_id) || !visit(rule.sensor_id) || !visit(rule.sensor_value) || !visit(rule.sensor_condition)) return false;
    if (!visitDays(rule.weekdays, visit) || !visitDays(rule.weekday, visit)) return false;
  }
  return true;
}

/** A weekday list is read entry by entry (it may be edited in place). */
function visitDays(days: unknown, visit: (value: unknown) => boolean): boolean {
  if (!visit(days)) return false;
  if (!Array.isArray(days)) return true;
  if (!visit(days.length)) return false;
  for (let d = 0; d < days.length; d++) if (!visit(days[d])) return false;
  return true;
}

/** Keeps `compiled` for its tariff object, with the values its compile read. */
export function remember(compiled: { tariff: object }): void {
  const reads: unknown[] = [];
  visitReads(compiled.tariff as Json, (value) => reads.push(value) > 0);
  compiledCache.set(compiled.tariff, { reads, compiled });
}

/** The compiled form cached for `tariff` when nothing the compile read has changed since. */
export function cachedCompile<T>(tariff: object): T | null {
  const hit = compiledCache.get(tariff);
  if (!hit) return null;
  const reads = hit.reads;
  let k = 0;
  const same = visitReads(tariff as Json, (value) => k < reads.length && Object.is(value, reads[k++]));
  return same && k === reads.length ? (hit.compiled as T) : null;
}
