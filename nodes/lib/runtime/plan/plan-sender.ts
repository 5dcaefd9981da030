// What easy-plan has sent, so that it sends again only on change: output 1's state and
// value, and output 2's plan message (its fingerprint); and the plan message of a ledger.

import type { PlanResult } from '../../engine/plan/plan';
import type { Ledger } from './plan-ledger';
import { OutputState, OutputValues, PlanCause, PlanPayload, planPayload } from './plan-output';
import type { PlanSettings } from './plan-settings';
import type { Override } from './plan-store';

export interface LedgerPayloadInputs {
  tariffId: string;
  timezone: string;
  currency: string | null;
  vat: number;
  settings: PlanSettings;
  ledger: Ledger;
  result: PlanResult | null;
  shortfall: string | null;
  /** Why no slot lies ahead; null when one does. */
  reason: string | null;
  cause: PlanCause;
  now: number;
}

/** Output 2's message for a ledger at `now`: its one-off while that lasts, else its window. */
export function ledgerPayload(x: LedgerPayloadInputs): PlanPayload {
  const { ledger, now } = x;
  const strategy = x.settings.strategy;
  const once = ledger.once && ledger.once.to > now ? ledger.once : null;
  return planPayload({
    tariffId: x.tariffId,
    timezone: x.timezone,
    currency: x.currency,
    vat: x.vat,
    request: once ? 'once' : 'plan',
    strategy,
    // nothing is owed after a cancel, nor in save mode (its slots are off periods)
    span: once ?? (ledger.cancelled || strategy === 'save' ? { ...ledger.cycle, requested: 0 } : ledger.cycle),
    pieces: ledger.pieces,
    result: x.result,
    shortfall: x.shortfall,
    reason: x.reason,
    cause: x.cause,
    now,
  });
}

export interface SenderOptions {
  outputs: OutputValues;
  onOutput(value: unknown, state: OutputState, override: Override): void;
  onPlan(payload: PlanPayload): void;
}

export class PlanSender {
  /** The state last sent and its value (as JSON); null until the first one is sent. */
  private sent: OutputState | null = null;
  private sentValue: string | null = null;
  private sentPlan: string | null = null;
  /** Output 1 has sent something (a forgotten output was still sent: resend may follow it). */
  private everSent = false;

  constructor(private readonly opts: SenderOptions) {}

  /** Whether output 1 has sent anything yet. */
  get hasSent(): boolean {
    return this.everSent;
  }

  /** The next output is sent even when unchanged. */
  forgetOutput(): void {
    this.sent = null;
  }

  /** The next plan message is sent even when unchanged. */
  forgetPlan(): void {
    this.sentPlan = null;
  }

  /** Sends the plan message unless it says what the last one said. */
  plan(payload: PlanPayload): void {
    // a slot continued by a new plan is averaged again: prices differing in the last bits are the same plan
    const slots = payload.slots.map((x) => [x.fromMs, x.toMs, x.request, x.price]);
    const fingerprint = JSON.stringify([payload.window, slots, payload.requested, payload.shortfall]);
    if (fingerprint !== this.sentPlan) {
      this.sentPlan = fingerprint;
      this.opts.onPlan(payload);
    }
  }

  /** Sends output 1's value for `state` when it changed (or was never sent, or was forgotten). */
  output(state: OutputState, override: Override): void {
    const value = JSON.stringify(this.opts.outputs[state]) ?? 'null';
    // entering the window sends nothing when the value outside it is the off value
    if (this.sent === null || value !== this.sentValue) {
      this.everSent = true;
      this.sent = state;
      this.sentValue = value;
      this.opts.onOutput(this.opts.outputs[state], state, override);
    }
  }
}
