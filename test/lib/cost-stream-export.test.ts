// CostStream with export meters (semantics rule 47): directions kept apart in the site's sums,
// stored with the totals and read back as hostile data, and 20,000 meters refused in bursts.
import should from 'should';
import { CostStream, RefusedReading, TotalsStore } from '../../nodes/lib/runtime/cost/cost-stream';
import { ExportMeters } from '../../nodes/lib/runtime/common/meter-direction';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';

const FLAT = { id: 'F', name: 'Flat', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 0.25 }] } as Tariff;
const FEED = { id: 'X', name: 'Feed-in', vat: 20, currency: 'GBP', rules: [{ priority: 1, price: 0.1 }] } as Tariff;
const T0 = Date.parse('2026-03-04T10:00:00Z');
const LATER = T0 + 60 * 24 * 3600_000;
const HOUR = 3600_000;

function memoryStore(): TotalsStore & { saved: unknown } {
  const store = {
    saved: undefined as unknown,
    load: async () => store.saved,
    save: async (value: unknown) => {
      store.saved = JSON.parse(JSON.stringify(value));
    },
  };
  return store;
}

async function started(store = memoryStore(), key = 'tariff:X|vat:false|floor:false', patterns = 'pv*') {
  const warnings: string[] = [];
  const stream = new CostStream({
    timezone: 'UTC',
    tariffId: 'F',
    store,
    warn: (w) => warnings.push(w),
    exportMeters: new ExportMeters(patterns),
    exportPricing: { exportVat: false, floorAtZero: false, key },
  });
  await stream.restore();
  return { stream, warnings, store };
}

describe('CostStream: export meters', () => {
  it('prices export meters with the export tariff, sums them apart, and stores and restores their direction', async () => {
    const { stream, store, warnings } = await started();
    await stream.handle({ topic: 'grid', payload: 100, ts: T0 }, FLAT, LATER, FEED);
    await stream.handle({ topic: 'pv1', payload: 50, ts: T0 }, FLAT, LATER, FEED);
    await stream.handle({ topic: 'grid', payload: 104, ts: T0 + HOUR }, FLAT, LATER, FEED);
    const out = await stream.handle({ topic: 'pv1', payload: 60, ts: T0 + HOUR }, FLAT, LATER, FEED);
    should(out!.payload).match({ direction: 'export', today: { energy: 10, gross: 1, vat: 0 } });
    should(out!.site).match({ meters: 1, day: { energy: 4, gross: 1.2 }, export: { meters: 1, day: { energy: 10, gross: 1 } } });
    should((out!.payload.site as { net: { today: { gross: number } } }).net.today.gross).be.approximately(0.2, 1e-9);
    await stream.close();
    should(warnings).eql([]);
    should(store.saved).match({ exports: [1], exportPrice: 'tariff:X|vat:false|floor:false' });
    // after a restart the meters count on as they did, each in its direction
    const again = await started(store);
    const next = await again.stream.handle({ topic: 'pv1', payload: 61, ts: T0 + 2 * HOUR }, FLAT, LATER, FEED);
    should(next!.payload).match({ direction: 'export', today: { energy: 11 } });
    should(next!.site).match({ meters: 1, day: { energy: 4 }, export: { day: { energy: 11 } } });
    const grid = await again.stream.handle({ topic: 'grid', payload: 105, ts: T0 + 2 * HOUR }, FLAT, LATER, FEED);
    should(grid!.payload).match({ today: { energy: 5, intervals: 2 } });
  });

  it('tampered stored directions: positions that are not meters make the store unreadable; another export price drops only the export meters', async () => {
    const { stream, store } = await started();
    await stream.handle({ topic: 'grid', payload: 100, ts: T0 }, FLAT, LATER, FEED);
    await stream.handle({ topic: 'pv1', payload: 50, ts: T0 }, FLAT, LATER, FEED);
    await stream.close();
    const saved = store.saved as { exports: unknown };
    const other = await started(store, 'rate:0.2|vat:false|floor:false');
    should(other.warnings.join('\n')).match(/export meter pv1 \(counted at another export price\)/);
    should(other.stream.site()).match({ meters: 1 });
    should(other.stream.site()).not.have.property('export');
    for (const exports of [[5], ['0'], [-1], { 0: 1 }, [0.5]]) {
      const tampered = memoryStore();
      tampered.saved = { ...(store.saved as object), ...saved, exports };
      const t = await started(tampered);
      should(t.warnings).eql(['running totals started from zero: stored totals are unreadable']);
    }
  });

  it('20,000 export meters: 128 counted, the rest refused with one error a burst, and the counted ones go on', async () => {
    const { stream } = await started(memoryStore(), 'tariff:X|vat:false|floor:false', '');
    let refused = 0;
    const bursts: Array<Promise<Error | null>> = [];
    for (let i = 0; i < 20_000; i++) {
      try {
        await stream.handle({ topic: `m${i}`, payload: 1, ts: T0, direction: 'export' }, FLAT, LATER, FEED);
      } catch (err) {
        if (!(err instanceof RefusedReading)) throw err;
        refused++;
        bursts.push(err.burst);
      }
    }
    should(refused).equal(20_000 - 128);
    should(stream.site()).match({ meters: 0, export: { meters: 128 } });
    const out = await stream.handle({ topic: 'm5', payload: 3, ts: T0 + HOUR, direction: 'export' }, FLAT, LATER, FEED);
    should(out!.payload).match({ today: { energy: 2 } });
    await stream.close();
    const errors = (await Promise.all(bursts)).filter((e): e is Error => e !== null).map((e) => e.message);
    should(errors.length).be.above(0);
    should(errors.join('\n')).match(/meter limit reached: [\d,]+ sensors ignored, "m128" the first/);
  });
});
