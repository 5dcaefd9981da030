// JSON text read in slices, so that no answer within the size limit holds the event loop
// for long whatever its shape: one JSON.parse of 2 MB of `[{}, {}, …]` takes ~0.5 s here
// (a Pi: seconds), and slicing the work after it cannot help. A container longer than a
// slice is cut at its own commas into runs of members, each run handed to JSON.parse
// (native speed, and native validation of everything inside it); a member longer than a
// slice is read the same way, one level down. The result is what JSON.parse gives —
// the same values, key order, duplicate keys (the last wins) and an own `__proto__` key
// kept as data — and text JSON.parse refuses is refused (a SyntaxError).
import { Steps } from '../engine/common/slices';

/** Characters handed to one JSON.parse, and scanned between two turns of the event loop. */
export const JSON_SLICE_CHARS = 64 * 1024;
/** Containers cut open one inside the other at most; deeper, a member is parsed whole (it is then short). */
const MAX_CUT_DEPTH = 32;

/** Parses `text` as JSON.parse does, yielding where a slice may end. */
export function* parseJsonSteps(text: string, slice = JSON_SLICE_CHARS): Steps<unknown> {
  const start = skipSpace(text, 0);
  const end = trimEnd(text, start, text.length);
  if (end - start <= slice) return JSON.parse(text);
  return yield* valueSteps(text, start, end, 0, slice);
}

function* valueSteps(text: string, start: number, end: number, depth: number, slice: number): Steps<unknown> {
  const open = text[start];
  if (end - start <= slice || depth >= MAX_CUT_DEPTH || (open !== '[' && open !== '{')) {
    return JSON.parse(text.slice(start, end));
  }
  const close = open === '[' ? ']' : '}';
  if (text[end - 1] !== close) throw new SyntaxError(`JSON: expected '${close}' at position ${end - 1}`);
  const into = open === '[' ? new ArrayInto() : new ObjectInto();
  yield* membersInto(text, start + 1, end - 1, depth, slice, into);
  return into.value;
}

/** Where a container's members go: a run of short ones parsed together, or one long one read a level down. */
interface Into {
  value: unknown;
  run(text: string, from: number, to: number): void;
  long(text: string, from: number, to: number, depth: number, slice: number): Steps<void>;
}

class ArrayInto implements Into {
  value: unknown[] = [];
  run(text: string, from: number, to: number): void {
    const part = JSON.parse(`[${text.slice(from, to)}]`) as unknown[];
    for (let k = 0; k < part.length; k++) this.value.push(part[k]);
  }
  *long(text: string, from: number, to: number, depth: number, slice: number): Steps<void> {
    this.value.push(yield* valueSteps(text, from, to, depth + 1, slice));
  }
}

class ObjectInto implements Into {
  value: Record<string, unknown> = {};
  run(text: string, from: number, to: number): void {
    const part = JSON.parse(`{${text.slice(from, to)}}`) as Record<string, unknown>;
    for (const key of Object.keys(part)) define(this.value, key, part[key]);
  }
  *long(text: string, from: number, to: number, depth: number, slice: number): Steps<void> {
    const keyEnd = stringEnd(text, from);
    const colon = skipSpace(text, keyEnd);
    if (text[colon] !== ':') throw new SyntaxError(`JSON: expected ':' at position ${colon}`);
    const key = JSON.parse(text.slice(from, keyEnd)) as string;
    define(this.value, key, yield* valueSteps(text, skipSpace(text, colon + 1), to, depth + 1, slice));
  }
}

/**
 * Scans a container's inside [from, to) once, cutting it at the commas outside strings and
 * inner containers: runs of members up to a slice long are handed to `into.run` as they
 * close, a member longer than a slice to `into.long`. An empty member (`[1,,2]`, `[1,]`) is
 * refused, as JSON.parse would. Yields after every run and every slice of characters.
 */
function* membersInto(text: string, from: number, to: number, depth: number, slice: number, into: Into): Steps<void> {
  if (skipSpace(text, from) >= to) return;
  let level = 0;
  let inString = false;
  let runStart = from;
  let memberStart = from;
  let nextYield = from + slice;
  for (let i = from; i <= to; i++) {
    if (i >= nextYield) {
      nextYield = i + slice;
      yield;
    }
    const c = i === to ? 0x2c : text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) level++;
    else if (c === 0x5d || c === 0x7d) {
      if (--level < 0) throw new SyntaxError(`JSON: unexpected '${text[i]}' at position ${i}`);
    } else if (c === 0x2c && level === 0) {
      const start = skipSpace(text, memberStart);
      if (start >= i) throw new SyntaxError(`JSON: a missing value at position ${memberStart}`);
      if (i - memberStart > slice) {
        // a long member: the short ones before it first, then it alone, a level down
        if (memberStart - 1 > runStart) into.run(text, runStart, memberStart - 1);
        yield* into.long(text, start, trimEnd(text, start, i), depth, slice);
        runStart = i + 1;
        yield;
      } else if (i === to || i - runStart >= slice) {
        into.run(text, runStart, i);
        runStart = i + 1;
        yield;
      }
      memberStart = i + 1;
    }
  }
  if (inString || level !== 0) throw new SyntaxError('JSON: unexpected end of a container');
}

/** Sets an own data property as JSON.parse does: `__proto__` stays a key, never the prototype. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** Where the JSON string starting at `at` ends (after its closing quote). */
function stringEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== 0x22) throw new SyntaxError(`JSON: expected a string key at position ${at}`);
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  throw new SyntaxError('JSON: unterminated string');
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

function trimEnd(text: string, from: number, to: number): number {
  while (to > from && isSpace(text.charCodeAt(to - 1))) to--;
  return to;
}
