// The plan dialog's checks (resources/easy-plan-editor.js) run as the browser runs them,
// with easy-account's catalogue for words: what the settings as typed mean before
// anything is planned, and that each check agrees with what the node itself accepts.
import should from 'should';
import * as vm from 'vm';
import { lookup, read } from './editor-support';
import { planSettings } from '../../nodes/lib/runtime/plan/plan-settings';
import { outputValues, resendMs } from '../../nodes/lib/runtime/plan/plan-output';

type Check = { field: string; level: 'error' | 'warning' | 'note'; text: string };

function loadChecks(): (values: Record<string, unknown>) => Check[] {
  const catalogue = JSON.parse(read('nodes', 'locales', 'en-US', 'easy-account.json'));
  const translate = (key: string, subs: Record<string, string> = {}) => {
    const text = lookup(catalogue, key);
    if (typeof text !== 'string') throw new Error(`no message ${key}`);
    return text.replace(/__(\w+)__/g, (_, k) => subs[k]);
  };
  const chain: any = new Proxy(() => chain, { get: () => chain, apply: () => chain });
  const window: Record<string, any> = {};
  const context = vm.createContext({ window, $: chain, RED: { nodes: { getType: () => ({ _: translate }) } } });
  vm.runInContext(read('resources', 'easy-editor.js'), context);
  vm.runInContext(read('resources', 'easy-plan-editor.js'), context);
  // plain objects of this realm (the script runs in its own)
  return (values) => JSON.parse(JSON.stringify(window.EasyEditor.planChecks(values)));
}

const base = {
  durationHours: '3',
  durationMinutes: '0',
  mode: 'daily',
  from: '22:00',
  until: '07:00',
  hours: '24',
  contiguous: false,
  minBlockHours: '0',
  minBlockMinutes: '0',
  onType: 'bool',
  onValue: 'true',
  offType: 'bool',
  offValue: 'false',
  outsideType: 'off',
  outsideValue: '',
  resendMinutes: '0',
};

describe("the plan dialog's checks", () => {
  const checks = loadChecks();

  it('says nothing about settings that mean what they say', () => {
    should(checks(base)).eql([]);
    should(checks({ ...base, mode: 'rolling', hours: '12', durationHours: '12' })).eql([]);
  });

  it('marks and says why: longer than the window, 0, a block longer than the run, whole seconds, bad JSON, resend', () => {
    should(checks({ ...base, durationHours: '30' })).eql([
      {
        field: 'durationHours',
        level: 'warning',
        text: '30 h is longer than the window (9 h): the whole window runs, and the plan says what is missing.',
      },
    ]);
    should(checks({ ...base, mode: 'rolling', hours: '6', durationHours: '7' })[0].text).match(/window \(6 h\)/);
    should(checks({ ...base, durationHours: '0' })).eql([
      { field: 'durationHours', level: 'note', text: 'Run for 0: nothing runs, the output stays off.' },
    ]);
    should(checks({ ...base, minBlockHours: '4' })).eql([
      {
        field: 'minBlockHours',
        level: 'error',
        text: 'The minimum block (4 h) is longer than the run time (3 h): the node refuses it.',
      },
    ]);
    should(checks({ ...base, minBlockHours: '4', contiguous: true })).eql([]); // one block: no minimum
    should(checks({ ...base, durationMinutes: '0.001' })[0]).match({
      field: 'durationHours',
      level: 'error',
      text: 'The run time must be whole seconds: the node refuses it.',
    });
    should(checks({ ...base, onType: 'json', onValue: '{on' })[0]).match({ field: 'onValue', level: 'error' });
    should(checks({ ...base, outsideType: 'json', outsideValue: '{"relay":"off"}' })).eql([]);
    should(checks({ ...base, resendMinutes: '0.5' })).eql([
      { field: 'resendMinutes', level: 'error', text: 'Resend every: whole minutes from 0 (never) to 1440.' },
    ]);
  });

  it('switch off to save: no run time to check, the off periods said, the longest time off required', () => {
    should(checks({ ...base, strategy: 'save', maxOffMinutes: '60', durationHours: '30' })).eql([
      { field: 'strategy', level: 'note', text: 'The load is on in the window; the green marks on the chart are when it is switched off.' },
    ]);
    should(checks({ ...base, strategy: 'save', maxOffMinutes: '0' })[0]).match({ field: 'maxOffMinutes', level: 'error' });
    should(checks({ ...base, strategy: 'save', maxOffMinutes: '60', minOffMinutes: '90' })).eql([
      { field: 'minOffMinutes', level: 'error', text: 'Off at least: minutes from 0 to 1440, never more than off at most (60 min).' },
    ]);
  });

  it('an error in the dialog is exactly what the node refuses', () => {
    const cases = [
      base,
      { ...base, durationHours: '30' },
      { ...base, durationHours: '0' },
      { ...base, minBlockHours: '4' },
      { ...base, minBlockHours: '2', minBlockMinutes: '59' },
      { ...base, durationMinutes: '0.001' },
      { ...base, minBlockMinutes: '0.0001' },
      { ...base, durationHours: '0', durationMinutes: '0.000001' }, // under a millisecond: a mistake, not zero
      { ...base, onType: 'json', onValue: '{on' },
      { ...base, offType: 'json', offValue: '[1,2]' },
      { ...base, resendMinutes: '1441' },
      { ...base, resendMinutes: '15' },
      { ...base, strategy: 'save', maxOffMinutes: '60' },
      { ...base, strategy: 'save', maxOffMinutes: '0' },
      { ...base, strategy: 'save', maxOffMinutes: '' }, // empty: the default hour
      { ...base, strategy: 'save', maxOffMinutes: '60', minOffMinutes: '60' },
      { ...base, strategy: 'save', maxOffMinutes: '60', minOffMinutes: '61' },
      { ...base, strategy: 'save', maxOffMinutes: '', minOffMinutes: '61' }, // more than the default hour
      { ...base, strategy: 'save', maxOffMinutes: '90', minOffMinutes: '' },
      { ...base, strategy: 'save', maxOffMinutes: '90', minOffMinutes: '-1' },
      { ...base, strategy: 'save', maxOffMinutes: '90', minOffMinutes: '0.001' }, // 60 ms: not whole seconds
      { ...base, minOffMinutes: 'x' }, // hidden field of another mode: not read
      { ...base, maxOffMinutes: '', minOnMinutes: 'x' }, // hidden fields of another mode: not read
    ];
    for (const values of cases) {
      const refused = (() => {
        try {
          planSettings(values);
          outputValues(values);
          resendMs(values);
          return false;
        } catch {
          return true;
        }
      })();
      should(checks(values).some((c) => c.level === 'error')).equal(refused, JSON.stringify(values));
    }
  });
});
