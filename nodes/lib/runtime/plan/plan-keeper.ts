// easy-plan's two context stores (the plan, the override) read and written without
// throwing: a store that fails is told in words, and the plan is written only when it
// changed.

import type { Override, PlanStore, StoredPlan } from './plan-store';

export class PlanKeeper {
  private savedPlan: string | null = null;

  constructor(
    private readonly store: PlanStore,
    private readonly overrideStore: PlanStore,
    private readonly tell: (message: string) => void,
  ) {}

  /** The stored plan and override, each undefined when its store cannot be read. */
  load(): Promise<[unknown, unknown]> {
    return Promise.all([this.read(this.store, 'plan'), this.read(this.overrideStore, 'override')]);
  }

  /** Stores the plan when it changed, with the instant it is stored at (`savedAt`: a later restart tells a clock that went back). */
  savePlan(value: Omit<StoredPlan, 'savedAt'>, savedAt: number): void {
    const text = JSON.stringify(value);
    // the ledger changes only with a plan: the store is written then, not at every switch
    if (text === this.savedPlan) return;
    this.savedPlan = text;
    this.store.save({ ...value, savedAt }).catch((err: Error) => {
      if (this.savedPlan === text) this.savedPlan = null; // not stored: tried again with the next save
      this.tell(`the plan could not be stored: ${err.message}`);
    });
  }

  saveOverride(mode: Override): void {
    this.overrideStore.save(mode).catch((err: Error) => this.tell(`the override could not be stored: ${err.message}`));
  }

  private async read(store: PlanStore, what: string): Promise<unknown> {
    try {
      return await store.load();
    } catch (err) {
      this.tell(`the stored ${what} could not be read: ${(err as Error).message}; starting afresh`);
      return undefined;
    }
  }
}
