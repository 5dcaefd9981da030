// What the editor-file tests share: reading the package's files and catalogue keys.
import * as fs from 'fs';
import * as path from 'path';

export const ROOT = path.join(__dirname, '..', '..');
export const read = (...p: string[]): string => fs.readFileSync(path.join(ROOT, ...p), 'utf8');

/** The value at a dotted key ("editor.label.zone") of an i18n catalogue, or undefined. */
export function lookup(catalogue: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), catalogue);
}
