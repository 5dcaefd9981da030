import should from 'should';
import { PlanKeeper } from '../../nodes/lib/runtime/plan/plan-keeper';
import type { StoredPlan } from '../../nodes/lib/runtime/plan/plan-store';

const settle = () => new Promise((resolve) => setImmediate(resolve));
const plan = (key: string) => ({ key, ledger: {}, currency: 'GBP', vat: 20 }) as unknown as StoredPlan;
const T = Date.parse('2026-03-04T10:00:00Z');

describe('PlanKeeper: the plan and override stores', () => {
  it('writes the plan only when it changed, and a plan the store refused is tried again at the next save', async () => {
    const saved: unknown[] = [];
    let failing = true;
    const told: string[] = [];
    const store = {
      load: async () => undefined,
      save: async (v: unknown) => {
        if (failing) throw new Error('disk full');
        saved.push(v);
      },
    };
    const keeper = new PlanKeeper(store, store, (m) => told.push(m));
    keeper.savePlan(plan('a'), T);
    await settle();
    should(told).eql(['the plan could not be stored: disk full']);
    failing = false;
    keeper.savePlan(plan('a'), T + 1); // the same plan: not on disk yet, so written now, with the instant it is stored at
    keeper.savePlan(plan('a'), T + 2); // and not again: only the instant changed
    await settle();
    should(saved).eql([{ ...plan('a'), savedAt: T + 1 }]);
  });

  it('says when the override cannot be stored, and reads a failing store as nothing stored', async () => {
    const told: string[] = [];
    const broken = {
      load: async () => {
        throw new Error('unreadable');
      },
      save: async () => {
        throw new Error('read-only');
      },
    };
    const keeper = new PlanKeeper(broken, broken, (m) => told.push(m));
    keeper.saveOverride('on');
    should(await keeper.load()).eql([undefined, undefined]);
    await settle();
    should(told).containEql('the override could not be stored: read-only');
  });
});
