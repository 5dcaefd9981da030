// Ids from outside (gateway, sensor, tariff and meter ids, message fields) are data: any
// string, "__proto__" and "constructor" included. They are never keys of a plain object,
// where they would read or write Object.prototype; these helpers are the one place that
// turns them into keys.

/** An empty record with no prototype: every string is an ordinary key of it. */
export function dataRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** `obj[key]` when obj is an object that has `key` as its own property, else undefined. */
export function ownField(obj: unknown, key: string): unknown {
  if (typeof obj !== 'object' || obj === null) return undefined;
  return Object.prototype.hasOwnProperty.call(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/** The value at `outer`/`inner` of a two-level record from outside (own properties only). */
export function nestedField(obj: unknown, outer: string, inner: string): unknown {
  return ownField(ownField(obj, outer), inner);
}

/** Sets `rec[outer][inner] = value`, creating the inner record without a prototype. */
export function setNested<T>(rec: Record<string, Record<string, T>>, outer: string, inner: string, value: T): void {
  let row = Object.prototype.hasOwnProperty.call(rec, outer) ? rec[outer] : undefined;
  if (row === undefined) {
    row = dataRecord<T>();
    rec[outer] = row;
  }
  row[inner] = value;
}
