// easy-plan's status words under the node: on or off until when, the next slot, why there
// is no plan, and the override in front of them.

import { shortText } from '../../engine/common/format';
import { LedgerPiece, runningBlock } from './plan-ledger';
import { slotsOf } from './plan-output';
import type { PlanSettings } from './plan-settings';
import type { Override } from './plan-store';
import { localTime, WatchStatus } from '../tariff/watch-status';

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
