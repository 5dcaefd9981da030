// Records of export meters (semantics rule 47): InfluxDB points tagged direction=export, and
// Home Assistant entities its Energy dashboard accepts in the grid's "return to grid" slot
// with a compensation, checked against Home Assistant's own rules (test/home-assistant-rules.ts), from payloads the real
// CostStream sends.
import should from 'should';
import { CostStream } from '../../nodes/lib/runtime/cost/cost-stream';
import { ExportMeters } from '../../nodes/lib/runtime/common/meter-direction';
import { energyStatisticProblems, moneyStatisticProblems } from '../home-assistant-rules';
import { streamCostPoints } from '../../nodes/lib/engine/records/figure-points';
import { streamCostEntities } from '../../nodes/lib/engine/records/ha-figures';
import { haDiscovery, HaEntity, HaTarget } from '../../nodes/lib/engine/records/home-assistant';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';

const FLAT = { id: 'F', name: 'Flat', vat: 20, currency: 'EUR', rules: [{ priority: 1, price: 0.3 }] } as Tariff;
const FEED = { id: 'X', name: 'Feed-in', vat: 20, currency: 'EUR', rules: [{ priority: 1, price: 0.08 }] } as Tariff;
const T0 = Date.parse('2026-06-10T08:00:00Z');
const HOUR = 3600_000;

const target: HaTarget = { device: 'easy energy', nodeId: 'n1', prefix: 'homeassistant', base: 'node-red-easy' };
const config = (e: HaEntity) => haDiscovery(target, e).payload as Record<string, unknown>;
/** The entity as Home Assistant has it: its discovery config and the state sent. */
const seen = (e: HaEntity) => ({ config: config(e), state: e.value });

async function solarPayloads() {
  const stream = new CostStream({
    timezone: 'Europe/Berlin',
    tariffId: 'F',
    store: { load: async () => undefined, save: async () => undefined },
    warn: () => undefined,
    exportMeters: new ExportMeters('G/export.kwh'),
    exportPricing: { exportVat: false, floorAtZero: false, key: 'k' },
  });
  await stream.restore();
  const send = (topic: string, value: number, ts: number) =>
    stream.handle({ gateway: 'G', topic, payload: value, ts }, FLAT, T0 + 48 * HOUR, FEED).then((o) => o!.payload);
  await send('import.kwh', 100, T0);
  await send('export.kwh', 20, T0);
  const imp = await send('import.kwh', 101, T0 + HOUR);
  const exp = await send('export.kwh', 25, T0 + HOUR);
  await stream.close();
  return { imp, exp };
}

describe('records of export meters', () => {
  it("InfluxDB: an export meter's points carry direction=export; an import meter's series stay as they were", async () => {
    const { imp, exp } = await solarPayloads();
    const exported = streamCostPoints(exp);
    should(exported.length).be.above(0);
    for (const p of exported) should(p.tags).match({ direction: 'export', meter: 'export.kwh', gateway: 'G' });
    should(exported.find((p) => p.tags.period === 'day')!.fields).match({ energy: 5, gross: 0.4 });
    for (const p of streamCostPoints(imp)) should(p.tags).not.have.property('direction');
  });

  it("Home Assistant: the export register fits the Energy dashboard's return to grid, the credit total its compensation", async () => {
    const { imp, exp } = await solarPayloads();
    const entities = streamCostEntities(exp);
    const register = entities.find((e) => e.objectId.endsWith('export_meter'))!;
    const credit = entities.find((e) => e.objectId.endsWith('credit_total'))!;
    should(register).match({ name: 'Export meter G/export.kwh', value: 25, stateClass: 'total_increasing', unit: 'kWh' });
    should(credit).match({ name: 'Credit G/export.kwh total', value: 0.4, unit: 'EUR', stateClass: 'total' });
    should(energyStatisticProblems(seen(register))).eql([]);
    should(moneyStatisticProblems(seen(credit))).eql([]);
    // every money entity of an export meter is a credit, every energy one export: none is taken for the import's
    for (const e of entities) should(e.objectId).match(/(credit|export)/);
    // the import meter's register fits the grid's consumption slot as before, its ids unchanged
    const importEntities = streamCostEntities(imp);
    should(importEntities.map((e) => e.objectId.replace(/^.*?_(?=cost|energy|meter)/, ''))).containDeep([
      'cost_today',
      'energy_today',
      'meter',
    ]);
    should(energyStatisticProblems(seen(importEntities.find((e) => e.objectId.endsWith('_meter'))!))).eql([]);
    // every energy and money entity of both meters passes the rules of its kind
    for (const e of [...entities, ...importEntities]) {
      const problems =
        e.deviceClass === 'energy' ? energyStatisticProblems(seen(e)) : e.deviceClass === 'monetary' ? moneyStatisticProblems(seen(e)) : [];
      should(problems).eql([], e.objectId);
    }
    // the rules bite: what Home Assistant would refuse is refused
    should(
      moneyStatisticProblems({
        ...seen(credit),
        config: { ...config(credit), state_class: 'measurement', last_reset_value_template: undefined },
      }),
    ).eql(['entity_state_class_measurement_no_last_reset', 'sensor_state_class_not_supported']);
    should(moneyStatisticProblems({ ...seen(credit), config: { ...config(credit), state_class: 'total_increasing' } })).eql([
      'sensor_state_class_not_supported',
    ]);
    should(energyStatisticProblems({ ...seen(register), config: { ...config(register), unit_of_measurement: 'EUR' } })).eql([
      'entity_unexpected_unit_energy',
    ]);
    should(energyStatisticProblems({ ...seen(register), state: -1 })).eql(['entity_negative_state']);
    should(energyStatisticProblems({ ...seen(register), state: 'unknown' })).eql(['entity_state_non_numeric']);
  });
});
