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
 * Every value the compile of `tariff` reads, in a fixed order: what sameReads compares.
 * Property names are written out (here and in sameReads, which must read the same values
 * in the same order): the check runs on every engine call.
 */
function readsOf(tariff: Json): unknown[] {
  const reads: unknown[] = [];
  const rules = tariff.rules;
  reads.push(tariff.id, tariff.name, tariff.vat, tariff.currency, rules);
  if (!Array.isArray(rules)) return reads;
  reads.push(rules.length);
  for (let k = 0; k < rules.length; k++) {
    const rule = rules[k] as Json | null;
    reads.push(rule);
    if (typeof rule !== 'object' || rule === null) continue;
    reads.push(rule.priority, rule.price, rule.time_start, rule.time_end);
    reads.push(rule.gateway_id, rule.sensor_id, rule.sensor_value, rule.sensor_condition);
    pushDays(rule.weekdays, reads);
    pushDays(rule.weekday, reads);
  }
  return reads;
}

/** A weekday list is read entry by entry (it may be edited in place). */
function pushDays(days: unknown, reads: unknown[]): void {
  reads.push(days);
  if (!Array.isArray(days)) return;
  reads.push(days.length);
  for (let d = 0; d < days.length; d++) reads.push(days[d]);
}

/**
 * Object.is written out, so that the check inlines it (a visitor called through a closure
 * did not inline: 3x slower); three times over, each for reads of one kind (texts, numbers,
 * objects): the engine inlines each with the type feedback of its own comparison, so a
 * text's is a string's and a price's a number's, where one function for all saw every
 * type and compared generically (some 60 ns a check of a 2-rule tariff).
 */
const sameText = (a: unknown, b: unknown): boolean => (a === b ? a !== 0 || 1 / (a as number) === 1 / (b as number) : a !== a && b !== b);
const sameNumber = (a: unknown, b: unknown): boolean => (a === b ? a !== 0 || 1 / (a as number) === 1 / (b as number) : a !== a && b !== b);
const sameObject = (a: unknown, b: unknown): boolean => (a === b ? a !== 0 || 1 / (a as number) === 1 / (b as number) : a !== a && b !== b);

/** Whether `tariff` still holds every value of `reads` (readsOf), in readsOf's order. */
function sameReads(tariff: Json, reads: unknown[]): boolean {
  const rules = tariff.rules;
  if (!sameText(tariff.id, reads[0]) || !sameText(tariff.name, reads[1]) || !sameNumber(tariff.vat, reads[2])) return false;
  if (!sameText(tariff.currency, reads[3]) || !sameObject(rules, reads[4])) return false;
  if (!Array.isArray(rules)) return reads.length === 5;
  if (rules.length !== reads[5]) return false;
  let k = 6;
  for (let r = 0; r < rules.length; r++) {
    const rule = rules[r] as Json | null;
    if (rule !== reads[k++]) return false; // identity (a NaN entry never hits: correct, only slower)
    if (typeof rule !== 'object' || rule === null) continue;
    if (!sameNumber(rule.priority, reads[k]) || !sameNumber(rule.price, reads[k + 1])) return false;
    if (!sameText(rule.time_start, reads[k + 2]) || !sameText(rule.time_end, reads[k + 3])) return false;
    if (!sameText(rule.gateway_id, reads[k + 4]) || !sameText(rule.sensor_id, reads[k + 5])) return false;
    if (!sameNumber(rule.sensor_value, reads[k + 6]) || !sameText(rule.sensor_condition, reads[k + 7])) return false;
    k = sameDays(rule.weekdays, reads, k + 8);
    if (k < 0) return false;
    k = sameDays(rule.weekday, reads, k);
    if (k < 0) return false;
  }
  return k === reads.length;
}

/** sameReads of a weekday list from reads[k]: the index after it, or -1 when it differs. */
function sameDays(days: unknown, reads: unknown[], k: number): number {
  if (!sameObject(days, reads[k++])) return -1;
  if (!Array.isArray(days)) return k;
  if (days.length !== reads[k++] || k + days.length > reads.length) return -1;
  for (let d = 0; d < days.length; d++) if (!sameNumber(days[d], reads[k++])) return -1;
  return k;
}

/** Keeps `compiled` for its tariff object, with the values its compile read. */
export function remember(compiled: { tariff: object }): void {
  compiledCache.set(compiled.tariff, { reads: readsOf(compiled.tariff as Json), compiled });
}

/** The compiled form cached for `tariff` when nothing the compile read has changed since. */
export function cachedCompile<T>(tariff: object): T | null {
  const hit = compiledCache.get(tariff);
  if (!hit) return null;
  return sameReads(tariff as Json, hit.reads) ? (hit.compiled as T) : null;
}
