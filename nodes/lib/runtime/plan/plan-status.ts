// easy-plan's status words under the node: on or off until when, the next slot, why there
// is no plan, and the override in front of them.

import { shortText } from '../../engine/common/format';
import { LedgerPiece, runningBlock } from './plan-ledger';
import { slotsOf } from './plan-output';
import type { PlanSettings } from './plan-settings';
import type { Override } from './plan-store';
import { localTime, WatchStatus } from '../tariff/watch-status';
import type { Ledger } from './plan-ledger';
import { knownUntilText, type StackSource } from '../prices/prices-source';

export interface PlanStatusInputs {
  pieces: LedgerPiece[];
  strategy: PlanSettings['strategy'];
  override: Override;
  /** Why nothing is planned (null: the default words). */
  noPlan: string | null;
  now: number;
  timezone: string;
}

export function planStatus(x: PlanStatusInputs): WatchStatus {
  const { pieces, now, timezone: tz } = x;
  const running = runningBlock(pieces, now);
  const next = slotsOf(pieces).find((s) => s.from > now);
  let text: string;
  let fill: WatchStatus['fill'] = 'grey';
  if (running) {
    // on until the end of the touching pieces, whichever request each serves
    let end = now;
    for (const p of pieces) if (p.from <= end && p.to > end) end = p.to;
    const word = x.strategy === 'save' ? 'off' : running.owner === 'boost' ? 'boost' : 'on';
    text = `${word} until ${localTime(end, now, tz)}`;
    fill = 'green';
  } else if (next) {
    const word = x.strategy === 'save' ? 'next off' : 'next';
    text = `${word} ${localTime(next.from, now, tz)}–${localTime(next.to, next.from, tz)}`;
  } else {
    text = `no plan: ${x.noPlan ?? 'nothing left to run in this window'}`;
    fill = 'yellow';
  }
  if (x.override !== 'auto') {
    return {
      fill: x.override === 'on' ? 'green' : 'grey',
      shape: 'ring',
      text: shortText(`override ${x.override} (plan: ${text})`, 60),
    };
  }
  return { fill, shape: running || next ? 'dot' : 'ring', text: shortText(text, 60) };
}

/** What the plan message adds with an easy-prices node: how far its list prices, and words where the window reaches further. */
export interface PricesKnown {
  pricesKnownUntil: string | null;
  pricesKnownUntilMs: number | null;
  pricesNote: string | null;
}

/**
 * With an easy-prices node (`prices`): until when its list prices back to back from now,
 * and, where the ledger's window reaches further, the words that say so (`short`, for the
 * status); null without one.
 */
export function pricesKnown(
  prices: StackSource | null,
  ledger: Ledger,
  now: number,
  timezone: string,
): { fields: PricesKnown; short: string | null } | null {
  if (!prices) return null;
  const until = prices.knownUntil(now);
  const windowEnd = ledger.once && ledger.once.to > now ? ledger.once.to : ledger.cycle.to;
  const short = until === null ? 'no prices known now' : until < windowEnd ? knownUntilText(until, now, timezone) : null;
  return {
    fields: {
      pricesKnownUntil: until === null ? null : new Date(until).toISOString(),
      pricesKnownUntilMs: until,
      pricesNote: short === null ? null : `${short}: the rest of the window is planned when the next list comes`,
    },
    short,
  };
}
