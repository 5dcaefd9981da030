// Home Assistant's own rules for the entities its Energy dashboard takes in a grid source, in
// our words, from its source (home-assistant/core at 002ef7466ed8, 2026):
// - homeassistant/components/energy/validate.py: `_async_validate_usage_stat` checks the
//   energy statistics (stat_energy_from, "grid consumption", and stat_energy_to, "return to
//   grid"), `_async_validate_cost_stat` the money ones (stat_cost, stat_compensation);
// - homeassistant/components/sensor/const.py: DEVICE_CLASS_STATE_CLASSES, the state classes a
//   sensor of a device class may have (else HA logs "is using state class … which is not
//   supported" at every update), and UnitOfEnergy in homeassistant/const.py.
// Each check returns the problems in HA's own keys (empty: accepted).

/** UnitOfEnergy: the units an energy statistic may be in. */
const ENERGY_UNITS = ['J', 'kJ', 'MJ', 'GJ', 'mWh', 'Wh', 'kWh', 'MWh', 'GWh', 'TWh', 'cal', 'kcal', 'Mcal', 'Gcal'];
/** What the energy validation accepts as a statistic's state class. */
const STATISTIC_STATE_CLASSES = ['measurement', 'total', 'total_increasing'];
/** DEVICE_CLASS_STATE_CLASSES for the device classes our entities use. */
const SENSOR_STATE_CLASSES: Record<string, string[]> = { energy: ['total', 'total_increasing'], monetary: ['total'] };

/** An entity as Home Assistant sees it: its MQTT discovery config and the state it was sent. */
export interface HaEntityState {
  config: Record<string, unknown>;
  state: unknown;
}

/** The energy validation's problems with a state class, shared by both kinds of statistic. */
function stateClassProblems(config: Record<string, unknown>): string[] {
  const stateClass = config.state_class;
  const problems: string[] = [];
  if (!STATISTIC_STATE_CLASSES.includes(String(stateClass))) problems.push('entity_unexpected_state_class');
  // over MQTT the last_reset attribute comes from last_reset_value_template
  if (stateClass === 'measurement' && config.last_reset_value_template === undefined)
    problems.push('entity_state_class_measurement_no_last_reset');
  return problems;
}

/** The sensor platform's own check: a state class its device class does not allow. */
function sensorProblems(config: Record<string, unknown>): string[] {
  const allowed = SENSOR_STATE_CLASSES[String(config.device_class)];
  return allowed !== undefined && config.state_class !== undefined && !allowed.includes(String(config.state_class))
    ? ['sensor_state_class_not_supported']
    : [];
}

/** An energy statistic of the grid ("grid consumption" or "return to grid"). */
export function energyStatisticProblems({ config, state }: HaEntityState): string[] {
  const value = Number(state);
  if (state === null || state === undefined || String(state).trim() === '' || !Number.isFinite(value)) return ['entity_state_non_numeric'];
  const problems: string[] = [];
  if (value < 0) problems.push('entity_negative_state');
  if (config.device_class !== 'energy') problems.push('entity_unexpected_device_class');
  else if (!ENERGY_UNITS.includes(String(config.unit_of_measurement))) problems.push('entity_unexpected_unit_energy');
  return [...problems, ...stateClassProblems(config), ...sensorProblems(config)];
}

/** A money statistic of the grid (its cost, or the compensation of energy returned). */
export function moneyStatisticProblems({ config }: HaEntityState): string[] {
  return [...stateClassProblems(config), ...sensorProblems(config)];
}
