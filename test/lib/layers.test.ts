// The package's public face and its floors: the names main exports are pinned (new ones
// are added here on purpose), and the linter refuses an import that runs up a floor.
import * as path from 'path';
import should from 'should';
import * as lib from '../../nodes/lib';

const root = path.join(__dirname, '..', '..');

describe('layers', () => {
  it("main exports exactly the library API's names", () => {
    should(Object.keys(lib).sort()).eql([
      'CLIENT_DEFAULTS',
      'DEFAULT_BASE_URL',
      'EasyApiError',
      'EasyClient',
      'MAX_PRICE_LIST_ENTRIES',
      'PERIOD_NAMES',
      'PriceList',
      'apparentDemandWindows',
      'assertTimeZone',
      'billingPeriodOf',
      'cheapestWindows',
      'compareTariffs',
      'computeCost',
      'computeNetCost',
      'dearestWindows',
      'decodeSensorId',
      'demandCharges',
      'demandWindowOf',
      'demandWindows',
      'formatMoney',
      'isPriceStack',
      'localDate',
      'localPeriod',
      'machineTimeZone',
      'minorUnits',
      'monthlyPeaks',
      'namedPeriod',
      'nextPriceChange',
      'parseTariffs',
      'periodBounds',
      'priceAt',
      'priceList',
      'reactiveCharges',
      'requireEpochMs',
      'savingOffWindows',
      'schedule',
      'sensorRuns',
      'sensorsUsedBy',
      'toEpochMs',
    ]);
  });

  describe('the linter keeps the floors apart', function () {
    this.timeout(60_000);
    // eslint loads typescript-eslint once for all cases
    let eslint: {
      lintText(
        text: string,
        options: { filePath: string },
      ): Promise<Array<{ messages: Array<{ ruleId: string | null; message: string }> }>>;
    };
    before(async () => {
      const { ESLint } = require('eslint');
      eslint = new ESLint({ cwd: root });
    });

    const restricted = async (file: string, text: string) => {
      const [result] = await eslint.lintText(text, { filePath: path.join(root, file) });
      return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
    };

    const cases: Array<[string, string, boolean]> = [
      [
        'nodes/lib/engine/cost/scratch.ts',
        "import type { AccountHub } from '../../runtime/account/hub';\nexport type X = AccountHub;\n",
        false,
      ],
      ['nodes/lib/engine/cost/scratch.ts', "import { EasyClient } from '../../api/client';\nexport const x = EasyClient;\n", false],
      ['nodes/lib/engine/cost/scratch.ts', "import RED from 'node-red';\nexport const x = RED;\n", false],
      ['nodes/lib/engine/cost/scratch.ts', "import { priceAt } from '../tariff/price';\nexport const x = priceAt;\n", true],
      ['nodes/lib/api/scratch.ts', "import { AccountHub } from '../runtime/account/hub';\nexport const x = AccountHub;\n", false],
      ['nodes/lib/api/scratch.ts', "import { priceAt } from '../engine/prices/price-source';\nexport const x = priceAt;\n", true],
      [
        'nodes/lib/runtime/cost/scratch.ts',
        "import { editorTariffs } from '../../editor/editor-data';\nexport const x = editorTariffs;\n",
        false,
      ],
      ['nodes/lib/runtime/cost/scratch.ts', "import { EasyClient } from '../../api/client';\nexport const x = EasyClient;\n", true],
      ['nodes/lib/editor/scratch.ts', "import x from '../../easy-cost';\nexport const y = x;\n", false],
      ['nodes/lib/index.ts', "export { AccountHub } from './runtime/account/hub';\n", false],
      ['nodes/scratch.ts', "import { computeCost } from './lib/engine/cost/cost';\nexport const x = computeCost;\n", false],
      ['nodes/scratch.ts', "import { EasyClient } from './lib/api/client';\nexport const x = EasyClient;\n", false],
      ['nodes/scratch.ts', "import { CostStream } from './lib/runtime/cost/cost-stream';\nexport const x = CostStream;\n", true],
      // the runtime's parts: a node's folder never imports another node's
      ['nodes/lib/runtime/cost/scratch.ts', "import type { PlanWatch } from '../plan/plan-watch';\nexport type X = PlanWatch;\n", false],
      ['nodes/lib/runtime/tariff/scratch.ts', "import { PlanWatch } from '../plan/plan-watch';\nexport const x = PlanWatch;\n", false],
      ['nodes/lib/runtime/sensors/scratch.ts', "import { CostStream } from '../cost/cost-stream';\nexport const x = CostStream;\n", false],
      [
        'nodes/lib/runtime/cost/scratch.ts',
        "import { TariffWatch } from '../tariff/tariff-watch';\nexport const x = TariffWatch;\n",
        false,
      ],
      [
        'nodes/lib/runtime/cost/scratch.ts',
        "import { CostStream } from '../../runtime/cost/cost-stream';\nexport const x = CostStream;\n",
        false,
      ],
      [
        'nodes/lib/runtime/account/scratch.ts',
        "import { TariffWatch } from '../tariff/tariff-watch';\nexport const x = TariffWatch;\n",
        false,
      ],
      ['nodes/lib/runtime/common/scratch.ts', "import type { AccountHub } from '../account/hub';\nexport type X = AccountHub;\n", false],
      ['nodes/lib/runtime/cost/scratch.ts', "import { PacedStatus } from '../common/paced-status';\nexport const x = PacedStatus;\n", true],
      ['nodes/lib/runtime/cost/scratch.ts', "import type { AccountHub } from '../account/hub';\nexport type X = AccountHub;\n", true],
      ['nodes/lib/runtime/plan/scratch.ts', "import { TariffWatch } from '../tariff/tariff-watch';\nexport const x = TariffWatch;\n", true],
      ['nodes/lib/runtime/peak/scratch.ts', "import { monthOf } from '../peak-period/peak-month';\nexport const x = monthOf;\n", true],
      [
        'nodes/lib/runtime/peak-period/scratch.ts',
        "import type { MeterPeaks } from '../peak/peak-meter';\nexport type X = MeterPeaks;\n",
        false,
      ],
      [
        'nodes/lib/runtime/cost/scratch.ts',
        "import { SiteReactive } from '../peak-period/peak-reactive';\nexport const x = SiteReactive;\n",
        false,
      ],
    ];
    for (const [file, text, allowed] of cases) {
      const first = text.split('\n')[0];
      it(`${allowed ? 'allows' : 'refuses'} in ${file}: ${first}`, async () => {
        const messages = await restricted(file, text);
        should(messages.length === 0).equal(allowed, messages.join('; '));
      });
    }
  });
});
