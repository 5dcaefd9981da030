// Find the tariff a node is configured with, or say why it cannot be used: one wording
// for every node, the editor's routes and the library.
import type { Problem, Tariff } from '../../engine/tariff/tariff';
import { shortText } from '../../engine/common/format';

/** What a lookup needs of the account's tariffs (a hub snapshot, or a parsed answer). */
export interface TariffsSeen {
  tariffs: Tariff[];
  problems: Problem[];
  /** When they were fetched; null before any success (absent: they were just fetched). */
  fetchedAt?: number | null;
  error?: Error | null;
}

/** How many of the account's tariff ids a "not on the account" message lists. */
const LISTED_IDS = 10;

/** The tariff `id`, or undefined. */
export function tariffById(seen: TariffsSeen, id: string): Tariff | undefined {
  return seen.tariffs.find((t) => t.id === id);
}

/** Why tariff `id` is not among `seen` (call it when tariffById found none). */
export function whyNoTariff(seen: TariffsSeen, id: string): string {
  const name = JSON.stringify(shortText(id));
  if (seen.fetchedAt === null && seen.error) return `tariffs could not be fetched: ${seen.error.message}`;
  if (seen.fetchedAt === null && seen.tariffs.length === 0 && seen.problems.length === 0) return 'the tariffs have not been fetched yet';
  const rejected = seen.problems.find((p) => p.severity === 'error' && p.tariffId === id);
  if (rejected) return `tariff ${name} was rejected: ${rejected.message}`;
  const known = seen.tariffs
    .slice(0, LISTED_IDS)
    .map((t) => t.id)
    .join(', ');
  const more = seen.tariffs.length > LISTED_IDS ? ', …' : '';
  return `tariff ${name} is not on the account${known ? ` (it has ${known}${more})` : ''}`;
}

/** The tariff `id`, or an Error that says why it cannot be used. */
export function findTariff(seen: TariffsSeen, id: string): Tariff {
  const found = tariffById(seen, id);
  if (found) return found;
  throw new Error(whyNoTariff(seen, id));
}
