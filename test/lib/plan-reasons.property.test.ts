// Every empty or short plan says why (issue 29, point 4), over generated settings: the
// node's ledger planned at a generated instant (as PlanWatch plans it, without Node-RED)
// and its plan message. A plan with no slot ahead carries a reason, a plan short of its
// run time a shortfall; save mode speaks of switching off, never of a duration; nothing
// reads "only 0 s"; run times in texts are whole minutes from a minute on (point 10).
import should from 'should';
import fc from 'fast-check';
import { configuredCycle, planSettings, PlanSettings } from '../../nodes/lib/runtime/plan/plan-settings';
import { replanLedger } from '../../nodes/lib/runtime/plan/plan-ledger';
import { replanSaving } from '../../nodes/lib/runtime/plan/plan-saving';
import { enginePlanner, planPreview } from '../../nodes/lib/runtime/plan/plan-planner';
import { planReason } from '../../nodes/lib/runtime/plan/plan-cycle';
import { ledgerPayload } from '../../nodes/lib/runtime/plan/plan-sender';
import { runTimeText, runTimeTexts } from '../../nodes/lib/engine/plan/plan';

const HOUR = 3_600_000;
const ZONES = ['Europe/London', 'Atlantic/Azores', 'America/Havana', 'Asia/Beirut'];
/** A day around a clock change in each of those zones, and an ordinary one. */
const DAYS = ['2026-01-12T00:00:00Z', '2026-03-29T00:00:00Z', '2026-10-25T00:00:00Z', '2026-03-08T00:00:00Z'];

/** A tariff of hourly prices (a few levels, so ties, flat days and small steps all come up). */
function hourlyTariff(prices: number[]) {
  const two = (h: number) => `${String(h).padStart(2, '0')}:00`;
  return {
    id: 'T',
    name: 'generated',
    vat: 20,
    currency: 'EUR',
    rules: prices.map((price, h) => ({ priority: 1, price, time_start: two(h), time_end: h === 23 ? '24:00' : two(h + 1) })),
  };
}

const configs = fc.record({
  strategy: fc.constantFrom('cheapest', 'dearest', 'save'),
  durationHours: fc.integer({ min: 0, max: 10 }),
  durationMinutes: fc.constantFrom(0, 0, 20, 45),
  mode: fc.constantFrom('daily', 'daily', 'rolling'),
  from: fc.integer({ min: 0, max: 23 }).map((h) => `${String(h).padStart(2, '0')}:00`),
  until: fc.integer({ min: 0, max: 23 }).map((h) => `${String(h).padStart(2, '0')}:30`),
  hours: fc.integer({ min: 1, max: 30 }),
  contiguous: fc.boolean(),
  minBlockHours: fc.constantFrom(0, 0, 1, 2),
  limit: fc.constantFrom('', '', '0.15', '0.25', '0.4'),
  maxOffMinutes: fc.constantFrom(30, 60, 90, 240),
  minOnMinutes: fc.constantFrom(0, 10, 30),
  minSaving: fc.constantFrom('', '0.01', '0.05', '0.1', '0.3'),
  recoveryPercent: fc.constantFrom('', '20', '50'),
});

const cases = fc.record({
  config: configs,
  prices: fc.oneof(
    fc.constantFrom(0.1, 0.3).map((p) => Array<number>(24).fill(p)),
    fc.array(fc.constantFrom(0.1, 0.2, 0.21, 0.3, 0.5), { minLength: 24, maxLength: 24 }),
  ),
  zone: fc.constantFrom(...ZONES),
  day: fc.constantFrom(...DAYS),
  // any ms of two days: re-plans happen at odd instants
  offset: fc.integer({ min: 0, max: 48 * HOUR - 1 }),
});

/** The node's settings, or null for a configuration the node refuses with an error (the minimum block longer than the duration). */
function settingsOf(config: Record<string, unknown>): PlanSettings | null {
  const { limit, ...rest } = config;
  try {
    return planSettings({ ...rest, maxPrice: limit, minPrice: limit });
  } catch {
    return null;
  }
}

describe('easy-plan: every empty or short plan says why (generated settings)', () => {
  it('a reason when no slot lies ahead, a shortfall when less than asked is planned, in the words of the mode', () => {
    let empty = 0;
    let short = 0;
    let saving = 0;
    fc.assert(
      fc.property(cases, ({ config, prices, zone, day, offset }) => {
        const settings = settingsOf(config);
        if (!settings) return;
        const now = Date.parse(day) + offset;
        const tariff = hourlyTariff(prices);
        const options = { timezone: zone };
        const ledger = { cycle: configuredCycle(settings, now, zone), cancelled: false, once: null, boost: null, pieces: [] };
        const planned =
          settings.strategy === 'save'
            ? replanSaving(ledger, now, tariff, options, settings)
            : replanLedger(ledger, now, enginePlanner(tariff, options, settings), settings);
        const reason = planReason(planned, settings, now);
        const payload = ledgerPayload({
          tariffId: 'T',
          timezone: zone,
          currency: 'EUR',
          vat: 20,
          settings,
          ledger: planned.ledger,
          result: planned.result,
          shortfall: planned.shortfall,
          reason,
          cause: 'deploy',
          now,
        });
        const ahead = payload.slots.some((s) => s.toMs > now);
        if (!ahead) {
          empty++;
          should(payload.reason).be.a.String().and.not.be.empty();
        } else should(payload.reason).be.null();
        if (payload.planned < payload.requested) {
          short++;
          should(payload.shortfall).be.a.String().and.not.be.empty();
        }
        const texts = [payload.shortfall, payload.reason].filter((t): t is string => t !== null);
        if (settings.strategy === 'save') {
          if (!ahead) saving++;
          for (const t of texts) should(t).not.match(/duration/);
        }
        for (const t of texts) {
          should(t).not.match(/only 0 s\b/);
          // a run time of a minute or more reads in whole minutes, never "1 h 46 min 44.769 s"
          should(t).not.match(/\b(h|min) \d+(\.\d+)? s\b/);
        }
        should(payload.requestedText).equal(runTimeText(payload.requested));
        should(payload.plannedMinutes).be.approximately(payload.planned / 60_000, 0.005 + 1e-9);
      }),
      { numRuns: 1500, seed: 29_4 },
    );
    // the generator reaches every kind of case the property speaks of
    should(empty).be.above(100);
    should(short).be.above(100);
    should(saving).be.above(20);
  });
});

describe('run times in texts (to the minute from a minute on)', () => {
  it('by hand', () => {
    should(runTimeText(0)).equal('0 s');
    should(runTimeText(20_000)).equal('20 s');
    should(runTimeText(500)).equal('0.5 s');
    should(runTimeText(59_499)).equal('59.499 s');
    should(runTimeText(59_500)).equal('1 min');
    should(runTimeText(4_796_769)).equal('1 h 20 min'); // 1 h 19 min 56.769 s
    should(runTimeText(6_404_769)).equal('1 h 47 min'); // 1 h 46 min 44.769 s
    should(runTimeText(3 * HOUR)).equal('3 h');
  });

  it('two compared run times that would read alike stay exact', () => {
    should(runTimeTexts(2 * HOUR - 10_000, 2 * HOUR)).eql(['1 h 59 min 50 s', '2 h']);
    should(runTimeTexts(4_796_769, 2 * HOUR)).eql(['1 h 20 min', '2 h']);
  });

  it('a window shorter than the run time whose price limit leaves some out does not say "all of it is planned"', () => {
    const settings = planSettings({ durationHours: 1, mode: 'daily', from: '00:00', until: '00:30', maxPrice: '0.2' });
    const now = Date.parse('2026-01-12T00:00:00Z');
    const ledger = { cycle: configuredCycle(settings, now, 'Europe/London'), cancelled: false, once: null, boost: null, pieces: [] };
    const planned = replanLedger(
      ledger,
      now,
      enginePlanner(hourlyTariff(Array(24).fill(0.3)), { timezone: 'Europe/London' }, settings),
      settings,
    );
    should(planned.shortfall).equal(
      'the configured plan: the window (30 min) is shorter than the run time (1 h); ' +
        'the configured plan: nothing of 30 min could be planned: the price is above 0.2 or no rule prices in the rest of the window',
    );
  });
});

describe("the edit dialog's chart says why the window under way plans nothing", () => {
  it('the saving example at 19:00 after the last drop: tomorrow is planned, tonight says no off time saves', () => {
    // 0.32 until 12:00, 0.30 until 18:00, 0.28 after: from 19:00 the price does not fall again today
    const prices = Array.from({ length: 24 }, (_, h) => (h >= 6 && h < 12 ? 0.32 : h >= 12 && h < 18 ? 0.3 : 0.28));
    const config = { strategy: 'save', mode: 'daily', from: '06:00', until: '23:00', maxOffMinutes: 90, minOnMinutes: 30, minSaving: '' };
    const now = Date.parse('2026-01-12T19:00:00Z');
    const preview = planPreview(hourlyTariff(prices), config, now, now + 7 * 24 * HOUR, { timezone: 'Europe/London' });
    should(preview.error).be.null();
    should(preview.slots.length).be.above(0);
    should(preview.slots[0].from).be.above(Date.parse('2026-01-13T06:00:00Z') - 1);
    should(preview.shortfalls[0]).equal('this window: no off time saves before the window ends');
  });
});
