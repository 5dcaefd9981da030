// Records of export meters (semantics rule 47): InfluxDB points tagged direction=export, and
// Home Assistant entities its Energy dashboard accepts in the grid's "return to grid" slot
// with a compensation, checked against the dashboard's own rules, from payloads the real
// CostStream sends.
import should from 'should';
import { CostStream } from '../../nodes/lib/runtime/cost/cost-stream';
import { ExportMeters } from '../../nodes/lib/runtime/common/meter-direction';
import { streamCostPoints } from '../../nodes/lib/engine/records/figure-points';
import { streamCostEntities } from '../../nodes/lib/engine/records/ha-figures';
import { haDiscovery, HaEntity, HaTarget } from '../../nodes/lib/engine/records/home-assistant';
import type { Tariff } from '../../nodes/lib/engine/tariff/tariff';

const FLAT = { id: 'F', name: 'Flat', vat: 20, currency: 'EUR', rules: [{ priority: 1, price: 0.3 }] } as Tariff;
const FEED = { id: 'X', name: 'Feed-in', vat: 20, currency: 'EUR', rules: [{ priority: 1, price: 0.08 }] } as Tariff;
const T0 = Date.parse('2026-06-10T08:00:00Z');
const HOUR = 3600_000;

/**
 * Home Assistant's Energy dashboard rules for a grid source's statistics (its energy
 * component's validation: usage and cost statistics), as its discovery config states them:
 * an energy statistic ("return to grid", stat_energy_to) is device class energy, state class
 * total or total_increasing, unit Wh, kWh, MWh, MJ or GJ; a compensation (stat_compensation)
 * state class total or total_increasing, a currency as its unit (device class monetary).
 * Returns the problems in HA's own words (empty: accepted).
 */
function energyDashboardProblems(slot: 'energy' | 'compensation', config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (!['total', 'total_increasing'].includes(String(config.state_class))) problems.push('entity_unexpected_state_class');
  if (slot === 'energy') {
    if (config.device_class !== 'energy') problems.push('entity_unexpected_device_class');
    if (!['Wh', 'kWh', 'MWh', 'MJ', 'GJ'].includes(String(config.unit_of_measurement))) problems.push('entity_unexpected_unit_energy');
  } else {
    if (config.device_class !== 'monetary') problems.push('entity_unexpected_device_class');
    if (!/^[A-Z]{3}$/.test(String(config.unit_of_measurement))) problems.push('entity_unexpected_unit_compensation');
  }
  // a `total` whose count restarts must say when (HA reads last_reset), else its sums jump
  if (config.state_class === 'total' && config.last_reset_value_template === undefined) problems.push('entity_missing_last_reset');
  return problems;
}

const target: HaTarget = { device: 'easy energy', nodeId: 'n1', prefix: 'homeassistant', base: 'node-red-easy' };
const config = (e: HaEntity) => haDiscovery(target, e).payload as Record<string, unknown>;

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
    should(energyDashboardProblems('energy', config(register))).eql([]);
    should(energyDashboardProblems('compensation', config(credit))).eql([]);
    // every money entity of an export meter is a credit, every energy one export: none is taken for the import's
    for (const e of entities) should(e.objectId).match(/(credit|export)/);
    // the import meter's register fits the grid's consumption slot as before, its ids unchanged
    const importEntities = streamCostEntities(imp);
    should(importEntities.map((e) => e.objectId.replace(/^.*?_(?=cost|energy|meter)/, ''))).containDeep([
      'cost_today',
      'energy_today',
      'meter',
    ]);
    should(energyDashboardProblems('energy', config(importEntities.find((e) => e.objectId.endsWith('_meter'))!))).eql([]);
    // the rules bite: a measurement, or a money entity in kWh, is refused
    should(energyDashboardProblems('compensation', { ...config(credit), state_class: 'measurement' })).eql([
      'entity_unexpected_state_class',
    ]);
    should(energyDashboardProblems('energy', { ...config(register), unit_of_measurement: 'EUR' })).eql(['entity_unexpected_unit_energy']);
  });
});
